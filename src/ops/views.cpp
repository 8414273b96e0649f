// View ops: results share storage with the input (sizes/strides/offset arithmetic only).
// Backward formulas map the view's gradient back to the input's shape.
#include <numeric>

#include "ops/helpers.h"

namespace adept {
namespace {

using autograd::record;

Tensor make_view(const Tensor& x, Shape sizes, Shape strides, int64_t offset) {
  Tensor v = restrided(x, std::move(sizes), std::move(strides), offset);
  TensorImpl* impl = v.impl();
  impl->is_view = true;
  // Views of views share the root base, so in-place writes anywhere re-derive every view's history.
  impl->view_base = x.impl()->view_base ? x.impl()->view_base : x.impl_ptr();
  impl->view_version = x._version();
  return v;
}

// Strides that let `x` be viewed as `shape` without copying, or nullopt.
std::optional<Shape> view_strides(const Tensor& x, const Shape& shape) {
  const Shape& os = x.sizes();
  const Shape& ot = x.strides();
  Shape ns(shape.size());
  if (x.numel() == 0 || os.empty()) {
    int64_t s = 1;
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      ns[d] = s;
      s *= std::max<int64_t>(shape[d], 1);
    }
    return ns;
  }
  int64_t view_d = static_cast<int64_t>(shape.size()) - 1;
  int64_t chunk_base = ot.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t td = static_cast<int64_t>(os.size()) - 1; td >= 0; --td) {
    tensor_numel *= os[td];
    if (td == 0 || (os[td - 1] != 1 && ot[td - 1] != tensor_numel * chunk_base)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        ns[view_d] = view_numel * chunk_base;
        view_numel *= shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (td > 0) {
        chunk_base = ot[td - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return ns;
}

Tensor reshape_back(const Tensor& g, const Shape& s) { return g.reshape(s); }

}  // namespace

Shape infer_size(const Shape& shape, int64_t numel, const char* op) {
  Shape out = shape;
  int64_t known = 1;
  int infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      ADEPT_CHECK(infer < 0, ShapeError, "{}: only one dimension can be inferred", op);
      infer = static_cast<int>(i);
    } else {
      ADEPT_CHECK(shape[i] >= 0, ShapeError, "{}: invalid shape dimension {}", op, shape[i]);
      known *= shape[i];
    }
  }
  if (infer >= 0) {
    ADEPT_CHECK(known != 0 && numel % known == 0, ShapeError,
                "{}: shape '{}' is invalid for input of size {}", op, shape_str(shape), numel);
    out[infer] = numel / known;
  } else {
    ADEPT_CHECK(known == numel, ShapeError, "{}: shape '{}' is invalid for input of size {}", op, shape_str(shape), numel);
  }
  return out;
}

Tensor view(const Tensor& x, const Shape& shape_in) {
  Shape shape = infer_size(shape_in, x.numel(), "view");
  auto strides = view_strides(x, shape);
  ADEPT_CHECK(strides.has_value(), ShapeError,
              "view: view size {} is not compatible with input tensor's size {} and stride {} (at least one dimension "
              "spans across two contiguous subspaces). Use .reshape(...) instead.", shape_str(shape),
              shape_str(x.sizes()), shape_str(x.strides()));
  Tensor out = make_view(x, shape, *strides, x.storage_offset());
  Shape in = x.sizes();
  record("ViewBackward0", {x}, {out}, [in](const std::vector<Tensor>& g) { return std::vector<Tensor>{reshape_back(g[0], in)}; });
  return out;
}

Tensor reshape(const Tensor& x, const Shape& shape_in) {
  Shape shape = infer_size(shape_in, x.numel(), "reshape");
  if (view_strides(x, shape)) return view(x, shape);
  // A copy: the result owns its storage (not a view of the temporary), as in PyTorch.
  return fresh_result(view(x.contiguous(), shape));
}

Tensor as_strided(const Tensor& x, const Shape& size, const Shape& stride, std::optional<int64_t> offset) {
  ADEPT_CHECK(size.size() == stride.size(), ShapeError, "as_strided: mismatch in length of strides and shape");
  int64_t off = offset.value_or(x.storage_offset());
  int64_t max_el = off;
  bool empty_t = false;
  for (size_t d = 0; d < size.size(); ++d) {
    ADEPT_CHECK(size[d] >= 0 && stride[d] >= 0, ValueError, "as_strided: negative size or stride (size {}, stride {})",
                shape_str(size), shape_str(stride));
    if (size[d] == 0) empty_t = true;
    max_el += (size[d] - 1) * stride[d];
  }
  ADEPT_CHECK(empty_t || static_cast<size_t>(max_el + 1) * x.element_size() <= x.impl()->storage->nbytes(), ShapeError,
              "as_strided: setStorage: sizes {}, strides {}, storage offset {} require {} bytes but the storage "
              "holds {} bytes", shape_str(size), shape_str(stride), off, (max_el + 1) * x.element_size(),
              x.impl()->storage->nbytes());
  Tensor out = make_view(x, size, stride, off);
  if (autograd::needs_grad({&x})) {
    // Gradient: scatter-add through the same geometry over a zero buffer shaped like the storage
    // region x covers. Computed by mapping each view element to its linear position in x.
    Shape in_sizes = x.sizes(), in_strides = x.strides();
    int64_t in_off = x.storage_offset();
    record("AsStridedBackward0", {x}, {out}, [=](const std::vector<Tensor>& g) {
      // Storage positions of x's elements and of the view's elements.
      int64_t span = in_off + 1;
      for (size_t d = 0; d < in_sizes.size(); ++d) span += (in_sizes[d] - 1) * in_strides[d];
      for (size_t d = 0; d < size.size(); ++d) span = std::max(span, off + 1 + (size[d] - 1) * stride[d]);
      Tensor pos = arange(0, std::max<int64_t>(span, 0), 1, TensorOptions(kInt64));
      Tensor view_pos = as_strided(pos, size, stride, off).reshape({-1});
      Tensor storage_grad = zeros({span}, TensorOptions(g[0].dtype()).set_device(g[0].device()));
      storage_grad = index_add(storage_grad, 0, view_pos.to(g[0].device()), g[0].reshape({-1}));
      Tensor x_pos = as_strided(pos, in_sizes, in_strides, in_off).reshape({-1});
      return std::vector<Tensor>{index_select(storage_grad, 0, x_pos.to(g[0].device())).view(in_sizes)};
    });
  }
  return out;
}

Tensor permute(const Tensor& x, const Shape& dims) {
  ADEPT_CHECK(static_cast<int64_t>(dims.size()) == x.dim(), ShapeError,
              "permute: number of dims don't match in permute (input has {} dims, got {})", x.dim(), dims.size());
  Shape sizes(dims.size()), strides(dims.size()), inverse(dims.size());
  std::vector<bool> seen(dims.size(), false);
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = wrap_dim(dims[i], x.dim(), "permute");
    ADEPT_CHECK(!seen[d], ValueError, "permute: repeated dim {} in {}", d, shape_str(dims));
    seen[d] = true;
    sizes[i] = x.size(d);
    strides[i] = x.stride(d);
    inverse[d] = static_cast<int64_t>(i);
  }
  Tensor out = make_view(x, sizes, strides, x.storage_offset());
  record("PermuteBackward0", {x}, {out}, [inverse](const std::vector<Tensor>& g) {
    return std::vector<Tensor>{g[0].permute(inverse)};
  });
  return out;
}

