// pad: constant (negative pads crop), reflect, replicate and circular, as torch.nn.functional.pad.
#include "ops/helpers.h"

namespace adept {

using autograd::record;
using Grads = std::vector<Tensor>;

Tensor pad(const Tensor& x, const Shape& pads, const std::string& mode, double value) {
  ADEPT_CHECK(pads.size() % 2 == 0, ValueError, "pad: padding length must be divisible by 2, got {}", pads.size());
  const int64_t np = static_cast<int64_t>(pads.size()) / 2;
  ADEPT_CHECK(np <= x.dim(), ValueError, "pad: padding length too large ({} values for a {}-d input)", pads.size(), x.dim());
  if (mode == "constant") {
    Shape out_shape = x.sizes();
    for (int64_t i = 0; i < np; ++i) {
      int64_t d = x.dim() - 1 - i;
      out_shape[d] += pads[2 * i] + pads[2 * i + 1];
      ADEPT_CHECK(out_shape[d] >= 0, ValueError,
                  "pad: the input size {} plus negative padding {} and {} resulted in a negative output size for dim {}",
                  x.size(d), pads[2 * i], pads[2 * i + 1], d);
    }
    Tensor out = full(out_shape, value, TensorOptions(x.dtype()).set_device(x.device()));
    Tensor dst = out.detach(), src = x.detach();
    for (int64_t i = 0; i < np; ++i) {
      int64_t d = x.dim() - 1 - i, l = pads[2 * i], r = pads[2 * i + 1];
      int64_t src_start = std::max<int64_t>(-l, 0), src_stop = x.size(d) - std::max<int64_t>(-r, 0);
      int64_t len = std::max<int64_t>(src_stop - src_start, 0);
      src = src.narrow(d, std::min(src_start, x.size(d)), len);
      dst = dst.narrow(d, std::max<int64_t>(l, 0), len);
    }
    if (src.numel() > 0) copy_kernel().get(x.device(), "pad")(dst, src);
    if (autograd::needs_grad({&x})) {
      Shape neg;
      for (int64_t p : pads) neg.push_back(-p);
      record("ConstantPadNdBackward0", {x}, {out}, [neg](const Grads& g) { return Grads{pad(g[0], neg)}; });
    }
    return out;
  }
  // PyTorch raises NotImplementedError for an unknown mode.
  ADEPT_CHECK(mode == "reflect" || mode == "replicate" || mode == "circular", NotImplementedForDevice,
              "pad: unrecognised padding mode '{}' (expected constant, reflect, replicate or circular)", mode);
  if (mode != "circular") {
    // Only a leading batch dim may be empty (the dims before it are treated as batch dims too).
    for (int64_t k = std::max<int64_t>(x.dim() - np - 1, 0); k < x.dim(); ++k) {
      ADEPT_CHECK(x.size(k) > 0, ShapeError,
                  "pad: {} padding expects a tensor with a possibly empty batch dim and non-empty other dims, but "
                  "got {}", mode, shape_str(x.sizes()));
    }
  }
  Tensor out = x;
  for (int64_t i = 0; i < np; ++i) {
    int64_t d = x.dim() - 1 - i, l = pads[2 * i], r = pads[2 * i + 1], n = x.size(d);
    if (l == 0 && r == 0) continue;
    if (mode == "reflect") {
      ADEPT_CHECK(l < n && r < n && l >= 0 && r >= 0, ValueError,
                  "pad: padding size should be less than the corresponding input dimension, but got: padding ({}, {}) "
                  "at dimension {} of input {}", l, r, d, shape_str(x.sizes()));
    } else {
      ADEPT_CHECK(n > 0 && l >= 0 && r >= 0 && (mode != "circular" || (l <= n && r <= n)), ValueError,
                  "pad: invalid padding ({}, {}) for dimension {} of size {} in mode {}", l, r, d, n, mode);
    }
    Tensor idx = empty({n + l + r}, TensorOptions(kInt64));
    int64_t* p = idx.data_ptr<int64_t>();
    for (int64_t j = -l; j < n + r; ++j) {
      int64_t k = j;
      if (mode == "reflect") k = j < 0 ? -j : (j >= n ? 2 * (n - 1) - j : j);
      else if (mode == "replicate") k = std::clamp<int64_t>(j, 0, n - 1);
      else k = ((j % n) + n) % n;
      p[j + l] = k;
    }
    out = index_select(out, d, idx.to(x.device()));
  }
  return out;
}

}  // namespace adept
