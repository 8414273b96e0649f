// Small helpers shared by the C++ test suites: tensors from initializer lists, element access
// as double, seeded random inputs and a tolerant comparison that prints both tensors on failure.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include "adept/adept.h"

namespace adept::testing {

/// Tensor of `shape` from row-major values (converted to `dtype`).
inline Tensor T(std::initializer_list<double> values, const Shape& shape, Dtype dtype = kFloat32) {
  Tensor t = tensor(std::vector<double>(values), TensorOptions(kFloat64)).to(dtype);
  return t.reshape(shape);
}
/// 1-d tensor from values.
inline Tensor T(std::initializer_list<double> values, Dtype dtype = kFloat32) {
  return tensor(std::vector<double>(values), TensorOptions(kFloat64)).to(dtype);
}
/// 1-d int64 tensor.
inline Tensor I(std::initializer_list<int64_t> values, Dtype dtype = kInt64) {
  return tensor(std::vector<int64_t>(values)).to(dtype);
}

/// Elements in row-major order as doubles (bools 0/1).
inline std::vector<double> values(const Tensor& t) {
  std::vector<double> out;
  for (const Scalar& s : t.tolist_flat()) out.push_back(s.to_double());
  return out;
}
/// Elements as int64.
inline std::vector<int64_t> ivalues(const Tensor& t) {
  std::vector<int64_t> out;
  for (const Scalar& s : t.tolist_flat()) out.push_back(s.to_int64());
  return out;
}

inline std::string shape_str(const Shape& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

/// Seeded uniform tensor on [lo, hi).
inline Tensor uniform(const Shape& shape, double lo = -1, double hi = 1, Dtype dtype = kFloat64, uint64_t seed = 0) {
  Generator g(seed + 12345);
  Tensor t = empty(shape, TensorOptions(dtype));
  uniform_(t, lo, hi, &g);
  return t;
}

/// True when a == b element-wise within atol + rtol*|b|; NaNs must match NaNs, infinities
/// must match exactly (including sign). Reports the first mismatch and both tensors.
inline ::testing::AssertionResult close(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8) {
  if (a.sizes() != b.sizes()) {
    return ::testing::AssertionFailure() << "shapes differ: " << shape_str(a.sizes()) << " vs " << shape_str(b.sizes());
  }
  auto va = values(a), vb = values(b);
  for (size_t i = 0; i < va.size(); ++i) {
    double x = va[i], y = vb[i];
    bool ok = (std::isnan(x) && std::isnan(y)) || (std::isinf(y) && x == y) ||
              (!std::isinf(y) && !std::isnan(y) && std::abs(x - y) <= atol + rtol * std::abs(y));
    if (!ok) {
      std::ostringstream os;
      os << "element " << i << ": " << x << " vs expected " << y << "\nactual: " << a << "\nexpected: " << b;
      return ::testing::AssertionFailure() << os.str();
    }
  }
  return ::testing::AssertionSuccess();
}

/// Exact element equality (NaN == NaN), dtype and shape included.
inline ::testing::AssertionResult same(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype()) {
    return ::testing::AssertionFailure() << "dtypes differ: " << dtype_name(a.dtype()) << " vs " << dtype_name(b.dtype());
  }
  return close(a, b, 0, 0);
}

/// A non-contiguous tensor holding the same values as `t`: a transposed copy transposed back.
inline Tensor noncontig(const Tensor& t) {
  if (t.dim() < 2) {
    Tensor big = empty({t.numel() * 2}, TensorOptions(t.dtype()));
    Tensor v = big.slice(0, 0, std::nullopt, 2).view(t.sizes());
    NoGradGuard ng;
    v.copy_(t);
    return v;
  }
  NoGradGuard ng;
  return t.transpose(0, 1).contiguous().transpose(0, 1);
}

}  // namespace adept::testing
