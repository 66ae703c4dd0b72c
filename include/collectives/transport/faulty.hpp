#pragma once
// Fault injection: FaultyEndpoint<E> wraps an endpoint of any transport, like
// RecordingEndpoint and TracingEndpoint, and disturbs what the endpoint contract leaves
// open, so that tests can check that results do not depend on it:
//   - delays: a random sleep before each exchange() is forwarded (ranks reach a step at
//     different times: eager and single-copy paths, waiting and sleeping all get exercised);
//   - permutation: the sends and the receives of one exchange() are passed on in a random
//     order. Only the order between DIFFERENT peers changes: the n-th message from a to b
//     matches the n-th receive b posts from a, so requests to (or from) one peer keep their
//     relative order -- anything else would change the step's meaning, not its timing;
//   - split: every piece of a message's gather or scatter list is cut in two at a random
//     element boundary (StepInfo::element_bytes; pieces are left whole when it is unknown
//     or the piece is not a whole number of elements). A message is its byte sequence,
//     however it is cut, and receive-side combining works on whole elements, so this must
//     not change results either. What split does NOT do is forward one step as several
//     exchange() calls: the contract is one exchange() per step posting all its sends and
//     receives together; with single-copy sends (a sender waits for its receiver) two
//     ranks that each sent first and received second would wait for each other forever;
//   - failure: rank fail_rank throws InjectedFault at its exchange number fail_step
//     (counted from 0 over every exchange() of this wrapper), before forwarding anything.
//     On the threads transport the other ranks must then be released with RankFailed
//     naming that rank, and Team::run rethrows the InjectedFault.
// Every optional member of E (the StepInfo and StepWork overloads of exchange(),
// begin_call(), phase(), cost_model(), combines_on_receive) is passed on. Random choices come from the seed and
// the rank, so a run's faults repeat with its seed (thread timing does not).
//
//   threads::Team team(p);
//   team.run([&](threads::Endpoint& ep) {
//     FaultyEndpoint faulty(ep, Faults{.seed = 7, .max_delay_us = 200, .permute = true});
//     Communicator comm{faulty, Ring<>{p}};
//     allreduce(comm, x, r, std::plus<>{});
//   });

