// expect: collectives::CostModel: t_w must be finite and non-negative
//
// A cost model with a negative parameter is rejected: in constant evaluation (a constexpr
// model, validated) it does not compile, and the error names the parameter. The twin
// uses a valid t_w.
#include <collectives/cost/model.hpp>

#ifndef COLLECTIVES_TWIN
constexpr collectives::CostModel model{.t_s = 1e-6, .t_w = -1e-9};
#else
constexpr collectives::CostModel model{.t_s = 1e-6, .t_w = 1e-9};
#endif
constexpr collectives::CostModel checked = model.validated();
static_assert(checked.t_s == 1e-6);
