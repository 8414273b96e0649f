// Kernel families that move data between the host and a device.
#pragma once
#include "adept/tensor.h"
#include "kernels/registry.h"

namespace adept {

/// Copies a device tensor to host memory (same dtype, src contiguous).
ADEPT_DECLARE_KERNEL(to_host_kernel, void(void* host_dst, const Tensor& src))
/// Copies host memory into a device tensor (same dtype, dst contiguous).
ADEPT_DECLARE_KERNEL(from_host_kernel, void(const Tensor& dst, const void* host_src))

}  // namespace adept
