// Joining and reordering copies: cat, stack, flip.
#include "ops/helpers.h"

namespace adept {

using autograd::record;
using Grads = std::vector<Tensor>;

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  ADEPT_CHECK(!tensors.empty(), ValueError, "cat: expected a non-empty list of Tensors");
  // Legacy rule kept by PyTorch: 1-d tensors of shape (0,) are ignored.
  std::vector<Tensor> parts;
  for (const Tensor& t : tensors) {
    if (!(t.dim() == 1 && t.size(0) == 0)) parts.push_back(t);
  }
  if (parts.empty()) {
    Tensor out = empty({0}, TensorOptions(result_type(tensors)).set_device(tensors[0].device()));
    return out;
  }
  const Tensor& ref = parts[0];
  ADEPT_CHECK(ref.dim() > 0, ShapeError, "cat: zero-dimensional tensor (at position 0) cannot be concatenated");
  int64_t d = wrap_dim(dim, ref.dim(), "cat");
  Shape shape = ref.sizes();
  int64_t total = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const Tensor& t = parts[i];
    ADEPT_CHECK(t.dim() == ref.dim(), ShapeError,
                "cat: tensors must have same number of dimensions: got {} and {}", ref.dim(), t.dim());
    for (int64_t k = 0; k < t.dim(); ++k) {
      ADEPT_CHECK(k == d || t.size(k) == ref.size(k), ShapeError,
                  "cat: sizes of tensors must match except in dimension {}. Expected size {} but got size {} for tensor "
                  "number {} in the list.", d, ref.size(k), t.size(k), i);
    }
    ADEPT_CHECK(t.device() == ref.device(), DeviceError,
                "cat: expected all tensors to be on the same device, but found {} and {}", ref.device().str(),
                t.device().str());
    total += t.size(d);
  }
  shape[d] = total;
  Tensor out = empty(shape, TensorOptions(result_type(parts)).set_device(ref.device()));
  {
    NoGradGuard ng;
    int64_t off = 0;
    for (const Tensor& t : parts) {
      if (t.numel() > 0) copy_kernel().get(out.device(), "cat")(out.narrow(d, off, t.size(d)), t);
      off += t.size(d);
    }
  }
  if (autograd::needs_grad(tensors)) {
    // Skipped (0,) inputs get an empty gradient, as in PyTorch; -1 marks them.
    std::vector<int64_t> sizes;
    std::vector<Dtype> dtypes;
    for (const Tensor& t : tensors) {
      sizes.push_back(t.dim() == 1 && t.size(0) == 0 ? -1 : t.size(d));
      dtypes.push_back(t.dtype());
    }
    record("CatBackward0", tensors, {out}, [=](const Grads& g) {
      Grads r;
      int64_t off = 0;
      for (size_t i = 0; i < sizes.size(); ++i) {
        if (sizes[i] < 0) {
          r.push_back(zeros({0}, TensorOptions(dtypes[i]).set_device(g[0].device())));
          continue;
        }
        Tensor gi = g[0].narrow(d, off, sizes[i]);
        r.push_back(gi.dtype() == dtypes[i] ? gi : gi.to(dtypes[i]));
        off += sizes[i];
      }
      return r;
    });
  }
  return out;
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  ADEPT_CHECK(!tensors.empty(), ValueError, "stack: expects a non-empty TensorList");
  int64_t d = wrap_dim(dim, tensors[0].dim() + 1, "stack");
  std::vector<Tensor> parts;
  for (size_t i = 0; i < tensors.size(); ++i) {
    ADEPT_CHECK(tensors[i].sizes() == tensors[0].sizes(), ShapeError,
                "stack: expects each tensor to be equal size, but got {} at entry 0 and {} at entry {}",
                shape_str(tensors[0].sizes()), shape_str(tensors[i].sizes()), i);
    parts.push_back(tensors[i].unsqueeze(d));
  }
  // Unsqueezed tensors have a dim of size 1, so cat never drops them.
  if (parts[0].dim() == 1 && parts[0].size(0) == 0) return empty({static_cast<int64_t>(parts.size()), 0});
  return cat(parts, d);
}

Tensor flip(const Tensor& x, const Shape& dims) {
  uint64_t mask = 0;
  for (int64_t dd : dims) {
    int64_t d = wrap_dim(dd, x.dim(), "flip");
    ADEPT_CHECK(!((mask >> d) & 1), ValueError, "flip: dim {} appears multiple times in the list of dims", d);
    mask |= 1ULL << d;
  }
  Tensor out = empty(x.sizes(), TensorOptions(x.dtype()).set_device(x.device()));
  if (x.numel() > 0) {
    // A private view with negative strides reads x backwards along the flipped dims.
    Shape strides = x.strides();
    int64_t offset = x.storage_offset();
    for (int64_t d = 0; d < x.dim(); ++d) {
      if ((mask >> d) & 1) {
        offset += (x.size(d) - 1) * x.stride(d);
        strides[d] = -x.stride(d);
      }
    }
    copy_kernel().get(x.device(), "flip")(out, restrided(x, x.sizes(), strides, offset));
  }
  Shape fd = dims;
  record("FlipBackward0", {x}, {out}, [fd](const Grads& g) { return Grads{flip(g[0], fd)}; });
  return out;
}

}  // namespace adept
