#pragma once
// The one executor: runs any schedule on any endpoint over typed buffers. Per step it asks
// the schedule what this rank does, turns block patterns into byte pieces (merging
// adjacent blocks), posts the step's messages together, combines what needs combining,
// and runs the step's local ops.

#include <collectives/schedule/pattern.hpp>
#include <collectives/schedule/schedule.hpp>
#include <collectives/transport/concepts.hpp>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

namespace collectives {

/// Where block b of a buffer lives: uniform blocks of m elements, or per-block counts and
/// displacements (in elements), as MPI's v-collectives take them. With period != 0 the
/// counted layout repeats every `period` blocks, `period_elems` elements apart (scratch
/// space holding several copies of a chunked vector).
struct BlockLayout {
  std::size_t m = 0;
  const std::size_t* counts = nullptr;
  const std::size_t* displs = nullptr;
  std::size_t period = 0;
  std::size_t period_elems = 0;

  constexpr std::size_t offset(std::size_t b) const
  {
    if (counts == nullptr) return b * m;
    if (period != 0) return (b / period) * period_elems + displs[b % period];
    return displs[b];
  }
  constexpr std::size_t length(std::size_t b) const
  {
    if (counts == nullptr) return m;
    return counts[period != 0 ? b % period : b];
  }
  /// Elements needed to hold blocks 0..n-1.
  constexpr std::size_t extent(std::size_t n) const
  {
    if (n == 0) return 0;
    if (counts == nullptr) return n * m;
    if (period != 0) return ((n + period - 1) / period) * period_elems;
    std::size_t e = 0;
    for (std::size_t b = 0; b < n; ++b) e = std::max(e, displs[b] + counts[b]);
    return e;
  }
};

/// The operator used when a schedule never combines.
struct NoCombine {
  template <class T>
  constexpr T operator()(const T&, const T& b) const { return b; }
};

namespace detail {

template <class T>
struct BufferView {
  std::byte* data = nullptr;
  BlockLayout layout{};
};

/// Appends the byte pieces of `pat` to `out`, merging blocks that are adjacent in memory.
template <class T, class Piece>
void append_pieces(const BufferView<T>& buf, const Pattern& pat, std::vector<Piece>& out)
{
  std::byte* pending = nullptr;
  std::size_t pending_size = 0;
  for (std::size_t i = 0; i < pat.count; ++i) {
    const std::size_t b = pat[i];
    std::byte* at = buf.data + buf.layout.offset(b) * sizeof(T);
    const std::size_t n = buf.layout.length(b) * sizeof(T);
    if (n == 0) continue;
    if (pending != nullptr && pending + pending_size == at) {
      pending_size += n;
    } else {
      if (pending != nullptr) out.push_back(Piece{pending, pending_size});
      pending = at;
      pending_size = n;
    }
  }
  if (pending != nullptr) out.push_back(Piece{pending, pending_size});
}

template <class T>
std::size_t pattern_elements(const BufferView<T>& buf, const Pattern& pat)
{
  std::size_t n = 0;
  for (std::size_t i = 0; i < pat.count; ++i) n += buf.layout.length(pat[i]);
  return n;
}

/// Combines contiguous `in` into the blocks of `pat` in order.
template <class T, class Op>
void combine_into(const BufferView<T>& buf, const Pattern& pat, const T* in, Combine how, Op& op)
{
  for (std::size_t i = 0; i < pat.count; ++i) {
    const std::size_t b = pat[i];
    T* dst = reinterpret_cast<T*>(buf.data + buf.layout.offset(b) * sizeof(T));
    const std::size_t n = buf.layout.length(b);
    // One loop per mode, so the compiler can vectorise each.
    if (how == Combine::left)
      for (std::size_t e = 0; e < n; ++e) dst[e] = op(in[e], dst[e]);
    else if (how == Combine::right)
      for (std::size_t e = 0; e < n; ++e) dst[e] = op(dst[e], in[e]);
    else
      for (std::size_t e = 0; e < n; ++e) dst[e] = in[e];
    in += n;
  }
}

/// Gathers the blocks of `pat` into contiguous `out`.
template <class T>
void gather_from(const BufferView<T>& buf, const Pattern& pat, T* out)
{
  for (std::size_t i = 0; i < pat.count; ++i) {
    const std::size_t b = pat[i];
    const std::size_t n = buf.layout.length(b);
    if (n != 0) std::memcpy(static_cast<void*>(out), buf.data + buf.layout.offset(b) * sizeof(T), n * sizeof(T));
    out += n;
  }
}

/// Per-rank reusable storage, so steps allocate nothing once warmed up.
template <class T>
struct ExecState {
  StepOps ops;
  std::vector<ConstBytes> send_pieces;
  std::vector<MutableBytes> recv_pieces;
  std::vector<std::size_t> send_first, recv_first;
  std::vector<SendRequest> sends;
  std::vector<RecvRequest> recvs;
  std::vector<T> combine_tmp;
  std::vector<std::size_t> combine_at;
  std::vector<T> local_tmp;
};

} // namespace detail

/// Runs schedule `s` as rank ep.rank() of endpoint `ep`.
/// input/output: the caller's buffers with their block layouts (input may alias output
/// for in-place operations whose schedules never read input); the scratch buffer holds
/// s.scratch_blocks() blocks laid out by `scratch_layout`. `op` combines where the
/// schedule says. collective: every rank must call it with the same schedule.
template <schedule S, endpoint E, class T, class Op = NoCombine>
void execute(const S& s, E& ep, const T* input, BlockLayout in_layout, T* output, BlockLayout out_layout,
             BlockLayout scratch_layout, Op op = {})
{
  static_assert(std::is_trivially_copyable_v<T>, "collectives::execute: T must be trivially copyable");
  const std::size_t me = ep.rank();
  // Not value-initialised: the verifier rejects a schedule that reads scratch before
  // writing it, and zero-filling would cost a pass over all of it on every call.
  const std::size_t scratch_elems = scratch_layout.extent(s.scratch_blocks());
  const auto scratch = scratch_elems == 0 ? nullptr : std::make_unique_for_overwrite<T[]>(scratch_elems);
  detail::BufferView<T> views[3] = {
    {reinterpret_cast<std::byte*>(const_cast<T*>(input)), in_layout},
    {reinterpret_cast<std::byte*>(output), out_layout},
    {reinterpret_cast<std::byte*>(scratch.get()), scratch_layout},
  };
  auto view = [&](Buffer b) -> const detail::BufferView<T>& { return views[static_cast<int>(b)]; };

  // Reused by every call on this thread, so a warmed-up rank allocates nothing per step
  // or per call (short collectives are dominated by such overheads). Not reentrant: an
  // operator must not itself call a collective.
  thread_local detail::ExecState<T> x;
  for (std::size_t k = 0; k < s.num_steps(); ++k) {
    x.ops.sends.clear();
    x.ops.recvs.clear();
    x.ops.locals.clear();
    s.visit(me, k, x.ops);

    if (!x.ops.sends.empty() || !x.ops.recvs.empty()) {
      x.send_pieces.clear();
      x.recv_pieces.clear();
      x.send_first.clear();
      x.recv_first.clear();
      x.combine_at.clear();
      std::size_t tmp_elems = 0;
      for (const auto& r : x.ops.recvs)
        if (r.combine != Combine::copy) tmp_elems += detail::pattern_elements(view(r.blocks.buffer), r.blocks);
      x.combine_tmp.resize(tmp_elems);
      for (const auto& snd : x.ops.sends) {
        x.send_first.push_back(x.send_pieces.size());
        detail::append_pieces(view(snd.blocks.buffer), snd.blocks, x.send_pieces);
      }
      x.send_first.push_back(x.send_pieces.size());
      std::size_t tmp_at = 0;
      for (const auto& rcv : x.ops.recvs) {
        x.recv_first.push_back(x.recv_pieces.size());
        if (rcv.combine == Combine::copy) {
          detail::append_pieces(view(rcv.blocks.buffer), rcv.blocks, x.recv_pieces);
        } else {
          const std::size_t n = detail::pattern_elements(view(rcv.blocks.buffer), rcv.blocks);
          x.combine_at.push_back(tmp_at);
          if (n != 0)
            x.recv_pieces.push_back(MutableBytes{reinterpret_cast<std::byte*>(x.combine_tmp.data() + tmp_at), n * sizeof(T)});
          tmp_at += n;
        }
      }
      x.recv_first.push_back(x.recv_pieces.size());
      x.sends.clear();
      x.recvs.clear();
      for (std::size_t i = 0; i < x.ops.sends.size(); ++i)
        x.sends.push_back(SendRequest{x.ops.sends[i].peer,
                                      std::span<const ConstBytes>(x.send_pieces.data() + x.send_first[i],
                                                                  x.send_first[i + 1] - x.send_first[i])});
      for (std::size_t i = 0; i < x.ops.recvs.size(); ++i)
        x.recvs.push_back(RecvRequest{x.ops.recvs[i].peer,
                                      std::span<const MutableBytes>(x.recv_pieces.data() + x.recv_first[i],
                                                                    x.recv_first[i + 1] - x.recv_first[i])});
      ep.exchange(std::span<const SendRequest>(x.sends), std::span<const RecvRequest>(x.recvs));
      std::size_t c = 0;
      for (const auto& rcv : x.ops.recvs)
        if (rcv.combine != Combine::copy)
          detail::combine_into(view(rcv.blocks.buffer), rcv.blocks, x.combine_tmp.data() + x.combine_at[c++],
                               rcv.combine, op);
    }

    for (const auto& loc : x.ops.locals) {
      const auto& from = view(loc.from.buffer);
      const auto& to = view(loc.to.buffer);
      if (loc.combine == Combine::copy && loc.from.buffer != loc.to.buffer) {
        for (std::size_t i = 0; i < loc.from.count; ++i) {
          const std::size_t n = from.layout.length(loc.from[i]) * sizeof(T);
          if (n != 0)
            std::memcpy(to.data + to.layout.offset(loc.to[i]) * sizeof(T),
                        from.data + from.layout.offset(loc.from[i]) * sizeof(T), n);
        }
      } else {
        // Read everything first, then write: a local op is a parallel assignment.
        x.local_tmp.resize(detail::pattern_elements(from, loc.from));
        detail::gather_from(from, loc.from, x.local_tmp.data());
        detail::combine_into(to, loc.to, x.local_tmp.data(), loc.combine, op);
      }
    }
  }
}

/// execute() with uniform scratch blocks of `scratch_m` elements.
template <schedule S, endpoint E, class T, class Op = NoCombine>
void execute(const S& s, E& ep, const T* input, BlockLayout in_layout, T* output, BlockLayout out_layout,
             std::size_t scratch_m, Op op = {})
{
  execute(s, ep, input, in_layout, output, out_layout, BlockLayout{scratch_m}, op);
}

} // namespace collectives
