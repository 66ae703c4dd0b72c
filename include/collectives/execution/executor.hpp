#pragma once
// The one executor: runs any schedule on any endpoint. Per step it asks the schedule what
// this rank does, turns block patterns into byte pieces (merging blocks adjacent in
// memory), posts the step's messages together, combines what needs combining and runs
// the step's local ops. The step's first local copies that touch no memory of its
// messages (a scan's or a scatter's own block) go to an endpoint that takes a StepWork,
// which runs them while it waits: a rank that only sends then copies while its receiver
// takes the message, instead of after.
//
// Its core moves bytes and is compiled once for every endpoint (run_steps, in
// impl/executor.ipp): the schedule is reached through a function pointer (ScheduleRef),
// the endpoint through function pointers (EndpointRef), and the element type and operator
// only through a Reducer, whose typed combine kernel is the one piece compiled per T and Op.
// Every buffer it needs between calls (the step's request lists, scratch space, staging
// for combining) lives in an ExecContext that a Communicator keeps, so a warmed-up rank
// allocates nothing per call or per step.
//
// Plans: what a call does step by step (its operations, byte pieces and requests, which
// local ops run on receipt, where combining receives are staged) is made once into a
// detail::Plan. The context keeps the latest few, keyed by the schedule's value, the
// buffers' addresses and layouts, the element kind and the transport; a call that matches
// one (a collective in a loop over the same buffers) runs it as is, without visiting the
// schedule: at 8 bytes that is most of the library's own work per call. Only the
// library's front ends ask for plans to be kept (their schedules are values); a user's
// schedule run through execute() is planned afresh every call.

#include <collectives/algorithm/operators.hpp>
#include <collectives/detail/config.hpp>
#include <collectives/detail/vector_isa.hpp>
#include <collectives/execution/layout.hpp>
#include <collectives/execution/schedule_ref.hpp>
#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/transport/concepts.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace collectives {

class ExecContext;

/// The operator used when a schedule never combines.
struct NoCombine {
  template <class T>
  constexpr T operator()(const T&, const T& b) const { return b; }
};

