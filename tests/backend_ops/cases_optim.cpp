// Cases of the optimizers (include/adept/optim/): two steps of each update rule on one parameter
// with a fixed gradient, so every backend runs the same pointwise update as the CPU.
#include "adept/optim.h"
#include "harness.h"

namespace adept::backend_ops {
namespace {

// Two steps of `make(param)` on a copy of x[0] with gradient x[1]; returns the parameter.
template <class Make>
Tensors two_steps(const Tensors& x, Make make) {
  Tensor p = x[0].detach().clone().requires_grad_();
  p.set_grad(x[1]);
  auto opt = make(std::vector<Tensor>{p});
  opt.step();
  opt.step();
  return {p.detach()};
}

void add(std::vector<Case>& out, const std::string& op, const std::string& variant,
         std::function<Tensors(const Tensors&)> f) {
  Case c = make_case(op, variant, {in({3, 4}), in({3, 4})}, std::move(f), kFloat);
  c.no_grad().with_device_tol(10);
  out.push_back(std::move(c));
}

}  // namespace

void add_optim_cases(std::vector<Case>& out) {
  using optim::AdamOptions;
  using optim::SGDOptions;
  add(out, "SGD", "", [](const Tensors& x) {
    return two_steps(x, [](std::vector<Tensor> p) { return optim::SGD(std::move(p), SGDOptions{.lr = 0.1}); });
  });
  add(out, "SGD", "momentum_nesterov_decay", [](const Tensors& x) {
    return two_steps(x, [](std::vector<Tensor> p) {
      return optim::SGD(std::move(p), SGDOptions{.lr = 0.1, .momentum = 0.9, .weight_decay = 0.01, .nesterov = true});
    });
  });
  add(out, "Adam", "", [](const Tensors& x) {
    return two_steps(x, [](std::vector<Tensor> p) { return optim::Adam(std::move(p), AdamOptions{.lr = 0.01}); });
  });
  add(out, "Adam", "amsgrad", [](const Tensors& x) {
    return two_steps(x, [](std::vector<Tensor> p) {
      return optim::Adam(std::move(p), AdamOptions{.lr = 0.01, .weight_decay = 0.1, .amsgrad = true});
    });
  });
  add(out, "AdamW", "", [](const Tensors& x) {
    return two_steps(x, [](std::vector<Tensor> p) { return optim::AdamW(std::move(p), AdamOptions{.lr = 0.01}); });
  });
}

}  // namespace adept::backend_ops
