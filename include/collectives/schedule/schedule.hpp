#pragma once
// The one representation of an algorithm. A schedule says, for a rank and a step, which
// blocks go to which partner, which come in from which partner (copied or combined), and
// which move locally afterwards. It says so through a visitor, so nothing is stored:
//
//   s.size()            number of ranks p
//   s.num_steps()       number of steps, the same on every rank
//   s.scratch_blocks()  scratch blocks each rank needs
//   s.operation()       the operation's spec (its buffers and postcondition)
//   s.visit(r, k, v)    calls v.send(SendOp), v.recv(RecvOp), v.local(LocalOp) for rank r
//                       in step k. Sends and receives of one step proceed together; locals
//                       run after them, in order.
//
// The executor, the verifier, the cost estimate and the recording tests all read this.

#include <collectives/schedule/pattern.hpp>

#include <concepts>
#include <cstddef>
#include <vector>

namespace collectives {

/// Blocks `blocks` of this rank go to rank `peer`.
struct SendOp {
  std::size_t peer = 0;
  Pattern blocks{};
};

/// Blocks from rank `peer` land in `blocks` of this rank, copied or combined.
struct RecvOp {
  std::size_t peer = 0;
  Pattern blocks{};
  Combine combine = Combine::copy;
};

/// After the step's exchanges: blocks `from` are copied or combined into `to`.
struct LocalOp {
  Pattern from{};
  Pattern to{};
  Combine combine = Combine::copy;
};

namespace detail {
/// A visitor that only counts; used to state the schedule concept.
struct NullVisitor {
  constexpr void send(const SendOp&) {}
  constexpr void recv(const RecvOp&) {}
  constexpr void local(const LocalOp&) {}
};
} // namespace detail

/// See the top of this header.
template <class S>
concept schedule = std::copyable<S> && requires(const S& s, std::size_t r, detail::NullVisitor& v) {
  { s.size() } -> std::convertible_to<std::size_t>;
  { s.num_steps() } -> std::convertible_to<std::size_t>;
  { s.scratch_blocks() } -> std::convertible_to<std::size_t>;
  s.operation();
  s.visit(r, r, v);
};

/// Everything one rank does in one step, collected (for tests, static_asserts and tools).
struct StepOps {
  std::vector<SendOp> sends;
  std::vector<RecvOp> recvs;
  std::vector<LocalOp> locals;

  constexpr void send(const SendOp& op) { sends.push_back(op); }
  constexpr void recv(const RecvOp& op) { recvs.push_back(op); }
  constexpr void local(const LocalOp& op) { locals.push_back(op); }
};

/// What rank `rank` does in step `step` of schedule s.
template <schedule S>
constexpr StepOps step_ops(const S& s, std::size_t rank, std::size_t step)
{
  StepOps ops;
  s.visit(rank, step, ops);
  return ops;
}

/// The partner rank `rank` sends to first in `step`, or the rank itself when it sends nothing.
template <schedule S>
constexpr std::size_t send_partner(const S& s, std::size_t rank, std::size_t step)
{
  const auto ops = step_ops(s, rank, step);
  return ops.sends.empty() ? rank : ops.sends.front().peer;
}

/// Blocks rank `rank` sends in `step`, over all its partners.
template <schedule S>
constexpr std::size_t blocks_sent(const S& s, std::size_t rank, std::size_t step)
{
  std::size_t n = 0;
  for (const auto& op : step_ops(s, rank, step).sends) n += op.blocks.count;
  return n;
}

} // namespace collectives