namespace detail {

/// The typed part of a call: how to combine n elements at dst with n at src (fn), and n
/// at a with n at b into out (fn3: out = a op b; out overlaps neither). `concurrent`: the
/// operator may run on two threads at once over disjoint elements (concurrent_operator_v).
struct Reducer {
  void (*fn)(const void* op, std::byte* dst, const std::byte* src, std::size_t n, Combine how) = nullptr;
  const void* op = nullptr;
  std::size_t elem = 1;
  void (*fn3)(const void* op, std::byte* out, const std::byte* a, const std::byte* b, std::size_t n) = nullptr;
  bool concurrent = false;
};

/// dst[i] = src[i] op dst[i] (Left) or dst[i] op src[i]: the combine kernels' element loop,
/// in blocks of combine_block<T> elements and then the rest (detail/vector_isa.hpp: why;
/// the element-wise results are the same either way).
template <bool Left, class T, class Op>
void combine_elements(T* __restrict dst, const T* __restrict src, std::size_t n, const Op& op)
{
  constexpr std::size_t b = combine_block<T>;
  std::size_t i = 0;
  for (; i + b <= n; i += b) {
    T* __restrict d = dst + i;
    const T* __restrict s = src + i;
#pragma GCC unroll 16
    for (std::size_t k = 0; k < b; ++k) d[k] = Left ? op(s[k], d[k]) : op(d[k], s[k]);
  }
  for (; i < n; ++i) dst[i] = Left ? op(src[i], dst[i]) : op(dst[i], src[i]);
}

/// out[i] = a[i] op b[i].
template <class T, class Op>
void combine_elements3(T* __restrict out, const T* __restrict a, const T* __restrict b, std::size_t n, const Op& op)
{
  constexpr std::size_t blk = combine_block<T>;
  std::size_t i = 0;
  for (; i + blk <= n; i += blk) {
    T* __restrict o = out + i;
    const T* __restrict x = a + i;
    const T* __restrict y = b + i;
#pragma GCC unroll 16
    for (std::size_t k = 0; k < blk; ++k) o[k] = op(x[k], y[k]);
  }
  for (; i < n; ++i) out[i] = op(a[i], b[i]);
}

#if COLLECTIVES_DETAIL_AVX2_DISPATCH
/// combine_elements and combine_elements3 compiled for AVX2 (detail/vector_isa.hpp).
template <bool Left, class T, class Op>
COLLECTIVES_DETAIL_AVX2_FUNCTION void combine_elements_avx2(T* __restrict dst, const T* __restrict src, std::size_t n,
                                                            const Op& op)
{
  combine_elements<Left>(dst, src, n, op);
}
template <class T, class Op>
COLLECTIVES_DETAIL_AVX2_FUNCTION void combine_elements3_avx2(T* __restrict out, const T* __restrict a,
                                                             const T* __restrict b, std::size_t n, const Op& op)
{
  combine_elements3(out, a, b, n, op);
}
#endif

/// dst[i] = src[i] op dst[i] (Left) or dst[i] op src[i], with the widest vectors the CPU
/// runs (detail/vector_isa.hpp) from one block on (below it the loop is the element loop,
/// inlined here: the call to the AVX2 copy cost about 1.7 ns at one element).
template <bool Left, class T, class Op>
void combine_elements_dispatched(T* __restrict dst, const T* __restrict src, std::size_t n, const Op& op)
{
#if COLLECTIVES_DETAIL_AVX2_DISPATCH
  if (n >= combine_block<T> && combines_with_avx2()) return combine_elements_avx2<Left>(dst, src, n, op);
#endif
  combine_elements<Left>(dst, src, n, op);
}

/// dst[i] = src[i] op dst[i] (left) or dst[i] op src[i] (right). With an element-wise
/// operator, one loop per mode, so each vectorises; with an array operator
/// (array_operator: op.apply(in, inout, n) sets inout[i] = in[i] op inout[i], MPI's
/// convention), one call per block, and for `right` through a small buffer. dst and src do
/// not overlap.
template <class T, class Op>
void combine_kernel(const void* op_ptr, std::byte* dst_bytes, const std::byte* src_bytes, std::size_t n, Combine how)
{
  if constexpr (std::is_same_v<Op, NoCombine>) {
    // a op b is b: dst op src copies, src op dst leaves dst. (No element loops, and no AVX2
    // copies of them, for every T a collective that never combines moves.)
    if (how != Combine::left && n != 0) std::memcpy(dst_bytes, src_bytes, n * sizeof(T));
  } else {
    const Op& op = *static_cast<const Op*>(op_ptr);
    T* __restrict dst = reinterpret_cast<T*>(dst_bytes);
    const T* __restrict src = reinterpret_cast<const T*>(src_bytes);
    if (how == Combine::copy) {
      if (n != 0) std::memcpy(dst_bytes, src_bytes, n * sizeof(T));
    } else if constexpr (array_operator<Op, T>) {
      if (how == Combine::left) {
        op.apply(src, dst, n);
        return;
      }
      // dst op src: the array form puts its left operand first and writes its right one.
      constexpr std::size_t chunk = sizeof(T) >= 4096 ? 1 : 4096 / sizeof(T);
      alignas(alignof(T) > 64 ? alignof(T) : 64) std::byte buffer[chunk * sizeof(T)];
      T* tmp = reinterpret_cast<T*>(buffer);
      for (std::size_t i = 0; i < n; i += chunk) {
        const std::size_t k = n - i < chunk ? n - i : chunk;
        std::memcpy(static_cast<void*>(tmp), src + i, k * sizeof(T));
        op.apply(dst + i, tmp, k);
        std::memcpy(static_cast<void*>(dst + i), tmp, k * sizeof(T));
      }
    } else if (how == Combine::left) {
      combine_elements_dispatched<true>(dst, src, n, op);
    } else {
      combine_elements_dispatched<false>(dst, src, n, op);
    }
  }
}

/// out[i] = a[i] op b[i], in one pass (an array operator: out = b, then a op out). out
/// overlaps neither a nor b.
template <class T, class Op>
void combine3_kernel(const void* op_ptr, std::byte* out_bytes, const std::byte* a_bytes, const std::byte* b_bytes,
                     std::size_t n)
{
  const Op& op = *static_cast<const Op*>(op_ptr);
  T* __restrict out = reinterpret_cast<T*>(out_bytes);
  const T* __restrict a = reinterpret_cast<const T*>(a_bytes);
  const T* __restrict b = reinterpret_cast<const T*>(b_bytes);
  if constexpr (array_operator<Op, T>) {
    if (n == 0) return;
    std::memcpy(static_cast<void*>(out), b, n * sizeof(T));
    op.apply(a, out, n);
  } else {
#if COLLECTIVES_DETAIL_AVX2_DISPATCH
    if (n >= combine_block<T> && combines_with_avx2()) return combine_elements3_avx2(out, a, b, n, op);
#endif
    combine_elements3(out, a, b, n, op);
  }
}

template <class T, class Op>
Reducer make_reducer(const Op& op)
{
  // A call that never combines has nothing to fuse: no fn3, so its steps skip the search.
  if constexpr (std::is_same_v<Op, NoCombine>) return {&combine_kernel<T, Op>, &op, sizeof(T), nullptr, true};
  else return {&combine_kernel<T, Op>, &op, sizeof(T), &combine3_kernel<T, Op>, concurrent_operator_v<Op>};
}

/// X(T, Op) for the element types and operators whose kernels the compiled mode
/// (COLLECTIVES_SEPARATE_COMPILATION) compiles once, in the compiled library
/// (separate_compilation.hpp): every other translation unit only declares them, instead of
/// compiling each kernel and its AVX2 copy (detail/vector_isa.hpp) itself. Others are
/// compiled where they are used, as header-only.
#define COLLECTIVES_LIBRARY_KERNEL_OPS(X, T)                                                              \
  X(T, std::plus<>) X(T, std::plus<T>) X(T, std::multiplies<>) X(T, minimum) X(T, maximum)
#define COLLECTIVES_LIBRARY_KERNELS(X)                                                                    \
  COLLECTIVES_LIBRARY_KERNEL_OPS(X, double)                                                               \
  COLLECTIVES_LIBRARY_KERNEL_OPS(X, float)                                                                \
  COLLECTIVES_LIBRARY_KERNEL_OPS(X, int)                                                                  \
  COLLECTIVES_LIBRARY_KERNEL_OPS(X, long)                                                                 \
  COLLECTIVES_LIBRARY_KERNEL_OPS(X, long long)                                                            \
  COLLECTIVES_LIBRARY_KERNEL_OPS(X, unsigned)                                                             \
  COLLECTIVES_LIBRARY_KERNEL_OPS(X, unsigned long)

#if defined(COLLECTIVES_SEPARATE_COMPILATION)
#define COLLECTIVES_DETAIL_EXTERN_KERNELS(T, Op)                                                          \
  extern template void combine_kernel<T, Op>(const void*, std::byte*, const std::byte*, std::size_t, Combine); \
  extern template void combine3_kernel<T, Op>(const void*, std::byte*, const std::byte*, const std::byte*,    \
                                              std::size_t);
COLLECTIVES_LIBRARY_KERNELS(COLLECTIVES_DETAIL_EXTERN_KERNELS)
#undef COLLECTIVES_DETAIL_EXTERN_KERNELS
#endif

/// One buffer of a call: its first byte and its block layout (in elements).
struct ByteBuffer {
  std::byte* data = nullptr;
  BlockLayout layout{};
};

/// Growable memory aligned for any element type, kept between calls.
class AlignedRegion {
public:
  AlignedRegion() = default;
  AlignedRegion(const AlignedRegion&) : AlignedRegion() {} // a copy starts empty
  AlignedRegion& operator=(const AlignedRegion&) { return *this; }
  ~AlignedRegion() { release(); }

