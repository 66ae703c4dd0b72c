// Reductions over elements of 4 and 8 bytes (see engine_reduce.ipp).

#include "engine_reduce.ipp"

namespace collectives::pmpi::engine::detail {
template struct Reductions<4>;
template struct Reductions<8>;
} // namespace collectives::pmpi::engine::detail
