#pragma once
// A transport that records: wraps any endpoint and logs every message of every exchange
// (rank, step, peer, bytes, direction) before passing it on. Tests compare the log with
// what the schedule promises; traces will read it too.

#include <collectives/transport/concepts.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace collectives {

/// One logged message. `step` counts this endpoint's exchange calls from 0.
struct MessageRecord {
  std::size_t rank = 0;
  std::size_t step = 0;
  std::size_t peer = 0;
  std::size_t bytes = 0;
  bool outgoing = true;
  friend constexpr bool operator==(const MessageRecord&, const MessageRecord&) = default;
};

/// Wraps endpoint E; satisfies collectives::endpoint itself, and passes on what E offers
/// beyond it (call numbers, step identities, combining on receipt). Not E's cost model: a
/// communicator over it picks with the default model unless told otherwise
/// (set_cost_model), which the tests that compare a default call's log with select()'s
/// schedule rely on. Notes the algorithm of the latest step (algorithm()): which one a
/// call without an algorithm ran.
template <endpoint E>
class RecordingEndpoint : public detail::PassesCallChecks<RecordingEndpoint<E>, E> {
public:
  static constexpr bool combines_on_receive = combines_on_receive_v<E>;
  static constexpr bool combines_into_sends = combines_into_sends_v<E>;

  explicit RecordingEndpoint(E& inner) : inner_(&inner) {}
  /// The endpoint it records.
  E& inner() const { return *inner_; }
  std::size_t rank() const { return inner_->rank(); }
  std::size_t size() const { return inner_->size(); }

  void exchange(std::span<const SendRequest> sends, std::span<const RecvRequest> recvs)
  {
    note(sends, recvs);
    inner_->exchange(sends, recvs);
  }
  void exchange(std::span<const SendRequest> sends, std::span<const RecvRequest> recvs, const StepInfo& info)
  {
    note(sends, recvs);
    algorithm_ = info.algorithm;
    detail::exchange_step(*inner_, sends, recvs, info);
  }
  /// The same, running the step's work while it waits, where E does (StepWork).
  void exchange(std::span<const SendRequest> sends, std::span<const RecvRequest> recvs, const StepInfo& info,
                const StepWork& work)
    requires requires(E& e) { e.exchange(sends, recvs, info, work); }
  {
    note(sends, recvs);
    algorithm_ = info.algorithm;
    inner_->exchange(sends, recvs, info, work);
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

  /// Every message so far, in order.
  const std::vector<MessageRecord>& log() const { return log_; }
  /// Number of exchange calls so far.
  std::size_t steps() const { return step_; }
  /// The algorithm of the latest step that named one (StepInfo::algorithm: the library's
  /// names are static strings); empty before any.
  std::string_view algorithm() const { return algorithm_; }
  void clear()
  {
    log_.clear();
    step_ = 0;
    algorithm_ = {};
  }

private:
  void note(std::span<const SendRequest> sends, std::span<const RecvRequest> recvs)
  {
    for (const auto& s : sends) log_.push_back({rank(), step_, s.peer, total_bytes(s.pieces), true});
    for (const auto& r : recvs) log_.push_back({rank(), step_, r.peer, total_bytes(r.pieces), false});
    ++step_;
  }

  E* inner_;
  std::vector<MessageRecord> log_;
  std::size_t step_ = 0;
  std::string_view algorithm_{};
};

} // namespace collectives
