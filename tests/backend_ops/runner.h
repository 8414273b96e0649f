// Internals of adept_test_backend_ops shared by its source files: input generation and layouts
// (inputs.cpp), comparison (compare.cpp) and the modes (modes.cpp).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "harness.h"

namespace adept::backend_ops {

/// Stable 64-bit FNV-1a hash, so seeds do not depend on the standard library.
uint64_t stable_hash(const std::string& s);

/// Contiguous CPU tensors with the values of each input of `c` for `dtype` (seeded).
Tensors generate_inputs(const Case& c, const std::vector<Shape>& shapes, Dtype dtype, uint64_t seed);

bool layout_applies(Layout l, const Shape& s);
/// An input in a layout: `base` is contiguous; view(base moved anywhere) has the layout.
struct Placed {
  Tensor base;
  std::function<Tensor(const Tensor&)> view;
};
Placed place(const Tensor& values, Layout l);

/// Tolerance (rtol, atol) of a dtype; atol is scaled by max(1, max |reference|).
struct Tol {
  double rtol, atol;
};
Tol dtype_tol(Dtype d);

/// "" when `got` matches `ref` (dtype, shape, values as `how` says), else what differs: max
/// abs/rel error and the first mismatching index.
std::string compare_tensors(const Tensor& got, const Tensor& ref, Tol tol, Compare how);

enum class Status { Pass, Fail, NotImpl, Skip };
const char* status_name(Status s);

/// The outcome of one case in one dtype, layout, backend and mode.
struct Result {
  std::string op, label, backend, mode;
  Dtype dtype = kFloat32;
  Layout layout = Layout::Contiguous;
  Status status = Status::Pass;
  std::string message;
  bool input_not_on_device = false;  // NotImpl raised by moving an input to the device, before the op
};

/// forward / backward on `device` against the CPU (on the CPU: against float64 contiguous copies).
Result run_forward(const Case& c, Dtype dtype, Layout layout, Device device);
Result run_backward(const Case& c, Dtype dtype, Layout layout, Device device);
/// Central finite differences vs autograd, CPU, float64, contiguous.
Result run_gradcheck(const Case& c);
/// Times the case at its perf size on `device`; prints one line.
void run_perf(const Case& c, Device device);

std::string device_name(Device d);

}  // namespace adept::backend_ops
