#pragma once
// What the all-gather schedules share. Every one keeps the blocks in the output buffer at
// their final places, so nothing is rearranged at the end; `in_place` says the rank's own
// block already sits there (MPI_IN_PLACE, and the second half of the long-message
// broadcast and all-reduce compositions).

#include <collectives/schedule/pattern.hpp>

#include <cstddef>

namespace collectives::detail {

/// Where rank r's own block is read from in the first step.
constexpr Pattern own_block(bool in_place, std::size_t r)
{
  return in_place ? contiguous(Buffer::output, r, 1) : contiguous(Buffer::input, 0, 1);
}

} // namespace collectives::detail
