// Reductions over elements of 1, 2, 4 bytes (see engine_reduce.ipp).

#include "engine_reduce.ipp"

namespace collectives::pmpi::engine::detail {
template struct Reductions<1>;
template struct Reductions<2>;
template struct Reductions<4>;
} // namespace collectives::pmpi::engine::detail