  /// At least `bytes` bytes (their content is not kept when it grows).
  std::byte* get(std::size_t bytes)
  {
    if (bytes > capacity_) {
      release();
      const std::size_t want = bytes < 2 * capacity_ ? 2 * capacity_ : bytes;
      data_ = static_cast<std::byte*>(::operator new(want, std::align_val_t{alignment}));
      capacity_ = want;
    }
    return data_;
  }
  std::size_t capacity() const { return capacity_; }
  /// Where get() would return for any size it holds.
  std::byte* data() const { return data_; }

private:
  static constexpr std::size_t alignment = 64;
  void release()
  {
    if (data_ != nullptr) ::operator delete(data_, std::align_val_t{alignment});
    data_ = nullptr;
    capacity_ = 0;
  }
  std::byte* data_ = nullptr;
  std::size_t capacity_ = 0;
};

/// A copying receive fused with the step's local op that combines another buffer into the
/// received blocks: the transport, combining on receipt, writes `other op incoming`
/// (Combine::left) or `incoming op other` (right) straight into the destination, one pass
/// over each byte instead of a copy and then a combine. The destination's blocks and
/// `other`'s are laid out alike, so a byte of the destination at dst_base + k pairs with the
/// one at other_base + k. `red` points to where the running call's Reducer is
/// found (a Plan's `red`, set by every call that runs the plan); null: no fused op.
struct FusedCombine {
  const Reducer* const* red = nullptr;
  Combine how = Combine::copy;
  const std::byte* dst_base = nullptr;
  const std::byte* other_base = nullptr;
};

/// The context of a combining receive's ReceiveCombine (`red` as in FusedCombine).
struct CombineContext {
  const Reducer* const* red;
  Combine how;
};

/// One step of a Plan: its entries in the plan's lists.
struct PlanStep {
  std::size_t send_first = 0, sends = 0;   // ops and requests
  std::size_t recv_first = 0, recvs = 0;   // ops, requests, fusions
  std::size_t local_first = 0, locals = 0; // ops and `fused`
  std::size_t staged_first = 0;            // staged_at: one per staged receive
  std::size_t early = 0; // the first `early` local ops may run while the step's messages move
  bool staged = false;   // some receive lands in staging
};

/// What a call does, step by step, made once from a schedule's visits: the operations,
/// the byte pieces and requests each step posts, which local ops run on receipt, and where
/// combining receives are staged. Run again as is by a later call of the same schedule over
/// the same buffers and element kind (the key below), so a call in a loop neither visits
/// the schedule nor rebuilds its requests. Only the operator is taken from each call.
struct Plan {
  Plan() = default;
  // A copy starts empty: the requests point into the plan's own lists.
  Plan(const Plan&) : Plan() {}
  Plan& operator=(const Plan&)
  {
    valid = false;
    return *this;
  }

