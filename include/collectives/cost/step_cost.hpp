#pragma once
// The cost of one step from its messages (schedule_cost.hpp states the rules). Every way
// the estimate reads a step (rank by rank, or class by class when the schedule states its
// symmetry, symmetric_cost.hpp) ends in the same arithmetic, written here once:
//
//  - a message of b blocks over h hops whose worst link carries w messages (or sending
//    ranks, one-port) costs t_s + t_h h + t_w m U, with U = b w (cut-through) or b w h
//    (store-and-forward) "word units";
//  - one-port, a rank's sends add up, and so do its receives: n messages with hops H and
//    units U summed take n t_s + t_h H + t_w m U. The sums are of integers, so a rank's
//    time does not depend on the order its messages are met in, and a rank that is another
//    translated has bit for bit the same time (which is what lets the symmetric paths give
//    exactly the numbers of the rank-by-rank walk);
//  - all-port, a rank's sends take as long as the slowest, and so do its receives;
//  - a rank's step time is the larger of its send and receive times, plus t_r m per block
//    of local work; the step's time is the largest over its ranks;
//  - beyond the seeds (model.hpp): under half_duplex a rank's busy time is the larger of
//    its send and receive start-ups (t_s and t_h terms) plus the word times of both; a
//    rank with a message to send or receive adds t_sync once; with lanes < p, the step
//    takes at least t_sync (once, if any rank has a message) plus the sum of its ranks'
//    times without their t_sync divided by lanes; under crossbar every message
//    takes one hop and shares no link; a message sent from the output or scratch adds
//    t_fresh m per word unit (at both ends, as its t_w term).

#include <collectives/cost/model.hpp>
#include <collectives/cost/routes.hpp>
#include <collectives/detail/require.hpp>
#include <collectives/detail/dependent.hpp>
#include <collectives/detail/recycled.hpp>
#include <collectives/detail/zeroed_array.hpp>
#include <collectives/topology/concepts.hpp>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace collectives::detail {

/// Word units of one message: its t_w term is t_w m units.
constexpr std::size_t message_units(Routing routing, std::size_t blocks, std::size_t worst, std::size_t hops)
{
  return routing == Routing::store_and_forward ? blocks * worst * hops : blocks * worst;
}

/// The word time of `units` word units of which `fresh` were written by their sender
/// during the collective: t_w m units + t_fresh m fresh.
constexpr double words_time(const CostModel& model, double m, std::size_t units, std::size_t fresh)
{
  const double t = model.t_w * (m * static_cast<double>(units));
  return fresh == 0 ? t : t + model.t_fresh * (m * static_cast<double>(fresh));
}

/// n messages with hops and word units summed: n t_s + t_h hops + t_w m units (+ t_fresh m
/// fresh).
constexpr double sum_time(const CostModel& model, double m, std::size_t n, std::size_t hops, std::size_t units,
                          std::size_t fresh = 0)
{
  return static_cast<double>(n) * model.t_s + model.t_h * static_cast<double>(hops) +
         words_time(model, m, units, fresh);
}

/// What a rank's sends (or receives) of one step amount to: one-port the sums, all-port
/// the slowest message. Messages of no hop (to itself) cost nothing.
struct PortBusy {
  std::size_t n = 0;
  std::size_t hops = 0;
  std::size_t units = 0;
  std::size_t fresh = 0; // units of messages sent from the output or scratch (t_fresh)
  double most = 0;
  double most_words = 0; // all-port: the slowest message's word time (half_duplex)

  constexpr void add(const CostModel& model, double m, std::size_t units_of_msg, std::size_t hops_of_msg,
                     std::size_t fresh_of_msg = 0)
  {
    if (hops_of_msg == 0) return;
    ++n; // (all-port: only whether there is one, for t_sync)
    if (model.ports == Ports::one) {
      hops += hops_of_msg;
      units += units_of_msg;
      fresh += fresh_of_msg;
    } else {
      most = std::max(most, sum_time(model, m, 1, hops_of_msg, units_of_msg, fresh_of_msg));
      if (model.half_duplex) most_words = std::max(most_words, words_time(model, m, units_of_msg, fresh_of_msg));
    }
  }
  constexpr double time(const CostModel& model, double m) const
  {
    if (model.ports == Ports::one) return n == 0 ? 0.0 : sum_time(model, m, n, hops, units, fresh);
    return most;
  }
  /// The part of time() that is word time (the rest overlaps under half_duplex).
  constexpr double word_time(const CostModel& model, double m) const
  {
    if (model.ports == Ports::one) return words_time(model, m, units, fresh);
    return most_words;
  }
};

