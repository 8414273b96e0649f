// Automatic mixed precision (torch.autocast, PyTorch's "Automatic Mixed Precision package"): inside an autocast
// region for a device type, ops on that device run in a per-op dtype, following PyTorch's op lists (its CUDA
// lists for Vulkan, its CPU lists for the CPU):
//   - matrix products and convolutions (conv2d, conv2d_silu, conv_transpose2d, linear, matmul, mm, bmm, addmm)
//     cast their floating inputs to the region's low-precision dtype;
//   - the losses of nn::functional (mse, l1, smooth_l1, huber, nll, cross_entropy, binary_cross_entropy_with_logits)
//     and prod cast them to float32;
//   - on Vulkan also softmax, log_softmax, sum, cumsum, cumprod (unless given a dtype), norm, logsumexp,
//     layer_norm, group_norm, exp, log, log2, log1p, expm1, rsqrt, reciprocal, pow, tan and softplus run in
//     float32 (on the CPU they stay in bfloat16, as PyTorch's CPU autocast leaves them);
//   - binary_cross_entropy raises in a Vulkan region (CUDA's rule: use binary_cross_entropy_with_logits) and runs
//     in float32 in a CPU region;
//   - every other op runs in its inputs' dtype (batch_norm in training computes float32 statistics and returns
//     the input's dtype).
// float64 tensors, tensors of other device types and operands spread over two devices are never cast. An op that
// casts runs its own body with autocast off, so its internals are not cast again. Casts are differentiable (the
// gradient returns in the original dtype); the autograd engine runs backward with autocast off on the calling
// thread, so backward ops run in the dtypes of the forward. The state is per thread.
#pragma once
#include <optional>

#include "adept/device.h"
#include "adept/dtype.h"

namespace adept {

/// Whether autocast is on for `type` on the calling thread (torch.is_autocast_enabled(device_type)).
bool is_autocast_enabled(DeviceType type);
/// The low-precision dtype of `type`'s regions (torch.get_autocast_dtype): float16 for Vulkan and bfloat16 for the
/// CPU unless set.
Dtype get_autocast_dtype(DeviceType type);
void set_autocast_enabled(DeviceType type, bool enabled);
/// Throws DtypeError unless `dtype` is float16 or bfloat16.
void set_autocast_dtype(DeviceType type, Dtype dtype);

/// RAII autocast region (torch.autocast(device_type, dtype=None, enabled=True)): sets the device type's state for
/// its scope and restores the previous one. `dtype` unset keeps the current dtype.
class AutocastGuard {
 public:
  explicit AutocastGuard(DeviceType type, std::optional<Dtype> dtype = std::nullopt, bool enabled = true);
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  DeviceType type_;
  bool prev_enabled_;
  Dtype prev_dtype_;
};

}  // namespace adept