  // The key: everything the contents depend on.
  bool valid = false;
  ScheduleRef schedule{};                     // object: not compared (value is, by `same`)
  alignas(plan_key_align) std::array<unsigned char, plan_key_bytes> value{}; // the schedule's copy
  std::array<ByteBuffer, 3> bufs{};
  // Counted layouts: their counts and displacements of blocks 0 .. n - 1 (every block the
  // plan's patterns name), compared by value: an alltoallv's may change behind one pointer.
  std::array<std::vector<std::size_t>, 3> counts, displs;
  std::size_t rank = 0;
  bool combines_on_receive = false;
  bool combines_into_sends = false;
  bool reduces = false;                       // a Reducer was given
  Reducer kind{};                             // op: not compared (refreshed every call)
  std::byte* staging = nullptr;               // the staging region it was made with
  std::size_t staging_bytes = 0;
  std::uint64_t stamp = 0;                    // which making of the slot's plan (LastCall)

  // The contents.
  const Reducer* red = nullptr;               // the running call's (the combines below read it)
  std::array<CombineContext, 2> combine_contexts{}; // Combine::left, right
  std::array<ReceiveCombine, 2> on_receive{};       // over combine_contexts
  std::vector<PlanStep> steps;
  std::vector<SendOp> sends;
  std::vector<RecvOp> recvs;
  std::vector<LocalOp> locals;
  std::vector<ConstBytes> send_pieces;
  std::vector<MutableBytes> recv_pieces;
  std::vector<std::size_t> send_first, recv_first; // per send / receive, and one past
  std::vector<std::size_t> staged_at;             // per staged receive: its offset in staging
  std::vector<unsigned char> staged;              // per receive: lands in staging, combined after
  std::vector<SendRequest> send_requests;
  std::vector<RecvRequest> recv_requests;
  std::vector<unsigned char> fused;           // per local op: done on receipt
  std::vector<unsigned char> direct;          // per local op: block by block, no temporary
  std::vector<FusedCombine> fusions;          // per receive: its fused local op, if any
  std::vector<ReceiveCombine> fused_combines; // per receive

  /// f(list) for each of the plan's lists (the key's counted layouts included), in one
  /// fixed order: how ExecContext sizes a plan's lists before it is made.
  template <class F>
  void each_list(F&& f)
  {
    f(steps), f(sends), f(recvs), f(locals), f(send_pieces), f(recv_pieces), f(send_first), f(recv_first);
    f(staged_at), f(staged), f(send_requests), f(recv_requests), f(fused), f(direct), f(fusions), f(fused_combines);
    for (auto& c : counts) f(c);
    for (auto& d : displs) f(d);
  }
  static constexpr std::size_t lists = 16 + 3 + 3; // the vectors above, counts, displs
};

/// Plans a communicator keeps (see ExecContext): a loop over this many different calls
/// runs each from its plan. A call beyond them takes the least recently used slot, but
/// once plan_churn_after plans in a row were made (a loop over more calls than slots, where
/// the least recently used plan is always the one needed next), the slot the latest plan
/// was made in: the other slots keep their plans for the loop's next round.
inline constexpr std::size_t plan_slots = 64;
inline constexpr std::size_t plan_churn_after = plan_slots / 4;

/// An ExecContext's plans, each allocated when first needed and never moved, and what a
/// call scans to find its own: the latest two plans run, then each plan's tag (the schedule's
/// type, steps and root, the rank, the caller's buffers, sizes and reducer kind), in an array of its own,
/// so a look-up reads a few cache lines, not every plan. A copy starts empty (a plan points
/// into its own context's memory).
struct PlanSlots {
  PlanSlots() = default;
  PlanSlots(const PlanSlots&) : PlanSlots() {}
  PlanSlots& operator=(const PlanSlots&) { return *this; }

  std::vector<std::unique_ptr<Plan>> plans;
  std::array<std::uint64_t, plan_slots> tag{};
  std::array<std::uint64_t, plan_slots> used{}; // the context's call count at last use
  std::size_t latest = 0;                        // the plan the latest call ran
  std::size_t previous = plan_slots;             // the one run before it (none yet)
  std::size_t unkept = plan_slots;               // the slot of plans not kept (execute())
  std::size_t newest = plan_slots;               // the slot of the latest plan made
  std::size_t made_in_a_row = 0;                 // kept plans made since one was reused
};

/// A collective call as its front end was given it, for running the latest call's plan
/// again (LastCall): `site`, the front end's instantiation (its element type, operator,
/// algorithm and communicator types, in place or not); `args`, its buffers' addresses and
/// sizes and its root or distance; `epoch`, the selection policy's (a new model may pick
/// another algorithm). Two calls with the same key run the same schedule over the same
/// buffers.
struct CallKey {
  const void* site = nullptr;
  std::array<std::uintptr_t, 5> args{};
  std::uint64_t epoch = 0;
  bool operator==(const CallKey& o) const
  {
    return site == o.site && args[0] == o.args[0] && args[1] == o.args[1] && args[2] == o.args[2] &&
           args[3] == o.args[3] && args[4] == o.args[4] && epoch == o.epoch;
  }
};

/// A front-end call whose one schedule ran from a kept plan over the caller's own
/// buffers: a later call with the same key (a collective in a loop) runs that plan again
/// without selecting, building its schedule or looking the plan up (LastCalls).
struct LastCall {
  enum class State : unsigned char { none, armed, ran, kept };
  CallKey key{};
  State state = State::none;
  std::size_t slot = 0;    // the plan's slot (PlanSlots)
  std::uint64_t stamp = 0; // the plan's stamp when it ran: made again since, it differs
  StepInfo info{};         // the call's, but for its number
};

/// The latest four such calls (a loop of up to four calls in turn runs each again). A call is
/// armed by its front end before it runs (ExecContext::arm), noted by the executor when
/// its plan runs, and kept once it returns (commit); a call that copies its input into
/// the context's memory (contribution(), result()), runs a second schedule or a plan that
/// is not kept, or throws, is not kept. A copy starts empty.
struct LastCalls {
  static constexpr std::size_t size = 4;
  LastCalls() = default;
  LastCalls(const LastCalls&) : LastCalls() {}
  LastCalls& operator=(const LastCalls&)
  {
    calls = {};
    armed = size;
    next = 0;
    return *this;
  }

