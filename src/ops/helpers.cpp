// Internal helpers shared by op implementations.
#include "ops/helpers.h"

#include <algorithm>

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
  if (!is_grad_enabled()) return;
  if (self.requires_grad() && self.is_leaf()) {
    throw AutogradError(fmt::format("{}: a leaf Variable that requires grad is being used in an in-place "
                                    "operation.", op));
  }
  if (const auto& base = self.impl()->view_base; base && base->autograd && base->autograd->requires_grad &&
                                                 !base->autograd->grad_fn) {
    throw AutogradError(fmt::format("{}: a view of a leaf Variable that requires grad is being used in an "
                                    "in-place operation.", op));
  }
}

namespace {

// Base-linear (row-major) index of each element of a view (sizes/strides/offset in storage
// elements) of `base`: an int64 CPU tensor shaped like the view.
Tensor view_positions_in_base(const Shape& bsizes, const Shape& bstrides, int64_t boff, const Shape& vsizes,
                              const Shape& vstrides, int64_t voff) {
  int64_t bnumel = 1;
  for (int64_t s : bsizes) bnumel *= s;
  // Storage position -> base-linear index over the span the base covers.
  int64_t lo = boff, hi = boff;
  for (size_t d = 0; d < bsizes.size(); ++d) hi += (bsizes[d] - 1) * bstrides[d];
  std::vector<int64_t> inv(static_cast<size_t>(std::max<int64_t>(hi - lo + 1, 0)), -1);
  Shape idx(bsizes.size(), 0);
  for (int64_t i = 0; i < bnumel; ++i) {
    int64_t p = boff;
    for (size_t d = 0; d < idx.size(); ++d) p += idx[d] * bstrides[d];
    inv[p - lo] = i;
    for (int64_t d = static_cast<int64_t>(idx.size()) - 1; d >= 0; --d) {
      if (++idx[d] < bsizes[d]) break;
      idx[d] = 0;
    }
  }
  Tensor out = empty(vsizes, TensorOptions(kInt64));
  int64_t* o = out.data_ptr<int64_t>();
  const int64_t n = out.numel();
  Shape vi(vsizes.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t p = voff;
    for (size_t d = 0; d < vi.size(); ++d) p += vi[d] * vstrides[d];
    const int64_t at = p - lo;
    if (at < 0 || at >= static_cast<int64_t>(inv.size()) || inv[at] < 0) {
      throw AutogradError("in-place write through a view that reaches outside its base's elements is not "
                          "supported with autograd");
    }
    o[i] = inv[at];
    for (int64_t d = static_cast<int64_t>(vi.size()) - 1; d >= 0; --d) {
      if (++vi[d] < vsizes[d]) break;
      vi[d] = 0;
    }
  }
  return out;
}

// Records that the view `self` of `base` now holds `result`: the base's history becomes
// CopySlices(old base history, result), which sends the gradient of the view's region to
// `result` and the rest to the base's old value (PyTorch's CopySlices).
void rebase_base_on_view_write(const Tensor& base, const Tensor& self, const Tensor& result) {
  const Shape bsizes = base.sizes(), bstrides = base.strides(), vsizes = self.sizes(), vstrides = self.strides();
  const int64_t boff = base.storage_offset(), voff = self.storage_offset();
  const Dtype rdtype = result.dtype();
  autograd::record("CopySlices", {base, result}, {base}, [=](const std::vector<Tensor>& g) {
    Tensor pos = view_positions_in_base(bsizes, bstrides, boff, vsizes, vstrides, voff);
    Tensor mask = zeros({g[0].numel()}, TensorOptions(kBool));
    bool* m = mask.data_ptr<bool>();
    const int64_t* p = pos.data_ptr<int64_t>();
    for (int64_t i = 0; i < pos.numel(); ++i) m[p[i]] = true;
    const Device dev = g[0].device();
    Tensor g_base = masked_fill(g[0], mask.view(bsizes).to(dev), Scalar(0));
    Tensor g_view = index_select(g[0].reshape({-1}), 0, pos.reshape({-1}).to(dev)).view(vsizes).to(rdtype);
    return std::vector<Tensor>{g_base, g_view};
  });
}

}  // namespace

Tensor& commit_inplace(Tensor& self, const Tensor& result, const char* op) {
  copy_kernel().get(self.device(), op)(self, result);
  self.impl()->storage->bump_version();
  if (!result.requires_grad()) return self;
  if (const auto& base = self.impl()->view_base) {
    // The view's own history is re-derived from the base's on next use (refresh_view).
    rebase_base_on_view_write(Tensor(base), self, result);
    return self;
  }
  auto* impl = self.impl();
  if (!impl->autograd) impl->autograd = std::make_unique<AutogradMeta>();
  auto* rm = result.impl()->autograd.get();
  impl->autograd->requires_grad = true;
  impl->autograd->grad_fn = rm->grad_fn;
  impl->autograd->output_nr = rm->output_nr;
  return self;
}

Tensor fresh_result(Tensor t) {
  t.impl()->is_view = false;
  t.impl()->view_base = nullptr;
  return t;
}

bool is_non_overlapping_and_dense(const Tensor& t) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) of dims with size > 1
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.size(d) == 0) return true;
    if (t.size(d) != 1) dims.emplace_back(t.stride(d), t.size(d));
  }
  std::sort(dims.begin(), dims.end());
  int64_t expected = 1;
  for (auto [stride, size] : dims) {
    if (stride != expected) return false;
    expected *= size;
  }
  return true;
}

Tensor empty_like_layout(const Tensor& x, Dtype dtype, Device device) {
  TensorOptions o = TensorOptions(dtype).set_device(device);
  if (x.is_contiguous() || x.numel() == 0 || !is_non_overlapping_and_dense(x)) return empty(x.sizes(), o);
  return empty_strided(x.sizes(), x.strides(), o);
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
