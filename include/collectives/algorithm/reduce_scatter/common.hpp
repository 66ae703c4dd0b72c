#pragma once
// What the reduce-scatter schedules share. Input: p blocks per rank (block j is the
// rank's contribution to block j of the result); result block r lands on rank r, in output
// block `dest` (0 for MPI_Reduce_scatter_block; r when it is a step of an all-reduce).
// Partial results live in scratch, and combinations always put lower ranks on the left.

namespace collectives {

/// Where a reduce-scatter's result goes: output block 0, or output block r on rank r.
enum class ResultSlot : unsigned char { first, own };

} // namespace collectives