  std::array<LastCall, size> calls{};
  std::size_t armed = size; // the running call's entry, or none
  std::size_t next = 0;     // the entry a call with a new key takes

  /// The running call is not to be run again.
  void drop()
  {
    if (armed < size) calls[armed].state = LastCall::State::none;
    armed = size;
  }
};

/// An endpoint seen through function pointers, so that the executor core is compiled once
/// for every transport (and, with COLLECTIVES_SEPARATE_COMPILATION, once in the program).
/// What the core asks of a transport per step, an indirect call, is small against a step.
struct EndpointRef {
  void* ep = nullptr;
  std::size_t rank = 0;
  bool combines_on_receive = false; // combines_on_receive_v<E>
  bool combines_into_sends = false; // combines_into_sends_v<E>
  void (*exchange)(void* ep, std::span<const SendRequest>, std::span<const RecvRequest>, const StepInfo&) = nullptr;
  // null: the endpoint takes no StepWork (the executor runs it after the exchange)
  void (*exchange_work)(void* ep, std::span<const SendRequest>, std::span<const RecvRequest>, const StepInfo&,
                        const StepWork&) = nullptr;
  // null: every step's StepWork goes to exchange_work; else only the steps it takes
  bool (*takes_work)(const void* ep, std::size_t step_bytes) = nullptr;
  void (*phase)(void* ep, Phase, bool begin, const StepInfo&) = nullptr; // null: no tracing
  // null: the endpoint does not compare calls across ranks (or does not now)
  void (*check_call)(void* ep, const StepInfo&) = nullptr;
  void mark(Phase ph, bool begin, const StepInfo& info) const
  {
    if (phase != nullptr) phase(ep, ph, begin, info);
  }
};

/// `ep` as the executor core sees it (ep must outlive the reference).
template <endpoint E>
EndpointRef endpoint_ref(E& ep)
{
  EndpointRef r;
  r.ep = std::addressof(ep);
  r.rank = ep.rank();
  r.combines_on_receive = combines_on_receive_v<E>;
  r.combines_into_sends = combines_into_sends_v<E>;
  r.exchange = [](void* e, std::span<const SendRequest> sends, std::span<const RecvRequest> recvs,
                  const StepInfo& info) { exchange_step(*static_cast<E*>(e), sends, recvs, info); };
  if constexpr (requires(E& e, std::span<const SendRequest> sends, std::span<const RecvRequest> recvs,
                         const StepInfo& info, const StepWork& work) { e.exchange(sends, recvs, info, work); })
    r.exchange_work = [](void* e, std::span<const SendRequest> sends, std::span<const RecvRequest> recvs,
                         const StepInfo& info, const StepWork& work) {
      static_cast<E*>(e)->exchange(sends, recvs, info, work);
    };
  if constexpr (requires(const E& e, std::size_t bytes) {
                  { e.takes_step_work(bytes) } -> std::convertible_to<bool>;
                })
    r.takes_work = [](const void* e, std::size_t bytes) -> bool {
      return static_cast<const E*>(e)->takes_step_work(bytes);
    };
  if constexpr (requires(E& e, Phase ph, bool begin, const StepInfo& info) { e.phase(ph, begin, info); })
    r.phase = [](void* e, Phase ph, bool begin, const StepInfo& info) { static_cast<E*>(e)->phase(ph, begin, info); };
  if constexpr (requires(E& e, const StepInfo& info) {
                  { e.checks_calls() } -> std::convertible_to<bool>;
                  e.check_call(info);
                })
    if (ep.checks_calls())
      r.check_call = [](void* e, const StepInfo& info) { static_cast<E*>(e)->check_call(info); };
  return r;
}

/// The executor core's body, for any endpoint (defined in execution/impl/executor.ipp). A
/// template over the context only so that a header-only translation unit that includes the
/// executor but runs nothing does not compile it: its body is checked when run_schedule is
/// first instantiated. The one instantiation is ExecContext's.
template <class Context>
void run_steps(const ScheduleRef& s, const EndpointRef& ep, const std::array<ByteBuffer, 3>& bufs, const Reducer* red,
               Context& x, StepInfo& info);

/// Makes and runs the plans of run_steps (execution/impl/executor.ipp; P is Plan).
template <class P, class Context>
void make_plan(P& plan, const ScheduleRef& s, const EndpointRef& ep, const std::array<ByteBuffer, 3>& bufs,
               const Reducer* red, Context& x);
template <class P, class Context>
void run_plan(const P& plan, const EndpointRef& ep, const std::array<ByteBuffer, 3>& bufs, const Reducer* red,
              Context& x, StepInfo& info);

/// Runs again the kept plan of x's LastCalls entry `entry` (ExecContext::replayable found
/// that it fits), as run_steps runs a plan it has found: `info` is the entry's with this
/// call's number (execution/impl/executor.ipp).
template <class Context>
void replay_steps(std::size_t entry, const EndpointRef& ep, const Reducer* red, Context& x, StepInfo& info);

#if COLLECTIVES_DETAIL_CORE_APART
/// run_steps<ExecContext> and replay_steps<ExecContext>, compiled once
/// (collectives::compiled, or the tests' linked core).
void run_schedule_core(const ScheduleRef& s, const EndpointRef& ep, const std::array<ByteBuffer, 3>& bufs,
                       const Reducer* red, ExecContext& x, StepInfo& info);
void replay_core(std::size_t entry, const EndpointRef& ep, const Reducer* red, ExecContext& x, StepInfo& info);
#endif

} // namespace detail

