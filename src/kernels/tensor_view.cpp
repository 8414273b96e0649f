// Kernel-side tensors: aliases and temporaries without ops or autograd.
#include "kernels/tensor_view.h"

#include "kernels/pointwise.h"

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

Tensor narrow_view(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  Shape sizes = t.sizes();
  sizes[dim] = length;
  return restrided(t, sizes, t.strides(), t.storage_offset() + start * t.strides()[dim]);
}

Tensor select_view(const Tensor& t, int64_t dim, int64_t index) {
  Shape sizes = t.sizes(), strides = t.strides();
  const int64_t offset = t.storage_offset() + index * strides[dim];
  sizes.erase(sizes.begin() + dim);
  strides.erase(strides.begin() + dim);
  return restrided(t, sizes, strides, offset);
}

Tensor unsqueeze_view(const Tensor& t, int64_t dim) {
  Shape sizes = t.sizes(), strides = t.strides();
  const int64_t stride = dim < t.dim() ? strides[dim] * sizes[dim] : 1;
  sizes.insert(sizes.begin() + dim, 1);
  strides.insert(strides.begin() + dim, stride);
  return restrided(t, sizes, strides, t.storage_offset());
}

Tensor kernel_buffer(const Shape& sizes, Dtype dtype, Device device) {
  auto impl = std::make_shared<TensorImpl>();
  impl->sizes = sizes;
  impl->strides.assign(sizes.size(), 1);
  int64_t n = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    impl->strides[i] = n;
    n *= std::max<int64_t>(sizes[i], 1);
  }
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  impl->storage = Storage::allocate(static_cast<size_t>(numel) * element_size(dtype), device);
  impl->dtype = dtype;
  return Tensor(impl);
}

Tensor contiguous_buffer(const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor c = kernel_buffer(t.sizes(), t.dtype(), t.device());
  copy_kernel().get(t.device(), "contiguous")(c, t);
  return c;
}

}  // namespace adept
