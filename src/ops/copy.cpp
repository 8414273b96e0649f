// Copies and conversions: to(dtype|device), clone, contiguous, copy_, fill_, zero_, item.
#include "ops/helpers.h"

namespace adept {
namespace {

// Copies `src` into a new tensor of `dtype` on `device`, without autograd. Same-device copies keep
// the strides of a non-overlapping dense source unless `contiguous` (PyTorch's preserve_format).
Tensor convert_copy(const Tensor& src, Device device, Dtype dtype, bool contiguous = false) {
  if (src.device() == device) {
    Tensor out = contiguous ? empty(src.sizes(), TensorOptions(dtype).set_device(device))
                            : empty_like_layout(src, dtype, device);
    if (src.numel() == 0) return out;
    copy_kernel().get(device, "to")(out, src);
    return out;
  }
  Tensor out = empty(src.sizes(), TensorOptions(dtype).set_device(device));
  if (src.numel() == 0) return out;
  // Cross-device: go through a contiguous host buffer of the source dtype.
  Tensor s = src.contiguous();
  if (!s.device().is_cpu() && !device.is_cpu()) s = s.to(kCPU);
  if (s.device().is_cpu()) {
    Tensor staged = s.dtype() == dtype ? s : convert_copy(s, kCPU, dtype);
    from_host_kernel().get(device, "to")(out, staged.data_ptr());
  } else {
    Tensor host = empty(s.sizes(), TensorOptions(s.dtype()));
    to_host_kernel().get(s.device(), "to")(host.data_ptr(), s);
    out = host.dtype() == dtype ? host : convert_copy(host, kCPU, dtype);
  }
  return out;
}

}  // namespace

Tensor Tensor::to(Device device, Dtype dtype, bool copy) const {
  if (!copy && device == this->device() && dtype == this->dtype()) return *this;
  Tensor out = convert_copy(*this, device, dtype);
  if (autograd::needs_grad({this}) && adept::is_floating_point(dtype)) {
    Dtype src_dtype = this->dtype();
    Device src_device = this->device();
    autograd::record("ToCopyBackward0", {*this}, {out}, [src_dtype, src_device](const std::vector<Tensor>& g) {
      return std::vector<Tensor>{g[0].to(src_device, src_dtype)};
    });
  }
  return out;
}
Tensor Tensor::to(Dtype dtype, bool copy) const { return to(device(), dtype, copy); }
Tensor Tensor::to(Device device, bool copy) const { return to(device, dtype(), copy); }

namespace {
Tensor clone_impl(const Tensor& x, bool contiguous) {
  Tensor out = convert_copy(x, x.device(), x.dtype(), contiguous);
  autograd::record("CloneBackward0", {x}, {out}, [](const std::vector<Tensor>& g) { return g; });
  return out;
}
}  // namespace

Tensor Tensor::clone() const { return clone_impl(*this, false); }

Tensor Tensor::contiguous() const { return is_contiguous() ? *this : clone_impl(*this, true); }

Tensor& copy_(Tensor& dst, const Tensor& src) {
  check_inplace(dst, "copy_");
  // Across devices, convert on the source side first (the target may lack the source dtype).
  Tensor s = src.device() == dst.device() ? src : src.to(dst.device(), dst.dtype());
  Tensor b = s.expand(dst.sizes());
  if (autograd::needs_grad({&s, &dst})) {
    // dst's old values are overwritten: their gradient is zero; src gets the gradient (summed
    // over broadcast dims, in its own dtype) when it is floating point.
    Tensor result;
    {
      NoGradGuard ng;
      result = b.to(dst.dtype(), /*copy=*/true);
    }
    const Shape src_shape = s.sizes();
    const Dtype src_dtype = s.dtype();
    autograd::record("CopyBackwards", {dst, s}, {result}, [=](const std::vector<Tensor>& g) {
      Tensor gs = adept::is_floating_point(src_dtype) ? sum_to(g[0].to(src_dtype), src_shape) : Tensor();
      return std::vector<Tensor>{zeros_like(g[0]), gs};
    });
    return commit_inplace(dst, result, "copy_");
  }
  if (dst.numel() > 0) {
    // A source that reads the memory being written (e.g. x.copy_(x.t())) is copied out first.
    bool alias = b.impl()->storage == dst.impl()->storage &&
                 !(b.strides() == dst.strides() && b.storage_offset() == dst.storage_offset());
    copy_kernel().get(dst.device(), "copy_")(dst, alias ? b.clone() : b);
  }
  dst.impl()->storage->bump_version();
  return dst;
}

Tensor& Tensor::copy_(const Tensor& src) { return adept::copy_(*this, src); }

namespace {
// fill_ / zero_: under autograd the result is a constant recorded as `node` (zero gradient to
// the overwritten values), so the tensor keeps requires_grad as in PyTorch.
Tensor& fill_impl(Tensor& self, const Scalar& v, const char* op, const char* node) {
  check_inplace(self, op);
  if (is_grad_enabled() && self.requires_grad()) {
    Tensor result = full(self.sizes(), v, TensorOptions(self.dtype()).set_device(self.device()));
    autograd::record(node, {self}, {result}, [](const std::vector<Tensor>& g) {
      return std::vector<Tensor>{zeros_like(g[0])};
    });
    return commit_inplace(self, result, op);
  }
  if (self.numel() > 0) fill_kernel().get(self.device(), op)(self, v);
  self.impl()->storage->bump_version();
  return self;
}
}  // namespace

Tensor& Tensor::fill_(const Scalar& v) { return fill_impl(*this, v, "fill_", "FillBackward0"); }

Tensor& Tensor::zero_() { return fill_impl(*this, 0, "zero_", "ZeroBackward0"); }

Scalar Tensor::item() const {
  ADEPT_CHECK(numel() == 1, ValueError, "item: a Tensor with {} elements cannot be converted to Scalar", numel());
  Tensor c = to(kCPU).contiguous();
  Scalar out;
  ADEPT_DISPATCH_ALL(dtype(), "item", [&] {
    scalar_t v = *static_cast<const scalar_t*>(c.data_ptr());
    if constexpr (std::is_same_v<scalar_t, bool>) out = Scalar(v);
    else if constexpr (std::is_floating_point_v<compute_t<scalar_t>>) out = Scalar(static_cast<double>(static_cast<compute_t<scalar_t>>(v)));
    else out = Scalar(static_cast<int64_t>(v));
  });
  return out;
}

std::vector<Scalar> Tensor::tolist_flat() const {
  Tensor c = to(kCPU).contiguous();
  std::vector<Scalar> out;
  out.reserve(numel());
  ADEPT_DISPATCH_ALL(dtype(), "tolist", [&] {
    const scalar_t* p = static_cast<const scalar_t*>(c.data_ptr());
    for (int64_t i = 0; i < c.numel(); ++i) {
      if constexpr (std::is_same_v<scalar_t, bool>) out.emplace_back(p[i]);
      else if constexpr (std::is_floating_point_v<compute_t<scalar_t>>) out.emplace_back(static_cast<double>(static_cast<compute_t<scalar_t>>(p[i])));
      else out.emplace_back(static_cast<int64_t>(p[i]));
    }
  });
  return out;
}

}  // namespace adept
