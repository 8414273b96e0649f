// Tensor.data assignment (see adept/set_data.h).
#include "adept/set_data.h"

#include "adept/errors.h"

namespace adept {

void set_data(const Tensor& dst, const Tensor& src) {
  ADEPT_CHECK(dst.defined() && src.defined(), ValueError, "set_data: both tensors must be defined");
  TensorImpl* d = dst.impl();
  const TensorImpl* s = src.impl();
  if (d == s) return;
  d->storage = s->storage;
  d->sizes = s->sizes;
  d->strides = s->strides;
  d->storage_offset = s->storage_offset;
  d->dtype = s->dtype;
  d->is_view = false;
  d->view_base = nullptr;
}

}  // namespace adept
