// Test helpers for test_index_ops.cpp and test_shape_copy.cpp: PyTorch literals from
// gen/index_shape_expected.h as tensors, value comparison, and a float64 finite-difference gradient check.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "adept/adept.h"
#include "gen/index_shape_expected.h"

namespace idx_test {

using namespace adept;

/// The literal `name` as a tensor of its dtype (float64, int64 or bool).
inline Tensor lit(const std::string& name) {
  auto it = torch_literals().find(name);
  if (it == torch_literals().end()) throw std::runtime_error("missing torch literal " + name);
  const TorchLiteral& l = it->second;
  std::string dt = l.dtype;
  Dtype d = dt == "int64" ? kInt64 : dt == "bool" ? kBool : kFloat64;
  return tensor(l.data, TensorOptions(kFloat64)).to(d).reshape(l.shape);
}

inline Tensor longs(const std::vector<int64_t>& v) { return tensor(v); }

/// Expects `got` to have the literal's shape and values (NaN matches NaN; dtype category checked).
inline void expect_lit(const Tensor& got, const std::string& name, double tol = 1e-12) {
  Tensor want = lit(name);
  ASSERT_EQ(got.sizes(), want.sizes()) << name;
  EXPECT_EQ(got.is_floating_point(), want.is_floating_point()) << name;
  std::vector<Scalar> g = got.tolist_flat(), w = want.tolist_flat();
  for (size_t i = 0; i < g.size(); ++i) {
    double a = g[i].to_double(), b = w[i].to_double();
    if (a == b) continue;  // also covers infinities
    if (std::isnan(b)) {
      EXPECT_TRUE(std::isnan(a)) << name << " at " << i;
    } else {
      EXPECT_NEAR(a, b, tol) << name << " at " << i;
    }
  }
}

/// Fixed weights w (linspace(-1, 2) in out's shape) so that loss = sum(out * w) as in the generator.
inline Tensor weights_like(const Tensor& out) {
  return linspace(-1.0, 2.0, out.numel(), TensorOptions(kFloat64)).reshape(out.sizes());
}

/// Checks the analytic gradients of loss = sum(f(inputs) * w) against central finite differences
/// (float64 inputs) and returns them.
inline std::vector<Tensor> gradcheck(const std::function<Tensor(const std::vector<Tensor>&)>& f,
                                     const std::vector<Tensor>& inputs_in, double eps = 1e-6, double tol = 1e-6) {
  std::vector<Tensor> inputs;
  for (const Tensor& t : inputs_in) inputs.push_back(t.detach().clone().requires_grad_());
  Tensor out = f(inputs);
  Tensor w = weights_like(out);
  (out * w).sum().backward();
  std::vector<Tensor> grads;
  for (size_t k = 0; k < inputs.size(); ++k) {
    Tensor g = inputs[k].grad();
    if (!g.defined()) g = zeros(inputs[k].sizes(), TensorOptions(kFloat64));
    grads.push_back(g);
    std::vector<Scalar> ga = g.tolist_flat();
    for (int64_t i = 0; i < inputs[k].numel(); ++i) {
      auto loss_at = [&](double delta) {
        NoGradGuard ng;
        std::vector<Tensor> pert;
        for (const Tensor& t : inputs) pert.push_back(t.detach().clone());
        pert[k].data_ptr<double>()[i] += delta;
        return (f(pert) * w).sum().item<double>();
      };
      double numeric = (loss_at(eps) - loss_at(-eps)) / (2 * eps);
      EXPECT_NEAR(ga[i].to_double(), numeric, tol) << "input " << k << " element " << i;
    }
  }
  return grads;
}

}  // namespace idx_test