/// Per-communicator reusable state of the executor: request lists and memory for scratch,
/// staging and results. Not shared between threads; a collective's operator must not call
/// another collective on the same communicator.
class ExecContext {
public:
  /// Scratch space for a schedule's scratch blocks.
  std::byte* scratch(std::size_t bytes) { return scratch_.get(bytes); }
  /// Room for a whole result on ranks whose caller gave none (output_everywhere).
  std::byte* result(std::size_t bytes)
  {
    last_.drop(); // the call's buffers are not all the caller's
    return result_.get(bytes);
  }
  /// A copy of an in-place call's contribution, for schedules that read their input
  /// while writing the output.
  std::byte* contribution(std::size_t bytes)
  {
    last_.drop(); // a copy made by every call
    return contribution_.get(bytes);
  }
  /// Bytes held for such copies: 0 while every in-place call ran on the caller's buffer
  /// itself, as every reduce, reduce_scatter, allreduce and scan algorithm that runs in
  /// place does (a call whose input and output overlap without starting together copies).
  std::size_t contribution_bytes() const { return contribution_.capacity(); }
  /// Room for n displacements (alltoallv's packed form), kept between calls.
  std::size_t* displacements(std::size_t n)
  {
    if (displacements_.size() < n) displacements_.resize(n);
    return displacements_.data();
  }
  /// Calls that ran a plan kept from an earlier call (the same schedule over the same
  /// buffers), without visiting the schedule or building requests. The context keeps the
  /// plans of the latest detail::plan_slots (64) different calls; a loop over more keeps
  /// those of most of them (detail::plan_churn_after).
  std::uint64_t plans_reused() const { return plans_reused_; }
  /// Of those, the calls that ran the plan of an earlier call of the same front end with
  /// the same arguments as it was (detail::LastCalls: without selecting, building the
  /// schedule or looking the plan up; the latest four such calls are remembered).
  std::uint64_t calls_replayed() const { return calls_replayed_; }
  /// Bytes held for reuse.
  std::size_t bytes_held() const
  {
    return scratch_.capacity() + staging_.capacity() + local_.capacity() + result_.capacity() +
           contribution_.capacity() + displacements_.capacity() * sizeof(std::size_t) +
           built_.bytes();
  }
  /// The schedule kept for collective c's default calls in the compiled mode (detail: used
  /// by the collectives; collective/chosen.hpp). The first such call makes room for every
  /// collective's (about 14 KB); a copy of the context starts without them.
  template <class Later = int>
  detail::BuiltSchedule& built_schedule(Collective c)
  {
    return built_.template of<Later>(c);
  }

