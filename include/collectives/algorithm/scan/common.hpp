#pragma once
// What the prefix-reduction (scan) schedules share, inclusive or exclusive. The vector is
// one block; the scratch holds the running subcube/partial total (block 0) and the message
// just received (block 1). Incoming partials always hold lower ranks, so they go on the
// left.

#include <collectives/schedule/pattern.hpp>

namespace collectives {

namespace detail {
inline constexpr Pattern scan_in = contiguous(Buffer::input, 0, 1);
inline constexpr Pattern scan_out = contiguous(Buffer::output, 0, 1);
inline constexpr Pattern scan_total = contiguous(Buffer::scratch, 0, 1);
inline constexpr Pattern scan_msg = contiguous(Buffer::scratch, 1, 1);
} // namespace detail

} // namespace collectives
