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

// Two steps of `make(params)` on 70 parameters (more than one multi-tensor dispatch holds) made from x[0]:
// scaled copies, a zero-size one and a large one; the gradients are scaled copies of x[1]. Returns every
// parameter, flattened and concatenated.
template <class Make>
Tensors many_params(const Tensors& x, Make make) {
  std::vector<Tensor> params;
  for (int i = 0; i < 70; ++i) {
    Tensor p = (i == 7 ? x[0].narrow(0, 0, 0) : x[0] * (1 + 0.01 * i)).detach().contiguous().requires_grad_();
    p.set_grad(i == 7 ? x[1].narrow(0, 0, 0).contiguous() : (x[1] * (0.5 + 0.02 * i)).contiguous());
    params.push_back(p);
  }
  Tensor big = repeat(x[0], {300, 1}).detach().contiguous().requires_grad_();  // spans many workgroups
  big.set_grad(repeat(x[1], {300, 1}).contiguous());
  params.push_back(big);
  auto opt = make(params);
  opt.step();
  opt.step();
  std::vector<Tensor> flat;
  for (const Tensor& p : params) flat.push_back(p.detach().flatten());
  return {cat(flat)};
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
  add(out, "SGD", "many_params_momentum", [](const Tensors& x) {
    return many_params(x, [](std::vector<Tensor> p) {
      return optim::SGD(std::move(p), SGDOptions{.lr = 0.1, .momentum = 0.9, .dampening = 0.1, .weight_decay = 0.01});
    });
  });
  add(out, "Adam", "many_params", [](const Tensors& x) {
    return many_params(x, [](std::vector<Tensor> p) { return optim::Adam(std::move(p), AdamOptions{.lr = 0.01}); });
  });
  add(out, "AdamW", "many_params_amsgrad_maximize", [](const Tensors& x) {
    return many_params(x, [](std::vector<Tensor> p) {
      return optim::AdamW(std::move(p), AdamOptions{.lr = 0.01, .amsgrad = true, .maximize = true});
    });
  });
  add(out, "AdamW", "", [](const Tensors& x) {
    return two_steps(x, [](std::vector<Tensor> p) { return optim::AdamW(std::move(p), AdamOptions{.lr = 0.01}); });
  });
}

}  // namespace adept::backend_ops
