// TensorImpl geometry and the Tensor handle's metadata accessors.
#include <memory>

#include "adept/tensor.h"

namespace adept {

int64_t TensorImpl::numel() const {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

bool TensorImpl::is_contiguous() const {
  int64_t expected = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    if (sizes[d] == 0) return true;
    if (sizes[d] != 1 && strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

void* TensorImpl::data() const {
  ADEPT_CHECK(storage->device().is_cpu(), DeviceError,
              "data_ptr: a tensor on '{}' has no host pointer; copy it with .cpu() first", storage->device().str());
  if (!storage->data()) return nullptr;
  return static_cast<char*>(storage->data()) + storage_offset * static_cast<int64_t>(element_size(dtype));
}

int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  int64_t n = std::max<int64_t>(ndim, 1);
  if (dim < -n || dim >= n) {
    throw IndexError(fmt::format("{}: dimension out of range (expected to be in range of [{}, {}], but got {})", op,
                                 -n, n - 1, dim));
  }
  return dim < 0 ? dim + n : dim;
}

TensorImpl* Tensor::checked() const {
  ADEPT_CHECK(impl_ != nullptr, ValueError, "operation on an undefined tensor");
  return impl_.get();
}

namespace {

// wrap_dim for size(d) / stride(d): a 0-d tensor has no dimension to read (wrap_dim lets reductions treat it as
// 1-d), an IndexError as in PyTorch.
int64_t wrap_existing_dim(int64_t d, int64_t ndim, const char* op) {
  ADEPT_CHECK(ndim > 0, IndexError, "{}: Dimension specified as {} but tensor has no dimensions", op, d);
  return wrap_dim(d, ndim, op);
}

}  // namespace

int64_t Tensor::size(int64_t d) const { return sizes()[wrap_existing_dim(d, dim(), "size")]; }
int64_t Tensor::stride(int64_t d) const { return strides()[wrap_existing_dim(d, dim(), "stride")]; }

}  // namespace adept
