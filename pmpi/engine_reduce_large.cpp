// Reductions over elements of 16, 32 bytes (see engine_reduce.ipp).

#include "engine_reduce.ipp"

namespace collectives::pmpi::engine::detail {
template struct Reductions<16>;
template struct Reductions<32>;
} // namespace collectives::pmpi::engine::detail
