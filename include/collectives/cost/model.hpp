#pragma once
// The cost model of the seeds (Hockney): a message of m words costs t_s + t_w m, plus t_h
// per hop under cut-through routing; store-and-forward pays the whole message on every
// hop. t_r prices a word of local rearrangement (zero by default, as in the seeds).
// Five terms beyond the seeds describe one node's shared memory, where the CPUs copy every
// message: half_duplex (a rank's sends and receives do not overlap), lanes (ranks
// time-share that many cores), t_sync (a step's wait for partners that share the cores),
// crossbar (no links to share) and t_fresh (words the sender wrote during the collective
// cross from its cache). All are off by default, which is the seeds' model.

#include <collectives/detail/require.hpp>

#include <cstddef>
#include <limits>

namespace collectives {

/// How a message crosses intermediate nodes.
enum class Routing : unsigned char {
  store_and_forward, ///< t_s + (t_w m + t_h) l for l hops
  cut_through,       ///< t_s + t_h l + t_w m
};

/// How many links a node drives at once.
enum class Ports : unsigned char {
  one, ///< one send and one receive at a time: a step's messages from one rank serialise
  all, ///< every link at once
};

/// The machine parameters: aggregate-initialisable and usable in constant expressions,
/// e.g. constexpr CostModel m{.t_s = 1e-6, .t_w = 1e-9}.
struct CostModel {
  double t_s = 0; ///< start-up time per message
  double t_w = 0; ///< time per word
  double t_h = 0; ///< time per hop
  double t_r = 0; ///< time per word of local rearrangement
  Routing routing = Routing::cut_through;
  Ports ports = Ports::one;
  /// A rank's sends and receives of one step share its copying: their word times add up
  /// instead of overlapping (their start-ups still overlap). Shared memory without a copy
  /// engine, where the rank's own CPU copies each message it sends or receives.
  bool half_duplex = false;
  /// Ranks that can run at once (the cores they share); 0: every rank runs on a core of
  /// its own. With fewer lanes than ranks, a step takes at least the sum of the ranks'
  /// busy times (without t_sync) divided by `lanes`, plus one t_sync (oversubscription:
  /// work waits for a core).
  std::size_t lanes = 0;
  /// Time per step for each rank that sends or receives in it, however many messages: the
  /// wait for its partners to be scheduled when ranks share cores. A rank that posts
  /// several messages in one step waits for them together (t_s is paid per message). With
  /// fewer lanes than ranks the ranks' waits overlap (each rank's turn on a core comes
  /// round once a step, however many of them have messages): the step pays t_sync once,
  /// not once per rank over the lanes.
  double t_sync = 0;
  /// Every message goes straight to its destination on a path of its own (one node's
  /// shared memory, a crossbar): one hop, and no link shared with another message, whatever
  /// the topology's routes. A rank's ports still serialise its own messages (Ports::one).
  bool crossbar = false;
  /// Time per word added to t_w for a message sent from the output or scratch: data the
  /// sender wrote during the collective. Where the receiver copies straight from the
  /// sender's memory (a single-copy shared-memory transport), those words are modified
  /// lines in the sender's cache and cross cores one by one, while a message sent from the
  /// input reads lines both caches may share. Forwarding algorithms (a ring all-reduce's
  /// all-gather half) pay it; exchanges of the inputs (recursive doubling at p = 2) do not.
  double t_fresh = 0;

  /// Throws std::invalid_argument for a negative or non-finite parameter (a compile
  /// error in constant evaluation).
  constexpr const CostModel& validated() const
  {
    check(t_s, "collectives::CostModel: t_s must be finite and non-negative");
    check(t_w, "collectives::CostModel: t_w must be finite and non-negative");
    check(t_h, "collectives::CostModel: t_h must be finite and non-negative");
    check(t_r, "collectives::CostModel: t_r must be finite and non-negative");
    check(t_sync, "collectives::CostModel: t_sync must be finite and non-negative");
    check(t_fresh, "collectives::CostModel: t_fresh must be finite and non-negative");
    return *this;
  }

private:
  static constexpr void check(double x, const char* what)
  {
    detail::require(x >= 0 && x <= std::numeric_limits<double>::max(), what);
  }
};

/// The model a Communicator selects default algorithms with until it is given another
/// (calibrate() measures one): roughly one node's shared memory, 1 us per message and
/// 1 ns per 8-byte word (8 GB/s) with local rearrangement at twice that speed;
/// cut-through, one-port. Its word is 8 bytes.
inline constexpr CostModel default_cost_model{.t_s = 1e-6, .t_w = 1e-9, .t_h = 0, .t_r = 5e-10};

/// Time of one message of `words` words over `hops` hops under `model`, uncontended (a
/// crossbar's message takes one hop).
constexpr double message_time(const CostModel& model, double words, double hops)
{
  if (hops == 0) return 0;
  if (model.crossbar) hops = 1;
  if (model.routing == Routing::store_and_forward) return model.t_s + (model.t_w * words + model.t_h) * hops;
  return model.t_s + model.t_h * hops + model.t_w * words;
}

} // namespace collectives
