// SGD update (torch.optim.SGD, torch 1.13 single-tensor algorithm).
#include "adept/optim/sgd.h"

#include "adept/ops.h"

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

void SGD::step_group(ParamGroup& group) {
  const Options& o = group.options;
  const double lr = option_number(o, "lr", name());
  const double momentum = option_number(o, "momentum", name());
  const double dampening = option_number(o, "dampening", name());
  const double weight_decay = option_number(o, "weight_decay", name());
  const bool nesterov = option_flag(o, "nesterov", name());
  const bool maximize = option_flag(o, "maximize", name());
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