/// A message's share of a lower bound of its rank's time (the bounds select() sums before
/// working a step out: schedule_cost.hpp): its hops, and a load of 1.
constexpr void add_unloaded(PortBusy& busy, const CostModel& model, double m, std::size_t blocks, std::size_t hops)
{
  busy.add(model, m, message_units(model.routing, blocks, 1, hops), hops);
}

/// A rank's work from its sends and receives: the slower of the two, or under half_duplex
/// the slower start-ups plus both word times. That is the larger of the sends' time plus
/// the receives' word time and the other way round, which is how it is added up: a
/// start-up taken as time - word time would be NaN for an infinite word time.
constexpr double port_work_time(const CostModel& model, double m, const PortBusy& send, const PortBusy& recv)
{
  const double ts = send.time(model, m), tr = recv.time(model, m);
  return model.half_duplex ? std::max(ts + recv.word_time(model, m), tr + send.word_time(model, m)) : std::max(ts, tr);
}

/// A rank's work plus t_sync when it has any message: its busy time.
constexpr double with_wait(const CostModel& model, double work, const PortBusy& send, const PortBusy& recv)
{
  return model.t_sync != 0 && (send.n != 0 || recv.n != 0) ? work + model.t_sync : work;
}

/// A rank's busy time: its work (port_work_time) plus t_sync when it has any message.
constexpr double port_busy_time(const CostModel& model, double m, const PortBusy& send, const PortBusy& recv)
{
  return with_wait(model, port_work_time(model, m, send, recv), send, recv);
}

/// A rank's step time: its busy time plus t_r m per block of local work (none added when
/// there is none, so a rank without local work costs exactly its busy time).
constexpr double rank_step_time(const CostModel& model, double m, double busy, std::size_t local_blocks)
{
  return local_blocks == 0 ? busy : busy + model.t_r * static_cast<double>(local_blocks) * m;
}

/// What one step adds to the report.
struct StepTally {
  double time = 0;             ///< the slowest rank's time
  std::size_t messages = 0;    ///< messages sent (to itself included)
  std::size_t blocks = 0;      ///< blocks sent
  std::size_t congestion = 0;  ///< most messages (one-port: sending ranks) on one link; 0 when none
  friend constexpr bool operator==(const StepTally&, const StepTally&) = default;
};

/// One message of a step, as MessageStep keeps it.
struct CostMessage {
  std::size_t from = 0;
  std::size_t to = 0;
  std::size_t blocks = 0;
  std::size_t hops = 0;
  std::size_t seq = 0; // the number of its source among the step's sources, in order
  bool fresh = false;   // sent from the output or scratch (t_fresh)
};

/// A step given message by message: every source once (source(r), then its messages),
/// local work by rank; finish() routes the messages on the topology, finds the loads and
/// returns the step's tally. Memory: O(p + links), kept from step to step.
template <class Topo>
class MessageStep {
public:
  constexpr MessageStep(const Topo& topo, const CostModel& model, double m)
    : model_(model), m_(m), p_(topo.size()), load_(topo, model.ports == Ports::one)
  {
  }

  /// Whether the model prices messages sent from written data (t_fresh): the visitor
  /// then tells message() which are.
  constexpr bool prices_fresh() const { return model_.t_fresh != 0; }

