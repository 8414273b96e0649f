// Tensor creation. All take an optional dtype (default float32 unless noted) and device.
#pragma once
#include <optional>
#include <vector>

#include "adept/tensor.h"

namespace adept {

/// Options for creation functions: dtype, device and requires_grad (torch's keyword arguments).
struct TensorOptions {
  std::optional<Dtype> dtype;
  Device device = kCPU;
  bool requires_grad = false;
  TensorOptions() = default;
  TensorOptions(Dtype d) : dtype(d) {}    // NOLINT
  TensorOptions(Device d) : device(d) {}  // NOLINT
  TensorOptions& set_dtype(Dtype d) { dtype = d; return *this; }
  TensorOptions& set_device(Device d) { device = d; return *this; }
  TensorOptions& set_requires_grad(bool r) { requires_grad = r; return *this; }
};

/// Uninitialised tensor of `shape` (contiguous). Throws ValueError for a negative size.
Tensor empty(const Shape& shape, const TensorOptions& o = {});
/// Tensor with the given sizes and strides (elements); storage sized to fit.
Tensor empty_strided(const Shape& shape, const Shape& strides, const TensorOptions& o = {});
Tensor zeros(const Shape& shape, const TensorOptions& o = {});
Tensor ones(const Shape& shape, const TensorOptions& o = {});
/// Filled with `value`; dtype defaults to value's (bool, int64 or float32).
Tensor full(const Shape& shape, const Scalar& value, const TensorOptions& o = {});
Tensor empty_like(const Tensor& t, const TensorOptions& o = {});
Tensor zeros_like(const Tensor& t, const TensorOptions& o = {});
Tensor ones_like(const Tensor& t, const TensorOptions& o = {});
Tensor full_like(const Tensor& t, const Scalar& value, const TensorOptions& o = {});
/// Values start, start+step, ... < end; dtype int64 when all arguments are integers, else float32.
Tensor arange(const Scalar& end, const TensorOptions& o = {});
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step = 1, const TensorOptions& o = {});
/// `steps` evenly spaced values from start to end inclusive.
Tensor linspace(double start, double end, int64_t steps, const TensorOptions& o = {});
/// (n, m) identity-like matrix; m defaults to n.
Tensor eye(int64_t n, std::optional<int64_t> m = std::nullopt, const TensorOptions& o = {});
/// 0-d tensor holding `value` (dtype from the scalar unless given).
Tensor scalar_tensor(const Scalar& value, const TensorOptions& o = {});
/// Copies `shape`-many elements of dtype from a host buffer (row-major) into a new tensor.
Tensor from_blob_copy(const void* data, const Shape& shape, Dtype dtype, Device device = kCPU);
/// 1-d tensors from C++ values.
Tensor tensor(const std::vector<double>& values, const TensorOptions& o = {});
Tensor tensor(const std::vector<int64_t>& values, const TensorOptions& o = {});
Tensor tensor(const std::vector<float>& values, const TensorOptions& o = {});
Tensor tensor(const std::vector<bool>& values, const TensorOptions& o = {});

}  // namespace adept
