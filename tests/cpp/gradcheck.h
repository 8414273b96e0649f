// Finite-difference gradient checker (float64, central differences, one element at a time).
// It compares the vector-Jacobian product that autograd computes for a random output weight v
// with (f(x + eps e_j) . v - f(x - eps e_j) . v) / (2 eps) for every element j of every input
// that requires grad. Inputs may be non-contiguous (the autograd pass sees them as given; the
// numeric pass uses contiguous copies of the same values).
#pragma once
#include <gtest/gtest.h>

#include <functional>
#include <sstream>
#include <vector>

#include "adept/adept.h"

namespace adept::testing {

struct GradcheckOptions {
  double eps = 1e-6;
  double atol = 1e-5;
  double rtol = 1e-4;
  uint64_t seed = 7;
};

using GradFn = std::function<Tensor(const std::vector<Tensor>&)>;

/// Checks autograd's gradients of f at `inputs` (float64; those with requires_grad are checked).
inline ::testing::AssertionResult gradcheck(const GradFn& f, const std::vector<Tensor>& inputs,
                                            const GradcheckOptions& o = {}) {
  std::vector<Tensor> diff;
  std::vector<size_t> diff_idx;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].defined() || !inputs[i].requires_grad()) continue;
    if (inputs[i].dtype() != kFloat64) {
      return ::testing::AssertionFailure() << "input " << i << " must be float64 for gradcheck";
    }
    diff.push_back(inputs[i]);
    diff_idx.push_back(i);
  }
  if (diff.empty()) return ::testing::AssertionFailure() << "no input requires grad";
  Tensor out = f(inputs);
  if (!out.requires_grad()) return ::testing::AssertionFailure() << "output does not require grad";
  Generator gen(o.seed);
  Tensor v = empty(out.sizes(), TensorOptions(out.dtype()));
  uniform_(v, 0.5, 1.5, &gen);
  std::vector<Tensor> analytic = autograd::grad({out}, diff, {v}, std::nullopt, false, /*allow_unused=*/true);

  // Scalar objective on plain (no-grad) copies.
  std::vector<Tensor> plain;
  for (const Tensor& t : inputs) plain.push_back(t.defined() ? t.detach().clone().contiguous() : t);
  Tensor vd = v.to(kFloat64);
  auto objective = [&]() {
    NoGradGuard ng;
    return sum(mul(f(plain).to(kFloat64), vd)).item<double>();
  };
  std::ostringstream errors;
  int n_err = 0;
  for (size_t k = 0; k < diff.size(); ++k) {
    const size_t i = diff_idx[k];
    Tensor a = analytic[k].defined() ? analytic[k] : zeros_like(diff[k]);
    if (a.sizes() != diff[k].sizes() || a.dtype() != diff[k].dtype()) {
      return ::testing::AssertionFailure() << "gradient of input " << i << " has the wrong shape or dtype";
    }
    std::vector<double> av;
    for (const Scalar& s : a.contiguous().tolist_flat()) av.push_back(s.to_double());
    double* p = plain[i].data_ptr<double>();
    for (int64_t j = 0; j < plain[i].numel(); ++j) {
      const double x0 = p[j];
      p[j] = x0 + o.eps;
      double fp = objective();
      p[j] = x0 - o.eps;
      double fm = objective();
      p[j] = x0;
      double num = (fp - fm) / (2 * o.eps);
      if (!(std::abs(av[j] - num) <= o.atol + o.rtol * std::abs(num))) {
        if (n_err++ < 5) errors << "  input " << i << " element " << j << " (x=" << x0 << "): autograd " << av[j] << ", numeric " << num << "\n";
      }
    }
  }
  if (n_err) return ::testing::AssertionFailure() << n_err << " gradient element(s) differ:\n" << errors.str();
  return ::testing::AssertionSuccess();
}

}  // namespace adept::testing