  /// Starts a step.
  constexpr void begin()
  {
    // Allocated at the first step (an estimate whose steps are all symmetric needs none).
    if (mark_.empty()) {
      send_.zero(p_);
      recv_.zero(p_);
      local_.zero(p_);
      mark_.zero(p_);
      // (No regrowth: constant evaluation counts every copy. The vectors through types that
      // depend on Topo: detail/dependent.hpp.)
      deferred<Topo>(touched_).reserve(p_);
      deferred<Topo>(messages_).reserve(p_);
    }
    ++stamp_;
    messages_.clear();
    touched_.clear();
    next_seq_ = 0;
    if (!model_.crossbar) load_.next_step(); // a crossbar's messages take no links (finish)
  }
  /// The messages that follow are rank r's (each rank at most once per step).
  constexpr void source(std::size_t r)
  {
    from_ = r;
    seq_ = next_seq_++;
    touch(r);
  }
  /// A message of `blocks` blocks from the current source to rank `to`; `fresh`: sent
  /// from data the source wrote during the collective (t_fresh).
  constexpr void message(std::size_t to, std::size_t blocks, bool fresh = false)
  {
    expect(to < p_, "collectives::estimate: a schedule sends to a rank out of range");
    deferred<Topo>(messages_).push_back({from_, to, blocks, 0, seq_, fresh});
    touch(to);
  }
  /// `blocks` blocks of local work (locals and combining receives) on rank r.
  constexpr void local(std::size_t r, std::size_t blocks)
  {
    if (blocks == 0) return;
    touch(r);
    local_[r] += blocks;
  }

  /// Routes, loads and times of the step's messages.
  constexpr StepTally finish()
  {
    StepTally tally;
    bool contended = false;
    if (model_.crossbar) {
      // One hop each, on a path of its own.
      for (auto& msg : messages_) {
        msg.hops = msg.from != msg.to ? 1 : 0;
        tally.congestion = std::max(tally.congestion, msg.hops);
      }
    } else {
      for (auto& msg : messages_) msg.hops = load_.add_route(msg.from, msg.to, msg.seq);
      load_.seal(messages_);
      // The most loaded link is on some route, so it is the step's congestion; and with no
      // link carrying two messages, every route's worst load is 1: no second walk.
      tally.congestion = load_.most();
      contended = load_.most() > 1;
    }
    for (std::size_t i = 0; i < messages_.size(); ++i) {
      const CostMessage& msg = messages_[i];
      const std::size_t worst = contended ? load_.worst(i, msg.from, msg.to) : 1;
      const std::size_t units = message_units(model_.routing, msg.blocks, worst, msg.hops);
      const std::size_t fresh = msg.fresh ? units : 0;
      send_[msg.from].add(model_, m_, units, msg.hops, fresh);
      recv_[msg.to].add(model_, m_, units, msg.hops, fresh);
      tally.blocks += msg.blocks;
    }
    tally.messages = messages_.size();
    const bool shared = model_.lanes != 0 && model_.lanes < p_;
    double work = 0; // the ranks' times without their waits (t_sync)
    bool waits = false;
    for (const std::size_t r : touched_) {
      const double own = port_work_time(model_, m_, send_[r], recv_[r]);
      const double t = rank_step_time(model_, m_, with_wait(model_, own, send_[r], recv_[r]), local_[r]);
      tally.time = std::max(tally.time, t);
      if (shared) {
        work += rank_step_time(model_, m_, own, local_[r]);
        waits = waits || send_[r].n != 0 || recv_[r].n != 0;
      }
      send_[r] = PortBusy{};
      recv_[r] = PortBusy{};
      local_[r] = 0;
    }
    // Sharing cores, the ranks' work queues for the lanes while their waits overlap: one
    // t_sync for the step (model.hpp).
    if (shared)
      tally.time = std::max(tally.time, (waits ? model_.t_sync : 0) + work / static_cast<double>(model_.lanes));
    return tally;
  }

private:
  constexpr void touch(std::size_t r)
  {
    if (mark_[r] == stamp_) return;
    mark_[r] = stamp_;
    deferred<Topo>(touched_).push_back(r);
  }

  CostModel model_;
  double m_;
  std::size_t p_;
  LinkLoad<Topo> load_;
  RecycledVector<CostMessage> messages_;
  ZeroedArray<PortBusy> send_, recv_; // zero between steps
  ZeroedArray<std::size_t> local_;    // zero between steps
  ZeroedArray<std::size_t> mark_;     // the stamp of the step that last touched the rank
  RecycledVector<std::size_t> touched_;  // ranks with messages or local work in this step
  std::size_t stamp_ = 0;
  std::size_t from_ = 0;
  std::size_t seq_ = 0, next_seq_ = 0;
};

} // namespace collectives::detail
