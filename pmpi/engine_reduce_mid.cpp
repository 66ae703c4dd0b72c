// Reductions over elements of 8 bytes (see engine_reduce.ipp).

#include "engine_reduce.ipp"

namespace collectives::pmpi::engine::detail {
template struct Reductions<8>;
} // namespace collectives::pmpi::engine::detail
