// Definitions of the kernel-family tables declared in kernels.h.
#include "ops/kernels.h"

namespace adept {

Tensor restrided(const Tensor& t, Shape sizes, Shape strides, int64_t storage_offset) {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = t.impl()->storage;
  impl->sizes = std::move(sizes);
  impl->strides = std::move(strides);
  impl->storage_offset = storage_offset;
  impl->dtype = t.dtype();
  return Tensor(impl);
}

ADEPT_DEFINE_KERNEL(copy_kernel, void(const Tensor&, const Tensor&))
ADEPT_DEFINE_KERNEL(fill_kernel, void(const Tensor&, const Scalar&))
ADEPT_DEFINE_KERNEL(unary_kernel, void(UnaryOp, const Tensor&, const Tensor&, const UnaryParams&))
ADEPT_DEFINE_KERNEL(binary_kernel, void(BinaryOp, const Tensor&, const Tensor&, const Tensor&))
ADEPT_DEFINE_KERNEL(where_kernel, void(const Tensor&, const Tensor&, const Tensor&, const Tensor&))
ADEPT_DEFINE_KERNEL(silu_backward_kernel, void(const Tensor&, const Tensor&, const Tensor&))
ADEPT_DEFINE_KERNEL(reduce_kernel, void(ReduceOp, const Tensor&, const Tensor&, uint64_t))
ADEPT_DEFINE_KERNEL(bmm_kernel, void(const Tensor&, const Tensor&, const Tensor&))
ADEPT_DEFINE_KERNEL(scan_kernel, void(const Tensor&, const Tensor&, int64_t, bool))
ADEPT_DEFINE_KERNEL(to_host_kernel, void(void*, const Tensor&))
ADEPT_DEFINE_KERNEL(from_host_kernel, void(const Tensor&, const void*))
}  // namespace adept

namespace adept {
ADEPT_DEFINE_KERNEL(gather_kernel, void(const Tensor&, const Tensor&, int64_t, const Tensor&))
ADEPT_DEFINE_KERNEL(scatter_kernel, void(const Tensor&, int64_t, const Tensor&, const Tensor&, bool))
}  // namespace adept

namespace adept {
ADEPT_DEFINE_KERNEL(index_kernel, void(const Tensor&, const Tensor&, const Tensor&))
ADEPT_DEFINE_KERNEL(index_put_kernel, void(const Tensor&, const Tensor&, const Tensor&, bool))
ADEPT_DEFINE_KERNEL(nonzero_kernel, void(const Tensor&, const Tensor&))
ADEPT_DEFINE_KERNEL(sort_kernel, void(const Tensor&, const Tensor&, const Tensor&, bool, int64_t))
}  // namespace adept