Tensor transpose(const Tensor& x, int64_t d0, int64_t d1) {
  if (x.dim() == 0) return view(x, {});
  Shape perm(x.dim());
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[wrap_dim(d0, x.dim(), "transpose")], perm[wrap_dim(d1, x.dim(), "transpose")]);
  return permute(x, perm);
}

Tensor movedim(const Tensor& x, int64_t source, int64_t destination) {
  int64_t s = wrap_dim(source, x.dim(), "movedim"), d = wrap_dim(destination, x.dim(), "movedim");
  Shape order;
  for (int64_t i = 0; i < x.dim(); ++i) if (i != s) order.push_back(i);
  order.insert(order.begin() + d, s);
  return permute(x, order);
}

Tensor slice(const Tensor& x, int64_t dim, std::optional<int64_t> start_o, std::optional<int64_t> stop_o, int64_t step) {
  ADEPT_CHECK(x.dim() > 0, IndexError, "slice: cannot slice a 0-d tensor");
  int64_t d = wrap_dim(dim, x.dim(), "slice");
  ADEPT_CHECK(step > 0, ValueError, "slice: step must be greater than zero, got {}", step);
  int64_t n = x.size(d);
  int64_t start = start_o.value_or(0), stop = stop_o.value_or(n);
  if (start < 0) start += n;
  if (stop < 0) stop += n;
  start = std::clamp<int64_t>(start, 0, n);
  stop = std::clamp<int64_t>(stop, start, n);
  int64_t len = (stop - start + step - 1) / step;
  Shape sizes = x.sizes(), strides = x.strides();
  sizes[d] = len;
  strides[d] *= step;
  Tensor out = make_view(x, sizes, strides, x.storage_offset() + start * x.stride(d));
  if (autograd::needs_grad({&x})) {
    Shape in = x.sizes();
    record("SliceBackward0", {x}, {out}, [=](const std::vector<Tensor>& g) {
      Tensor gi = zeros(in, TensorOptions(g[0].dtype()).set_device(g[0].device()));
      // Differentiable (CopySlices under create_graph), so double backward keeps the graph.
      gi.slice(d, start, stop, step).copy_(g[0]);
      return std::vector<Tensor>{gi};
    });
  }
  return out;
}

Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length) {
  ADEPT_CHECK(x.dim() > 0, IndexError, "narrow: cannot be applied to a 0-dim tensor");
  int64_t d = wrap_dim(dim, x.dim(), "narrow");
  int64_t n = x.size(d);
  if (start < 0) start += n;
  ADEPT_CHECK(start >= 0 && length >= 0 && start <= n - length, IndexError,
              "narrow: start ({}) + length ({}) exceeds dimension size ({}) of dim {}", start, length, n, d);
  return slice(x, d, start, start + length, 1);
}

