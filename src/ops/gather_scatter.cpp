// gather / scatter / scatter_add / index_select / index_add with their backward formulas.
#include "ops/helpers.h"

namespace adept {

using autograd::record;
using autograd::SavedTensor;
using Grads = std::vector<Tensor>;

namespace {

// Checks index values against [0, size) (negative allowed with `allow_negative`), returns int64.
Tensor checked_index(const Tensor& index, int64_t size, const char* op, bool allow_negative) {
  ADEPT_CHECK(index.dtype() == kInt64 || index.dtype() == kInt32, DtypeError,
              "{}: expected an int64 index tensor, got {}", op, dtype_name(index.dtype()));
  Tensor idx = index.to(kInt64);
  if (idx.numel() == 0) return idx;
  NoGradGuard ng;
  int64_t lo = min(idx).item().to_int64(), hi = max(idx).item().to_int64();
  int64_t lower = allow_negative ? -size : 0;
  ADEPT_CHECK(lo >= lower && hi < size, IndexError, "{}: index {} is out of bounds for dimension with size {}", op,
              lo < lower ? lo : hi, size);
  if (allow_negative && lo < 0) idx = where(lt(idx, 0), idx + size, idx);
  return idx;
}

void check_gather_shapes(const char* op, const Tensor& x, int64_t d, const Tensor& index, const Tensor* src) {
  ADEPT_CHECK(index.dim() == x.dim() || (index.dim() <= 1 && x.dim() <= 1), ShapeError,
              "{}: index tensor must have the same number of dimensions as input tensor (index {}, input {})", op,
              shape_str(index.sizes()), shape_str(x.sizes()));
  for (int64_t k = 0; k < index.dim(); ++k) {
    if (k != d) {
      ADEPT_CHECK(index.size(k) <= (x.dim() ? x.size(k) : 1), ShapeError,
                  "{}: size of index {} must not exceed the input's {} in dimension {}", op, shape_str(index.sizes()),
                  shape_str(x.sizes()), k);
    }
    if (src) {
      ADEPT_CHECK(index.size(k) <= src->size(k), ShapeError,
                  "{}: size of index {} must not exceed the source's {} in dimension {}", op,
                  shape_str(index.sizes()), shape_str(src->sizes()), k);
    }
  }
}

// View of `idx` (1-d, n) shaped like `like` with n along dim d.
Tensor expand_index(const Tensor& idx, const Shape& like, int64_t d) {
  Shape v(like.size(), 1);
  if (like.empty()) return idx.view({});
  v[d] = idx.numel();
  Shape e = like;
  e[d] = idx.numel();
  return idx.view(v).expand(e);
}

Tensor scatter_impl(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src_in, bool add, const char* op) {
  int64_t d = wrap_dim(dim, x.dim(), op);
  ADEPT_CHECK(index.dtype() == kInt64, DtypeError, "{}: Expected dtype int64 for index, got {}", op,
              dtype_name(index.dtype()));
  check_same_device(op, {&x, &index, &src_in});
  ADEPT_CHECK(src_in.dtype() == x.dtype(), DtypeError, "{}: expected self.dtype to be equal to src.dtype, got {} and {}",
              op, dtype_name(x.dtype()), dtype_name(src_in.dtype()));
  const Tensor& src = src_in;
  if (src.dim() != 0) check_gather_shapes(op, x, d, index, &src);
  else check_gather_shapes(op, x, d, index, nullptr);
  Tensor idx = checked_index(index, x.dim() ? x.size(d) : 1, op, false);
  Tensor out = x.clone().detach();
  Tensor src_view = src.dim() == 0 ? src.expand(index.sizes()) : src;
  if (src.dim() != 0 && src.sizes() != index.sizes()) {
    // Only the leading index.size(k) elements of src take part.
    for (int64_t k = 0; k < index.dim(); ++k) src_view = src_view.narrow(k, 0, index.size(k));
  }
  scatter_kernel().get(x.device(), op)(out, d, idx, src_view, add);
  if (autograd::needs_grad({&x, &src_in})) {
    bool gx = x.requires_grad(), gs = src_in.requires_grad();
    Shape ss = src.sizes();
    Dtype ds = src_in.dtype();
    record(add ? "ScatterAddBackward0" : "ScatterBackward0", {x, src_in}, {out}, [=](const Grads& g) {
      Tensor grad_x, grad_s;
      if (gx) grad_x = add ? g[0] : scatter(g[0], d, idx, Scalar(0));
      if (gs) {
        Tensor gg = gather(g[0], d, idx);
        if (ss.empty()) {
          grad_s = sum(gg);
        } else if (gg.sizes() != ss) {
          Shape padv;
          for (int64_t k = static_cast<int64_t>(ss.size()) - 1; k >= 0; --k) {
            padv.push_back(0);
            padv.push_back(ss[k] - gg.size(k));
          }
          grad_s = pad(gg, padv);
        } else {
          grad_s = gg;
        }
        if (grad_s.dtype() != ds) grad_s = grad_s.to(ds);
      }
      return Grads{grad_x, grad_s};
    });
  }
  return out;
}

}  // namespace

Tensor gather(const Tensor& x, int64_t dim, const Tensor& index) {
  int64_t d = wrap_dim(dim, x.dim(), "gather");
  ADEPT_CHECK(index.dtype() == kInt64, DtypeError, "gather(): Expected dtype int64 for index, got {}",
              dtype_name(index.dtype()));
  check_same_device("gather", {&x, &index});
  check_gather_shapes("gather", x, d, index, nullptr);
  Tensor idx = checked_index(index, x.dim() ? x.size(d) : 1, "gather", false);
  Tensor out = empty(index.sizes(), TensorOptions(x.dtype()).set_device(x.device()));
  gather_kernel().get(x.device(), "gather")(out, x, d, idx);
  if (autograd::needs_grad({&x})) {
    Shape xs = x.sizes();
    record("GatherBackward0", {x}, {out}, [=](const Grads& g) {
      return Grads{scatter_add(zeros(xs, TensorOptions(g[0].dtype()).set_device(g[0].device())), d, idx, g[0])};
    });
  }
  return out;
}

Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_impl(x, dim, index, src, false, "scatter");
}
Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Scalar& value) {
  return scatter_impl(x, dim, index, wrap_scalar(value, x.dtype(), x.device()), false, "scatter");
}
Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_impl(x, dim, index, src, true, "scatter_add");
}
Tensor& scatter_(Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
  check_inplace(x, "scatter_");
  return commit_inplace(x, scatter(x, dim, index, src), "scatter_");
}
Tensor& scatter_add_(Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
  check_inplace(x, "scatter_add_");
  return commit_inplace(x, scatter_add(x, dim, index, src), "scatter_add_");
}

Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index) {
  int64_t d = wrap_dim(dim, x.dim(), "index_select");
  ADEPT_CHECK(index.dim() <= 1, IndexError, "index_select(): Index is supposed to be a vector, got shape {}",
              shape_str(index.sizes()));
  check_same_device("index_select", {&x, &index});
  if (x.dim() == 0) {
    checked_index(index.reshape({-1}), 1, "index_select", false);
    return x.clone();
  }
  Tensor idx = checked_index(index.reshape({-1}), x.size(d), "index_select", false);
  Shape os = x.sizes();
  os[d] = idx.numel();
  Tensor out = empty(os, TensorOptions(x.dtype()).set_device(x.device()));
  gather_kernel().get(x.device(), "index_select")(out, x, d, expand_index(idx, x.sizes(), d));
  if (autograd::needs_grad({&x})) {
    Shape xs = x.sizes();
    record("IndexSelectBackward0", {x}, {out}, [=](const Grads& g) {
      return Grads{index_add(zeros(xs, TensorOptions(g[0].dtype()).set_device(g[0].device())), d, idx, g[0])};
    });
  }
  return out;
}

Tensor index_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  int64_t d = wrap_dim(dim, x.dim(), "index_add");
  ADEPT_CHECK(index.dim() <= 1, ShapeError, "index_add(): Index is supposed to be a vector, got shape {}",
              shape_str(index.sizes()));
  Tensor idx = checked_index(index.reshape({-1}), x.dim() ? x.size(d) : 1, "index_add", false);
  Shape expect = x.sizes();
  if (!expect.empty()) expect[d] = idx.numel();
  ADEPT_CHECK(source.sizes() == expect || (x.dim() == 0 && source.numel() == idx.numel()), ShapeError,
              "index_add(): source has shape {} but expected {} (input {} with index of {} elements along dim {})",
              shape_str(source.sizes()), shape_str(expect), shape_str(x.sizes()), idx.numel(), d);
  Tensor src = alpha.to_double() == 1.0 ? source : source * alpha;
  if (x.dim() == 0) return x + sum(src);
  return scatter_add(x, d, expand_index(idx, x.sizes(), d).expand(src.sizes()), src);
}

Tensor& index_add_(Tensor& x, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  check_inplace(x, "index_add_");
  return commit_inplace(x, index_add(x, dim, index, source, alpha), "index_add_");
}

}  // namespace adept
