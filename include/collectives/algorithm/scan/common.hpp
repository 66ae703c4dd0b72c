#pragma once
// What the prefix-reduction (scan) schedules share, inclusive or exclusive. The vector is
// one block; the scratch holds the running subcube/partial total (block 0) and the message
// just received (block 1). Incoming partials always hold lower ranks, so they go on the
// left.

#include <collectives/schedule/pattern.hpp>

#include <cstddef>

namespace collectives {

namespace detail {
inline constexpr Pattern scan_in = contiguous(Buffer::input, 0, 1);
inline constexpr Pattern scan_out = contiguous(Buffer::output, 0, 1);
inline constexpr Pattern scan_total = contiguous(Buffer::scratch, 0, 1);
inline constexpr Pattern scan_msg = contiguous(Buffer::scratch, 1, 1);

/// In place (the input is the output), an inclusive scan's incoming prefix from rank
/// `from` cannot land in the output, which still holds the input: it waits in scratch,
/// then output = prefix op input (the copy of the input onto the output is none when they
/// are the same memory; apart, it is what the output starts from).
template <class V>
constexpr void prefix_joins_in_place(V& v, std::size_t from)
{
  v.recv({from, scan_msg});
  v.local({scan_in, scan_out});
  v.local({scan_msg, scan_out, Combine::left});
}
} // namespace detail

} // namespace collectives