  /// (detail: used by the collectives; see detail::LastCalls) The entry of a kept call
  /// with `key` whose plan may run again as it is, or LastCalls::size: the plan was not
  /// made again since, and the scratch and staging it was made with are still the
  /// context's.
  std::size_t replayable(const detail::CallKey& key) const
  {
    for (std::size_t i = 0; i < detail::LastCalls::size; ++i) {
      const detail::LastCall& l = last_.calls[i];
      if (l.state != detail::LastCall::State::kept || !(l.key == key)) continue;
      if (l.slot >= plans_.plans.size()) return detail::LastCalls::size;
      const detail::Plan& p = *plans_.plans[l.slot];
      if (!p.valid || p.stamp != l.stamp || (p.bufs[2].data != nullptr && p.bufs[2].data != scratch_.data()) ||
          (p.staging_bytes != 0 && p.staging != staging_.data()))
        return detail::LastCalls::size;
      return i;
    }
    return detail::LastCalls::size;
  }
  /// The StepInfo of entry i's call (detail).
  const StepInfo& replay_info(std::size_t i) const { return last_.calls[i].info; }
  /// A front end's call with `key` begins (detail; see detail::LastCalls): it takes the
  /// entry of the same call, else the next in turn (so up to four calls in turn, of one
  /// front end or several, each run again).
  void arm(const detail::CallKey& key)
  {
    std::size_t i = 0;
    while (i < detail::LastCalls::size && !(last_.calls[i].key == key)) ++i;
    if (i == detail::LastCalls::size) i = last_.next++ % detail::LastCalls::size;
    last_.calls[i].key = key;
    last_.calls[i].state = detail::LastCall::State::armed;
    last_.armed = i;
  }
  /// The armed call returned (detail): kept if its one plan ran.
  void commit()
  {
    if (last_.armed < detail::LastCalls::size) {
      detail::LastCall& l = last_.calls[last_.armed];
      l.state = l.state == detail::LastCall::State::ran ? detail::LastCall::State::kept : detail::LastCall::State::none;
    }
    last_.armed = detail::LastCalls::size;
  }

private:
  template <class Context>
  friend void detail::replay_steps(std::size_t, const detail::EndpointRef&, const detail::Reducer*, Context&,
                                   StepInfo&);
  template <class Context>
  friend void detail::run_steps(const detail::ScheduleRef&, const detail::EndpointRef&,
                                const std::array<detail::ByteBuffer, 3>&, const detail::Reducer*, Context&,
                                StepInfo&);
  template <class P, class Context>
  friend void detail::make_plan(P&, const detail::ScheduleRef&, const detail::EndpointRef&,
                                const std::array<detail::ByteBuffer, 3>&, const detail::Reducer*, Context&);
  template <class P, class Context>
  friend void detail::run_plan(const P&, const detail::EndpointRef&, const std::array<detail::ByteBuffer, 3>&,
                               const detail::Reducer*, Context&, StepInfo&);

  // What run_steps and replay_steps both do around the plan a call runs: the call's start
  // (the cross-rank check, the trace's post phase, its number here), a kept plan reused
  // with this call's operator, and the slots' order of use.
  void begin_run(const detail::EndpointRef& ep, const StepInfo& info)
  {
    if (ep.check_call != nullptr && info.call != 0) ep.check_call(ep.ep, info);
    ep.mark(Phase::post, true, info);
    ++calls_;
  }
  void reuse(detail::Plan& plan, const detail::Reducer* red)
  {
    ++plans_reused_;
    plans_.made_in_a_row = 0;
    plan.red = red;
  }
  void ran(std::size_t slot)
  {
    plans_.used[slot] = calls_;
    if (slot != plans_.latest) plans_.previous = std::exchange(plans_.latest, slot);
  }

  StepOps ops_;
  // The latest calls' plans, at most detail::plan_slots (the least recently used goes, but
  // see detail::plan_churn_after).
  detail::PlanSlots plans_;
  // The most elements any plan's list has held (Plan::each_list's order): a plan is sized
  // to them before it is made, so a slot made again for another call does not grow its
  // lists one by one, and a loop over more calls than slots stops allocating after its
  // first two rounds.
  std::array<std::size_t, detail::Plan::lists> plan_sizes_{};
  std::uint64_t calls_ = 0;
  std::uint64_t plans_reused_ = 0;
  std::uint64_t calls_replayed_ = 0;
  std::uint64_t plans_made_ = 0; // stamps the plans (detail::LastCall)
  detail::LastCalls last_;
  std::vector<std::size_t> displacements_;
  detail::AlignedRegion scratch_, staging_, local_, result_, contribution_;
  detail::BuiltSchedules built_;
};

namespace detail {
/// run_schedule() on the caller's StepInfo, which the executor fills in as it goes: the
/// front ends build theirs just before, and a copy of it read at once (16-byte loads of
/// fields just stored 8 bytes at a time) stalled on store forwarding (in perf, about a
/// tenth of a default call's own samples; alone it saved 0.5-2 ns a call).
template <endpoint E>
void run_schedule_at(const ScheduleRef& s, E& ep, const std::array<ByteBuffer, 3>& bufs, const Reducer* red,
                     ExecContext& x, StepInfo& info)
{
#if COLLECTIVES_DETAIL_CORE_APART
  run_schedule_core(s, endpoint_ref(ep), bufs, red, x, info);
#else
  run_steps(s, endpoint_ref(ep), bufs, red, x, info);
#endif
}
} // namespace detail

namespace detail {
/// replay_steps() for endpoint `ep`.
template <endpoint E>
void replay_at(std::size_t entry, E& ep, const Reducer* red, ExecContext& x, StepInfo& info)
{
#if COLLECTIVES_DETAIL_CORE_APART
  replay_core(entry, endpoint_ref(ep), red, x, info);
#else
  replay_steps(entry, endpoint_ref(ep), red, x, info);
#endif
}
} // namespace detail

