// How an op applies autocast (include/adept/ops/autocast.h). An op of a cast list starts with
//   if (autocast::Scope s(autocast::Policy::Lower, {&a, &b}); s) return op(s[0], s[1], ...);
// When autocast applies to the operands, the Scope holds them cast and keeps autocast off for the rest of its life
// (the recursive call and everything it runs); otherwise it is false and costs one thread-local read.
#pragma once
#include <array>
#include <initializer_list>

#include "adept/tensor.h"

namespace adept::autocast {

enum class Policy {
  Lower,       // cast to the region's float16 / bfloat16 (both device types)
  Float32,     // cast to float32 (both device types: the losses, prod)
  Float32Gpu,  // cast to float32 in Vulkan regions only (PyTorch's CUDA list: softmax, sum, exp, norms, ...;
               // its CPU list leaves them in bfloat16)
  Exclude,     // cast nothing, only keep autocast off inside (composites of cast ops that PyTorch runs natively)
};

class Scope {
 public:
  /// Undefined tensors stay undefined. At most 4 operands.
  Scope(Policy policy, std::initializer_list<const Tensor*> operands);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;
  explicit operator bool() const { return active_; }
  const Tensor& operator[](size_t i) const { return cast_[i]; }

 private:
  bool active_ = false;
  std::array<Tensor, 4> cast_;
};

/// Keeps autocast off for its scope (the autograd engine holds one while it runs backward).
class Suspend {
 public:
  Suspend();
  ~Suspend();
  Suspend(const Suspend&) = delete;
  Suspend& operator=(const Suspend&) = delete;

 private:
  bool prev_;
};

/// True when autocast applies to an op of `policy` on these operands: no op is casting, the defined operands
/// share one device (0-d CPU tensors aside; mixed devices are left to the op's own error) and a region is on
/// for its type (for Float32Gpu: a Vulkan region).
bool applies(Policy policy, std::initializer_list<const Tensor*> operands);

}  // namespace adept::autocast
