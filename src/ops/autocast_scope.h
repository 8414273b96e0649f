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
  Lower,    // cast to the region's float16 / bfloat16
  Float32,  // cast to float32
  Exclude,  // cast nothing, only keep autocast off inside (composites of cast
            // ops that PyTorch runs natively)
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

/// True when a region is on for the device type of some defined operand and no op is casting.
bool applies(std::initializer_list<const Tensor*> operands);

}  // namespace adept::autocast