/// Runs the schedule `s` as rank ep.rank() over `bufs` (input, output, scratch; the input
/// may alias the output for in-place operations whose schedules never read the input),
/// combining with `red` where the schedule says (null when it never combines). `info`
/// names the call; the executor fills in the step, the number of steps if 0, and, with
/// `red`, the element size. collective: every rank must call it with the same schedule.
/// One body for every transport (detail::run_steps): the endpoint is reached through
/// detail::EndpointRef. (Everything by reference: a call's arguments are copied once, not
/// at each layer; at 8 bytes a call such copies were a fifth of the library's own work.)
template <endpoint E>
void run_schedule(const detail::ScheduleRef& s, E& ep, const std::array<detail::ByteBuffer, 3>& bufs,
                  const detail::Reducer* red, ExecContext& x, const StepInfo& info)
{
  StepInfo mine = info;
  detail::run_schedule_at(s, ep, bufs, red, x, mine);
}


namespace detail {

/// The buffers of a call as the executor takes them, built by the caller in place: the
/// scratch buffer's memory is found by execute_ref. (Built where the call's layouts are at
/// hand, not copied from arguments just stored: a wider load of fields just stored one by
/// one stalls on store forwarding, which was a fifth of a small call's own work.)
template <class T>
std::array<ByteBuffer, 3> call_buffers(const T* input, const BlockLayout& in_layout, T* output,
                                       const BlockLayout& out_layout, const BlockLayout& scratch_layout)
{
  return {ByteBuffer{reinterpret_cast<std::byte*>(const_cast<T*>(input)), in_layout},
          ByteBuffer{reinterpret_cast<std::byte*>(output), out_layout}, ByteBuffer{nullptr, scratch_layout}};
}

/// execute() over a schedule reference (see schedule_ref's keep_plan) and the call's
/// buffers (call_buffers); fills in `info` as the steps run. One body per endpoint,
/// element type and operator, whichever algorithm runs.
template <endpoint E, class T, class Op>
void execute_ref(const ScheduleRef& s, E& ep, ExecContext& ctx, std::array<ByteBuffer, 3>& bufs, const Op& op,
                 StepInfo& info)
{
  static_assert(std::is_trivially_copyable_v<T>, "collectives::execute: T must be trivially copyable");
  const std::size_t scratch_bytes = bufs[2].layout.extent(s.scratch_blocks) * sizeof(T);
  bufs[2].data = scratch_bytes == 0 ? nullptr : ctx.scratch(scratch_bytes);
  const Reducer red = make_reducer<T>(op);
  run_schedule_at(s, ep, bufs, &red, ctx, info);
}

} // namespace detail

/// Runs schedule `s` as rank ep.rank() of endpoint `ep` over typed buffers, with `ctx`'s
/// reusable memory. input/output: the caller's buffers with their block layouts, either
/// apart or the same memory from the same start (input == output: for in-place operations
/// whose schedules never read input, or read it before writing it; the executor tells
/// overlapping blocks by their offsets from that one start; buffers that share memory
/// from different starts are std::invalid_argument before anything moves); scratch
/// holds s.scratch_blocks() blocks laid out by `scratch_layout` (not value-initialised:
/// the verifier rejects schedules that read scratch before writing it). `op` combines
/// where the schedule says. collective: every rank must call it with the same schedule.
template <schedule S, endpoint E, class T, class Op = NoCombine>
void execute(const S& s, E& ep, ExecContext& ctx, const T* input, BlockLayout in_layout, T* output,
             BlockLayout out_layout, BlockLayout scratch_layout, Op op = {}, const StepInfo& info = {})
{
  auto bufs = detail::call_buffers(input, in_layout, output, out_layout, scratch_layout);
  StepInfo mine = info;
  detail::execute_ref<E, T>(detail::schedule_ref(s), ep, ctx, bufs, op, mine);
}

/// execute() with a context of its own (allocates; collectives use their communicator's).
template <schedule S, endpoint E, class T, class Op = NoCombine>
void execute(const S& s, E& ep, const T* input, BlockLayout in_layout, T* output, BlockLayout out_layout,
             BlockLayout scratch_layout, Op op = {})
{
  ExecContext ctx;
  execute(s, ep, ctx, input, in_layout, output, out_layout, scratch_layout, op);
}

/// execute() with uniform scratch blocks of `scratch_m` elements.
template <schedule S, endpoint E, class T, class Op = NoCombine>
void execute(const S& s, E& ep, const T* input, BlockLayout in_layout, T* output, BlockLayout out_layout,
             std::size_t scratch_m, Op op = {})
{
  execute(s, ep, input, in_layout, output, out_layout, BlockLayout{scratch_m}, op);
}

} // namespace collectives

#if !COLLECTIVES_DETAIL_CORE_APART
#include <collectives/execution/impl/executor.ipp>
#endif
