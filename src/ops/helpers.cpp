// Internal helpers shared by op implementations.
#include "ops/helpers.h"

namespace adept {

Device check_same_device(const char* op, std::initializer_list<const Tensor*> ts) {
  // As in PyTorch, 0-d CPU tensors may take part in ops on another device (they are scalars).
  const Tensor* main = nullptr;
  for (const Tensor* t : ts) {
    if (t->defined() && (!main || (main->device().is_cpu() && main->dim() == 0 && !t->device().is_cpu()))) main = t;
  }
  if (!main) return kCPU;
  for (const Tensor* t : ts) {
    if (!t->defined() || t->device() == main->device()) continue;
    if (t->device().is_cpu() && t->dim() == 0) continue;
    throw DeviceError(fmt::format("{}: expected all tensors to be on the same device, but found at least two "
                                  "devices, {} and {}", op, main->device().str(), t->device().str()));
  }
  return main->device();
}

std::string shape_str(const Shape& s) { return fmt::format("[{}]", fmt::join(s, ", ")); }

Tensor sum_to(const Tensor& g, const Shape& shape) {
  if (g.sizes() == shape) return g;
  const int64_t lead = g.dim() - static_cast<int64_t>(shape.size());
  Shape dims;
  for (int64_t d = 0; d < g.dim(); ++d) {
    if (d < lead || (shape[d - lead] == 1 && g.size(d) != 1)) dims.push_back(d);
  }
  Tensor r = dims.empty() ? g : sum(g, dims, true);
  return r.view(shape);
}

bool has_internal_overlap(const Tensor& t) {
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.stride(d) == 0 && t.size(d) > 1) return true;
  }
  return false;
}

void check_inplace(const Tensor& self, const char* op) {
  ADEPT_CHECK(!has_internal_overlap(self), ValueError,
              "{}: unsupported operation: the input tensor (shape {}, strides {}) has overlapping memory "
              "(e.g. it was made by expand); call .clone() before writing to it", op, shape_str(self.sizes()),
              shape_str(self.strides()));
  if (is_grad_enabled() && self.requires_grad() && self.is_leaf()) {
    throw AutogradError(fmt::format("{}: a leaf Variable that requires grad is being used in an in-place "
                                    "operation.", op));
  }
}

Tensor& commit_inplace(Tensor& self, const Tensor& result, const char* op) {
  if (result.requires_grad() && self.impl()->is_view) {
    throw AutogradError(fmt::format(
        "{}: in-place operation on a view with autograd history is not supported; use the out-of-place "
        "form (e.g. torch.where / cat) or clone() the view first", op));
  }
  copy_kernel().get(self.device(), op)(self, result);
  self.impl()->storage->bump_version();
  if (result.requires_grad()) {
    auto* impl = self.impl();
    if (!impl->autograd) impl->autograd = std::make_unique<AutogradMeta>();
    auto* rm = result.impl()->autograd.get();
    impl->autograd->requires_grad = true;
    impl->autograd->grad_fn = rm->grad_fn;
    impl->autograd->output_nr = rm->output_nr;
  }
  return self;
}

Tensor fresh_result(Tensor t) {
  t.impl()->is_view = false;
  return t;
}

Tensor wrap_scalar(const Scalar& s, Dtype dtype, Device device) {
  return full({}, s, TensorOptions(dtype).set_device(device));
}

uint64_t dims_mask(const Shape& dims, int64_t ndim, const char* op) {
  ADEPT_CHECK(ndim <= 64, ShapeError, "{}: tensors with more than 64 dims are not supported", op);
  if (dims.empty()) return ndim == 64 ? ~0ULL : ((1ULL << ndim) - 1);
  uint64_t mask = 0;
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, std::max<int64_t>(ndim, 1), op);
    if (ndim == 0) continue;
    ADEPT_CHECK(!((mask >> w) & 1), ValueError, "{}: dim {} appears multiple times in the list of dims", op, w);
    mask |= 1ULL << w;
  }
  return mask;
}

Shape keepdim_shape(const Shape& in, uint64_t mask) {
  Shape out = in;
  for (size_t d = 0; d < in.size(); ++d) {
    if ((mask >> d) & 1) out[d] = 1;
  }
  return out;
}

Shape squeeze_shape(const Shape& in, uint64_t mask) {
  Shape out;
  for (size_t d = 0; d < in.size(); ++d) {
    if (!((mask >> d) & 1)) out.push_back(in[d]);
  }
  return out;
}

}  // namespace adept
