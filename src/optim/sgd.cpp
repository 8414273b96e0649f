// SGD update (torch.optim.SGD, torch 1.13 single-tensor algorithm).
#include "adept/optim/sgd.h"

#include "adept/ops.h"
#include "kernels/optim.h"
#include "optim/fused.h"

namespace adept::optim {

namespace {

Options sgd_defaults(const SGDOptions& o) {
  ADEPT_CHECK(o.lr >= 0, ValueError, "SGD: Invalid learning rate: {}", o.lr);
  ADEPT_CHECK(o.momentum >= 0, ValueError, "SGD: Invalid momentum value: {}", o.momentum);
  ADEPT_CHECK(o.weight_decay >= 0, ValueError, "SGD: Invalid weight_decay value: {}", o.weight_decay);
  ADEPT_CHECK(!o.nesterov || (o.momentum > 0 && o.dampening == 0), ValueError,
              "SGD: Nesterov momentum requires a momentum and zero dampening (got momentum={}, dampening={})",
              o.momentum, o.dampening);
  return {{"lr", o.lr},
          {"momentum", o.momentum},
          {"dampening", o.dampening},
          {"weight_decay", o.weight_decay},
          {"nesterov", o.nesterov},
          {"maximize", o.maximize}};
}

}  // namespace

SGD::SGD(std::vector<ParamGroup> groups, const SGDOptions& options)
    : Optimizer("SGD", std::move(groups), sgd_defaults(options)) {}

namespace {

// The whole group in multi-tensor kernel calls, when its device has them (false: use the composite).
bool step_fused(Optimizer& opt, ParamGroup& group, const SGDStep& hyper) {
  std::vector<Tensor> params, grads;
  if (!fusable(group, sgd_step_kernel(), params, grads)) return false;
  const bool momentum = hyper.momentum != 0;
  // Parameters whose momentum buffer is new get it initialised to d (`first`), the others update it.
  std::vector<bool> is_new(params.size(), true);
  for (size_t i = 0; i < params.size(); ++i) {
    ParamState& s = opt.state(params[i]);
    if (!momentum) continue;
    is_new[i] = !s.count("momentum_buffer");
    if (is_new[i]) s.emplace("momentum_buffer", empty_like(params[i]));
  }
  for (bool first : {true, false}) {
    std::vector<Tensor> ps, gs, bufs;
    for (size_t i = 0; i < params.size(); ++i) {
      if (is_new[i] != first) continue;
      ParamState& s = opt.state(params[i]);
      ps.push_back(params[i]);
      gs.push_back(grads[i]);
      if (momentum) bufs.push_back(s.at("momentum_buffer"));
    }
    if (ps.empty()) continue;
    SGDStep h = hyper;
    h.first = first;
    sgd_step_kernel().get(ps[0].device(), "SGD")(ps, gs, bufs, h);
  }
  return true;
}

}  // namespace

void SGD::step_group(ParamGroup& group) {
  const Options& o = group.options;
  const double lr = option_number(o, "lr", name());
  const double momentum = option_number(o, "momentum", name());
  const double dampening = option_number(o, "dampening", name());
  const double weight_decay = option_number(o, "weight_decay", name());
  const bool nesterov = option_flag(o, "nesterov", name());
  const bool maximize = option_flag(o, "maximize", name());
  if (step_fused(*this, group, {lr, momentum, dampening, weight_decay, nesterov, maximize, false})) return;
  for (Tensor& p : group.params) {
    Tensor d_p = p.grad();
    if (!d_p.defined()) continue;
    if (maximize) d_p = d_p.neg();
    if (weight_decay != 0) d_p = d_p.add(p, weight_decay);
    if (momentum != 0) {
      ParamState& s = state(p);
      auto it = s.find("momentum_buffer");
      if (it == s.end()) {
        it = s.emplace("momentum_buffer", d_p.detach().clone()).first;
      } else {
        it->second.mul_(momentum).add_(d_p, 1 - dampening);
      }
      d_p = nesterov ? d_p.add(it->second, momentum) : it->second;
    }
    p.add_(d_p, -lr);
  }
}

}  // namespace adept::optim
