#pragma once
// What a transport gives each rank: an endpoint that knows its rank and the team size and
// moves bytes. One primitive, exchange(sends, recvs), posts a step's messages together
// (all-port algorithms post several) and returns when this rank's sends have been taken
// and its receives have arrived. A message is a gather list on the sender and a scatter
// list on the receiver; their total byte counts must agree.
//
// Optional capabilities, used by the executor when an endpoint has them:
//  - exchange(sends, recvs, const StepInfo&): the same, told which call and step it
//    serves (transports that keep calls apart, report hangs, or trace);
//  - std::uint64_t begin_call(): numbers the collective calls made on this endpoint
//    (every rank calls it once per collective, so the numbers agree across ranks);
//  - phase(Phase, bool begin, const StepInfo&): marks the executor's own work in a step
//    (tracing);
//  - static constexpr bool combines_on_receive = true: the endpoint honours
//    RecvRequest::combine, combining an incoming message into place straight from the
//    sender's memory instead of copying it (each byte read once per reduction step);
//  - static constexpr bool combines_into_sends = true (with combines_on_receive): the
//    endpoint also takes combining receives into memory its sends of the same exchange
//    read (an in-place reduction's step), and keeps what each such send delivers as it
//    was when posted (the threads transport copies the message aside while the send is
//    open). Without it the executor stages those receives and combines them after the
//    exchange, so a transport that combines as messages arrive is never handed one;
//  - CostModel cost_model() const: the model a communicator over the endpoint starts with
//    (what its default calls select by; the default model otherwise);
//  - exchange(sends, recvs, const StepInfo&, const StepWork&): the same, and runs the
//    step's work once before it returns, while it would otherwise wait (a rank that only
//    sends copies its own block while its receiver takes the message);
//  - bool takes_step_work(std::size_t bytes) const: whether that overload should be
//    given the work of a step that sends and receives `bytes` in all (absent: every
//    step's); the executor runs the others' work itself after the exchange;
//  - bool checks_calls() const and check_call(const StepInfo&): when checks_calls() holds,
//    the executor calls check_call once per numbered collective call on every rank, before
//    the call's first step, with the call's collective, algorithm, root, steps, element
//    count and size and shift distance; the endpoint may compare them across ranks and
//    throw CallMismatch (the MPI transport's opt-in consistency check).

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace collectives {

/// A piece of a message to send.
struct ConstBytes {
  const std::byte* data = nullptr;
  std::size_t size = 0;
};

/// A piece of memory a message lands in.
struct MutableBytes {
  std::byte* data = nullptr;
  std::size_t size = 0;
};

/// How a receive combines instead of copying: fn(ctx, dst, src, bytes) sets the `bytes`
/// bytes at dst to their combination with the incoming bytes at src (a whole number of
/// elements; the pieces of both sides are cut at element boundaries). The combination
/// may also read memory of the receiving rank that the transport does not know of (the
/// executor's fused receive: another buffer's matching bytes), never written during the
/// exchange. A transport combines each byte of the message exactly once, before the
/// exchange returns.
///
/// `grain`: 0, or the element size when fn may run on two threads at once over disjoint
/// whole elements of one message (a transport may then share a large receive between the
/// receiving rank and its waiting sender, cutting it at multiples of grain).
struct ReceiveCombine {
  void (*fn)(const void* ctx, std::byte* dst, const std::byte* src, std::size_t bytes) = nullptr;
  const void* ctx = nullptr;
  std::size_t grain = 0;
};

/// One outgoing message: the pieces, in order, go to rank `peer`.
struct SendRequest {
  std::size_t peer = 0;
  std::span<const ConstBytes> pieces;
};

/// One incoming message from rank `peer`, scattered over the pieces in order; combined
/// into them instead when `combine` is set (only for endpoints that declare
/// combines_on_receive). A copying receive never lands in memory a send of the same
/// exchange reads; a combining one may only for endpoints that declare
/// combines_into_sends.
struct RecvRequest {
  std::size_t peer = 0;
  std::span<const MutableBytes> pieces;
  const ReceiveCombine* combine = nullptr;
};

/// Which collective call and step an exchange serves. The names must be of static storage
/// (the executor passes string literals): transports keep them to report mismatches later.
struct StepInfo {
  std::string_view collective{}; ///< "alltoall", ...
  std::string_view algorithm{};  ///< "pairwise", ...
  std::uint64_t call = 0;        ///< the call's number on this endpoint (begin_call), from 1
  std::size_t step = 0;          ///< this step, from 0
  std::size_t steps = 0;         ///< the schedule's number of steps
  std::size_t element_bytes = 0; ///< sizeof the call's element type (0: unknown), for messages
  std::size_t root = 0;          ///< the call's root (rooted collectives; 0 for the others)
  /// The call's elements as every rank gives them: the vector (broadcast, reduce,
  /// allreduce, scan) or the block per rank (the others); 0 where they may differ
  /// (alltoallv) or there are none (barrier).
  std::size_t count = 0;
  std::ptrdiff_t distance = 0;   ///< shift: the distance q modulo p, in [0, p) (0 for the others)
};

/// Work of a step that touches no memory of the step's messages (the executor's local
/// copies that need nothing this step receives): an endpoint that takes it runs fn(ctx)
/// exactly once before its exchange returns, after posting its sends, so that the work
/// overlaps the wait. fn may throw; the exchange then ends as for any error.
struct StepWork {
  void (*fn)(void* ctx) = nullptr;
  void* ctx = nullptr;
  void operator()() const { fn(ctx); }
};

/// The parts of a step the executor marks for tracing: building the step's requests
/// (post), the exchange itself (wait), local copies, and combining received or local data.
enum class Phase : std::uint8_t { post, wait, copy, combine };

/// An endpoint of a transport. exchange() may be called with any number of sends and
/// receives; the n-th message from a to b in one call matches the n-th receive b posts
/// from a in its matching call. Errors (a failed peer, a size mismatch) are exceptions.
template <class E>
concept endpoint = requires(E& e, std::span<const SendRequest> s, std::span<const RecvRequest> r) {
  { e.rank() } -> std::convertible_to<std::size_t>;
  { e.size() } -> std::convertible_to<std::size_t>;
  e.exchange(s, r);
};

/// True when endpoint E honours RecvRequest::combine.
template <class E>
inline constexpr bool combines_on_receive_v = [] {
  if constexpr (requires { E::combines_on_receive; }) return bool{E::combines_on_receive};
  else return false;
}();

/// True when endpoint E (combining on receipt) also takes combining receives into memory
/// its sends of the same exchange read.
template <class E>
inline constexpr bool combines_into_sends_v = [] {
  if constexpr (requires { E::combines_into_sends; }) return combines_on_receive_v<E> && bool{E::combines_into_sends};
  else return false;
}();

/// Total bytes of a list of pieces.
template <class Pieces>
constexpr std::size_t total_bytes(const Pieces& pieces)
{
  std::size_t n = 0;
  for (const auto& piece : pieces) n += piece.size;
  return n;
}

namespace detail {

/// exchange() with the step's identity where the endpoint takes it.
template <endpoint E>
void exchange_step(E& ep, std::span<const SendRequest> s, std::span<const RecvRequest> r, const StepInfo& info)
{
  if constexpr (requires { ep.exchange(s, r, info); }) ep.exchange(s, r, info);
  else ep.exchange(s, r);
}

/// For an endpoint W that wraps another, E (W::inner()): E's cross-rank check of each
/// call (checks_calls, check_call), passed on where E has it.
template <class W, class E>
struct PassesCallChecks {
  bool checks_calls() const
    requires requires(const E& e) { e.checks_calls(); }
  {
    return static_cast<const W&>(*this).inner().checks_calls();
  }
  void check_call(const StepInfo& info)
    requires requires(E& e) { e.check_call(info); }
  {
    static_cast<W&>(*this).inner().check_call(info);
  }
};

/// Marks a phase where the endpoint traces them.
template <endpoint E>
void mark_phase(E& ep, Phase ph, bool begin, const StepInfo& info)
{
  if constexpr (requires { ep.phase(ph, begin, info); }) ep.phase(ph, begin, info);
}

} // namespace detail

} // namespace collectives