#include <collectives/transport/concepts.hpp>
#include <collectives/transport/tracing.hpp> // detail::CombinesOnReceive

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace collectives {

/// What a FaultyEndpoint disturbs (all off by default: a plain forwarder).
struct Faults {
  /// Seeds the random choices (mixed with the rank, so ranks differ).
  std::uint64_t seed = 0;
  /// Each exchange() first sleeps a random 0..max_delay_us microseconds (0: never).
  std::uint32_t max_delay_us = 0;
  /// Pass each exchange()'s sends and receives on in a random order (per-peer order kept).
  bool permute = false;
  /// Cut each piece of every message in two at a random element boundary.
  bool split = false;
  /// The rank that fails (no_rank: none) and at which of its exchanges, from 0.
  std::size_t fail_rank = no_rank;
  std::size_t fail_step = 0;

  static constexpr std::size_t no_rank = std::numeric_limits<std::size_t>::max();
};

/// Thrown by a FaultyEndpoint on Faults::fail_rank at its exchange Faults::fail_step.
class InjectedFault : public std::runtime_error {
public:
  InjectedFault(std::size_t rank, std::size_t step)
    : std::runtime_error("collectives::FaultyEndpoint: injected fault on rank " + std::to_string(rank) +
                         " at its exchange " + std::to_string(step)),
      rank_(rank), step_(step)
  {
  }
  std::size_t rank() const noexcept { return rank_; }
  std::size_t step() const noexcept { return step_; }

private:
  std::size_t rank_, step_;
};

/// Wraps endpoint E of any transport and injects the faults of `Faults` (delays, request
/// order, cut pieces, a failing rank; see the top of this header); satisfies
/// collectives::endpoint itself and passes on every optional member E has. Results of
/// correct collectives must not change under delays, permutation and split.
template <endpoint E>
class FaultyEndpoint : public detail::CombinesOnReceive<E>, public detail::PassesCallChecks<FaultyEndpoint<E>, E> {
public:
  FaultyEndpoint(E& inner, const Faults& faults) : inner_(&inner), faults_(faults)
  {
    std::uint64_t s = faults.seed ^ (0x9e3779b97f4a7c15ull * (static_cast<std::uint64_t>(inner.rank()) + 1));
    state_ = s != 0 ? s : 1;
  }

  std::size_t rank() const { return inner_->rank(); }
  std::size_t size() const { return inner_->size(); }
  E& inner() const { return *inner_; }
  const Faults& faults() const { return faults_; }
  /// Exchanges so far (the step counter fail_step refers to).
  std::size_t exchanges() const { return exchanges_; }

  void exchange(std::span<const SendRequest> sends, std::span<const RecvRequest> recvs)
  {
    disturbed(sends, recvs, nullptr);
  }
  void exchange(std::span<const SendRequest> sends, std::span<const RecvRequest> recvs, const StepInfo& info)
  {
    disturbed(sends, recvs, &info);
  }
  void exchange(std::span<const SendRequest> sends, std::span<const RecvRequest> recvs, const StepInfo& info,
                const StepWork& work)
    requires requires(E& e) { e.exchange(sends, recvs, info, work); }
  {
    disturbed(sends, recvs, &info, &work);
  }
  /// Which steps' StepWork E takes (see transport/concepts.hpp), where E says.
  bool takes_step_work(std::size_t bytes) const
    requires requires(const E& e) { e.takes_step_work(bytes); }
  {
    return inner_->takes_step_work(bytes);
  }
  std::uint64_t begin_call()
    requires requires(E& e) { e.begin_call(); }
  {
    return inner_->begin_call();
  }
  void phase(Phase ph, bool begin, const StepInfo& info)
    requires requires(E& e) { e.phase(ph, begin, info); }
  {
    inner_->phase(ph, begin, info);
  }
  decltype(auto) cost_model() const
    requires requires(const E& e) { e.cost_model(); }
  {
    return inner_->cost_model();
  }

private:
  /// splitmix64: small, fast, good enough for test disturbances.
  std::uint64_t next()
  {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, n] (n + 1 values).
  std::uint64_t upto(std::uint64_t n) { return n == std::numeric_limits<std::uint64_t>::max() ? next() : next() % (n + 1); }

  /// A random interleaving of `in` that keeps the order of the requests of each peer.
  template <class Request>
  void interleave(std::span<const Request> in, std::vector<Request>& out)
  {
    out.assign(in.begin(), in.end());
    const std::size_t n = in.size();
    if (!faults_.permute || n < 2) return;
    std::vector<std::size_t> slot(n);
    std::iota(slot.begin(), slot.end(), std::size_t{0});
    for (std::size_t i = n - 1; i > 0; --i) std::swap(slot[i], slot[upto(i)]);
    // Slot k takes a request of peer in[slot[k]].peer: the next one of that peer, in order.
    std::vector<std::size_t> taken(n, 0); // original requests already placed
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t peer = in[slot[k]].peer;
      std::size_t i = 0;
      while (taken[i] != 0 || in[i].peer != peer) ++i;
      taken[i] = 1;
      out[k] = in[i];
    }
  }

  /// Pieces cut in two at a random multiple of `e` bytes, into `store`; returns the index
  /// range of the request's pieces in store.
  template <class Piece>
  std::pair<std::size_t, std::size_t> cut(std::span<const Piece> pieces, std::size_t e, std::vector<Piece>& store)
  {
    const std::size_t first = store.size();
    for (const Piece& piece : pieces) {
      const std::size_t elements = e == 0 ? 0 : piece.size / e;
      if (!faults_.split || e == 0 || piece.size % e != 0 || elements < 2) {
        store.push_back(piece);
        continue;
      }
      const std::size_t at = (1 + upto(elements - 2)) * e; // 1 .. elements - 1 elements
      store.push_back(Piece{piece.data, at});
      store.push_back(Piece{piece.data + at, piece.size - at});
    }
    return {first, store.size()};
  }

  void disturbed(std::span<const SendRequest> sends, std::span<const RecvRequest> recvs, const StepInfo* info,
                 const StepWork* work = nullptr)
  {
    const std::size_t step = exchanges_++;
    if (rank() == faults_.fail_rank && step == faults_.fail_step) throw InjectedFault(rank(), step);
    if (faults_.max_delay_us != 0) {
      const auto us = upto(faults_.max_delay_us);
      if (us != 0) std::this_thread::sleep_for(std::chrono::microseconds(us));
    }
    std::vector<SendRequest> s;
    std::vector<RecvRequest> r;
    interleave(sends, s);
    interleave(recvs, r);
    const std::size_t e = info != nullptr ? info->element_bytes : 0;
    std::vector<ConstBytes> send_pieces;
    std::vector<MutableBytes> recv_pieces;
    if (faults_.split && e != 0) {
      // Cut into the stores first (they may reallocate), then point the requests at them.
      std::vector<std::pair<std::size_t, std::size_t>> sr, rr;
      for (const auto& q : s) sr.push_back(cut(q.pieces, e, send_pieces));
      for (const auto& q : r) rr.push_back(cut(q.pieces, e, recv_pieces));
      for (std::size_t i = 0; i < s.size(); ++i)
        s[i].pieces = std::span<const ConstBytes>(send_pieces.data() + sr[i].first, sr[i].second - sr[i].first);
      for (std::size_t i = 0; i < r.size(); ++i)
        r[i].pieces = std::span<const MutableBytes>(recv_pieces.data() + rr[i].first, rr[i].second - rr[i].first);
    }
    const std::span<const SendRequest> ss(s);
    const std::span<const RecvRequest> rs(r);
    if constexpr (requires { inner_->exchange(ss, rs, *info, *work); }) {
      if (work != nullptr) return inner_->exchange(ss, rs, *info, *work);
    }
    if (info != nullptr) detail::exchange_step(*inner_, ss, rs, *info);
    else inner_->exchange(ss, rs);
  }

  E* inner_;
  Faults faults_;
  std::uint64_t state_ = 1;
  std::size_t exchanges_ = 0;
};

template <endpoint E>
FaultyEndpoint(E&, const Faults&) -> FaultyEndpoint<E>;

} // namespace collectives