Tensor select(const Tensor& x, int64_t dim, int64_t index) {
  ADEPT_CHECK(x.dim() > 0, IndexError, "select: cannot be applied to a 0-dim tensor");
  int64_t d = wrap_dim(dim, x.dim(), "select");
  int64_t n = x.size(d);
  ADEPT_CHECK(index >= -n && index < n, IndexError,
              "select: index {} is out of bounds for dimension {} with size {}", index, d, n);
  if (index < 0) index += n;
  Shape sizes = x.sizes(), strides = x.strides();
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  Tensor out = make_view(x, sizes, strides, x.storage_offset() + index * x.stride(d));
  if (autograd::needs_grad({&x})) {
    Shape in = x.sizes();
    record("SelectBackward0", {x}, {out}, [=](const std::vector<Tensor>& g) {
      Tensor gi = zeros(in, TensorOptions(g[0].dtype()).set_device(g[0].device()));
      // Differentiable (CopySlices under create_graph), so double backward keeps the graph.
      gi.select(d, index).copy_(g[0]);
      return std::vector<Tensor>{gi};
    });
  }
  return out;
}

Tensor expand(const Tensor& x, const Shape& shape) {
  const int64_t nd = static_cast<int64_t>(shape.size());
  ADEPT_CHECK(nd >= x.dim(), ShapeError,
              "expand: the number of sizes provided ({}) must be greater or equal to the number of dimensions in the "
              "tensor ({})", nd, x.dim());
  Shape sizes(nd), strides(nd);
  for (int64_t i = nd - 1; i >= 0; --i) {
    int64_t xd = i - (nd - x.dim());
    int64_t want = shape[i];
    if (xd >= 0) {
      int64_t have = x.size(xd);
      if (want == -1) want = have;
      ADEPT_CHECK(want >= 0, ShapeError, "expand: invalid size {} at dimension {} of target sizes {}", want, i,
                  shape_str(shape));
      ADEPT_CHECK(have == want || have == 1, ShapeError,
                  "expand: the expanded size of the tensor ({}) must match the existing size ({}) at non-singleton "
                  "dimension {}. Target sizes: {}. Tensor sizes: {}", want, have, i, shape_str(shape), shape_str(x.sizes()));
      sizes[i] = want;
      strides[i] = have == want ? x.stride(xd) : 0;
    } else {
      ADEPT_CHECK(want >= 0, ShapeError, "expand: the expanded size {} is not allowed in a leading, non-existing dimension",
                  want);
      sizes[i] = want;
      strides[i] = 0;
    }
  }
  if (sizes == x.sizes()) return x;
  Tensor out = make_view(x, sizes, strides, x.storage_offset());
  Shape in = x.sizes();
  record("ExpandBackward0", {x}, {out}, [in](const std::vector<Tensor>& g) { return std::vector<Tensor>{sum_to(g[0], in)}; });
  return out;
}

Tensor squeeze(const Tensor& x, std::optional<int64_t> dim) {
  Shape sizes;
  if (dim) {
    int64_t d = wrap_dim(*dim, x.dim(), "squeeze");
    sizes = x.sizes();
    if (x.dim() > 0 && sizes[d] == 1) sizes.erase(sizes.begin() + d);
  } else {
    for (int64_t s : x.sizes()) if (s != 1) sizes.push_back(s);
  }
  return view(x, sizes);
}

