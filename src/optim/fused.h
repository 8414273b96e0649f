// Whether a parameter group can take a multi-tensor optimizer kernel (src/kernels/optim.h), and the
// parameters with gradients it would update.
#pragma once
#include <vector>

#include "adept/optim/optimizer.h"
#include "kernels/registry.h"

namespace adept::optim {

/// Fills `params`/`grads` with the group's parameters that have a gradient and returns true when the
/// device they share has the kernel family `table` for their dtype and every one of them (and its
/// gradient) is contiguous and of that dtype; false sends the group to the per-tensor composite.
template <class Table>
bool fusable(const ParamGroup& group, const Table& table, std::vector<Tensor>& params, std::vector<Tensor>& grads) {
  for (const Tensor& p : group.params) {
    const Tensor g = p.grad();
    if (!g.defined()) continue;
    if (!p.is_contiguous() || !g.is_contiguous() || g.dtype() != p.dtype() || g.device() != p.device()) return false;
    if (!params.empty() && (p.device() != params[0].device() || p.dtype() != params[0].dtype())) return false;
    params.push_back(p);
    grads.push_back(g);
  }
  return !params.empty() && table.supports(params[0].device().type, 0, params[0].dtype());
}

}  // namespace adept::optim