Tensor unsqueeze(const Tensor& x, int64_t dim) {
  int64_t d = wrap_dim(dim, x.dim() + 1, "unsqueeze");
  Shape sizes = x.sizes(), strides = x.strides();
  int64_t st = d < x.dim() ? x.stride(d) * x.size(d) : 1;
  sizes.insert(sizes.begin() + d, 1);
  strides.insert(strides.begin() + d, st);
  Tensor out = make_view(x, sizes, strides, x.storage_offset());
  Shape in = x.sizes();
  record("UnsqueezeBackward0", {x}, {out}, [in](const std::vector<Tensor>& g) { return std::vector<Tensor>{reshape_back(g[0], in)}; });
  return out;
}

Tensor flatten(const Tensor& x, int64_t start_dim, int64_t end_dim) {
  if (x.dim() == 0) return reshape(x, {1});
  int64_t s = wrap_dim(start_dim, x.dim(), "flatten"), e = wrap_dim(end_dim, x.dim(), "flatten");
  ADEPT_CHECK(s <= e, ValueError, "flatten: start_dim ({}) cannot come after end_dim ({})", s, e);
  Shape sizes(x.sizes().begin(), x.sizes().begin() + s);
  int64_t n = 1;
  for (int64_t d = s; d <= e; ++d) n *= x.size(d);
  sizes.push_back(n);
  sizes.insert(sizes.end(), x.sizes().begin() + e + 1, x.sizes().end());
  return reshape(x, sizes);
}

Tensor unflatten(const Tensor& x, int64_t dim, const Shape& sizes_in) {
  int64_t d = wrap_dim(dim, x.dim(), "unflatten");
  Shape inner = infer_size(sizes_in, x.size(d), "unflatten");
  Shape sizes(x.sizes().begin(), x.sizes().begin() + d);
  sizes.insert(sizes.end(), inner.begin(), inner.end());
  sizes.insert(sizes.end(), x.sizes().begin() + d + 1, x.sizes().end());
  return view(x, sizes);
}

std::vector<Tensor> unbind(const Tensor& x, int64_t dim) {
  int64_t d = wrap_dim(dim, x.dim(), "unbind");
  std::vector<Tensor> out;
  {
    NoGradGuard ng;  // one node for all outputs (below) instead of one per select
    for (int64_t i = 0; i < x.size(d); ++i) out.push_back(select(x, d, i));
  }
  record("UnbindBackward0", {x}, out, [d](const std::vector<Tensor>& g) { return std::vector<Tensor>{stack(g, d)}; });
  return out;
}

std::vector<Tensor> split(const Tensor& x, const Shape& split_sizes, int64_t dim) {
  int64_t d = wrap_dim(dim, x.dim(), "split");
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    ADEPT_CHECK(s >= 0, ValueError, "split_with_sizes: split sizes must be non-negative, got {}", shape_str(split_sizes));
    total += s;
  }
  ADEPT_CHECK(total == x.size(d), ShapeError,
              "split_with_sizes: expects split_sizes to sum exactly to {} (input tensor's size at dimension {}), but "
              "got split_sizes={}", x.size(d), d, shape_str(split_sizes));
  std::vector<Tensor> out;
  {
    NoGradGuard ng;
    int64_t start = 0;
    for (int64_t s : split_sizes) {
      out.push_back(narrow(x, d, start, s));
      start += s;
    }
  }
  record("SplitWithSizesBackward0", {x}, out, [d](const std::vector<Tensor>& g) { return std::vector<Tensor>{cat(g, d)}; });
  return out;
}

std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim) {
  int64_t d = wrap_dim(dim, x.dim(), "split");
  ADEPT_CHECK(split_size > 0 || x.size(d) == 0, ValueError, "split: split_size must be positive, got {}", split_size);
  Shape sizes;
  int64_t n = x.size(d);
  if (n == 0) sizes.push_back(0);
  for (int64_t start = 0; start < n; start += split_size) sizes.push_back(std::min(split_size, n - start));
  return split(x, sizes, d);
}

std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim) {
  ADEPT_CHECK(chunks > 0, ValueError, "chunk: number of chunks must be greater than 0, got {}", chunks);
  int64_t d = wrap_dim(dim, x.dim(), "chunk");
  int64_t n = x.size(d);
  int64_t size = (n + chunks - 1) / chunks;
  if (size == 0) size = 1;
  if (n == 0) {
    // PyTorch returns `chunks` empty tensors for an empty dim.
    return split(x, Shape(chunks, 0), d);
  }
  return split(x, size, d);
}

}  // namespace adept
