// sort, argsort, topk and unique. sort/topk run the device's sort kernel along the last dim of a
// permuted view; their backward scatters the gradient back through the returned indices. unique
// is composed from sort, comparisons, cumsum and scatter (it is not differentiable).
#include "ops/helpers.h"

namespace adept {

using autograd::record;
using Grads = std::vector<Tensor>;

namespace {

// Runs the sort kernel along dim `d` of x into fresh (values, indices) of shape `out_shape`.
std::tuple<Tensor, Tensor> sort_along(const Tensor& x, int64_t d, const Shape& out_shape, bool descending,
                                      int64_t topk, const char* op) {
  Tensor values = empty(out_shape, TensorOptions(x.dtype()).set_device(x.device()));
  Tensor indices = empty(out_shape, TensorOptions(kInt64).set_device(x.device()));
  if (values.numel() > 0) {
    NoGradGuard ng;
    sort_kernel().get(x.device(), op)(movedim(values, d, -1), movedim(indices, d, -1), movedim(x, d, -1), descending,
                                      topk);
  }
  if (autograd::needs_grad({&x})) {
    Shape xs = x.sizes();
    record(topk > 0 || out_shape != xs ? "TopkBackward0" : "SortBackward0", {x}, {values}, [=](const Grads& g) {
      Tensor z = zeros(xs, TensorOptions(g[0].dtype()).set_device(g[0].device()));
      return Grads{scatter(z, d, indices, g[0])};
    });
  }
  return {values, indices};
}

}  // namespace

std::tuple<Tensor, Tensor> sort(const Tensor& x, int64_t dim, bool descending, bool /*stable*/) {
  // The kernel is always stable, which also satisfies stable=false.
  int64_t d = wrap_dim(dim, x.dim(), "sort");
  if (x.dim() == 0) {
    auto [v, i] = sort_along(x.view({1}), 0, {1}, descending, 0, "sort");
    return {v.view({}), i.view({})};
  }
  return sort_along(x, d, x.sizes(), descending, 0, "sort");
}

Tensor argsort(const Tensor& x, int64_t dim, bool descending, bool stable) {
  NoGradGuard ng;
  return std::get<1>(sort(x, dim, descending, stable));
}

std::tuple<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim, bool largest, bool /*sorted*/) {
  // Results always come sorted (allowed for sorted=false too).
  int64_t d = wrap_dim(dim, x.dim(), "topk");
  int64_t n = x.dim() == 0 ? 1 : x.size(d);
  ADEPT_CHECK(k >= 0 && k <= n, IndexError, "topk: selected index k ({}) is out of range for dimension {} of size {}",
              k, d, n);
  if (x.dim() == 0) {
    auto [v, i] = sort_along(x.view({1}), 0, {k}, largest, k, "topk");
    return k == 1 ? std::tuple<Tensor, Tensor>{v.view({}), i.view({})} : std::tuple<Tensor, Tensor>{v, i};
  }
  Shape os = x.sizes();
  os[d] = k;
  return sort_along(x, d, os, largest, k, "topk");
}

std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& x, bool /*sorted*/, bool return_inverse, bool return_counts,
                                          std::optional<int64_t> dim) {
  // Output is always sorted (PyTorch leaves the order unspecified for sorted=false).
  NoGradGuard ng;
  const TensorOptions long_opts = TensorOptions(kInt64).set_device(x.device());
  const TensorOptions bool_opts = TensorOptions(kBool).set_device(x.device());
  const int64_t d = dim ? wrap_dim(*dim, x.dim(), "unique") : 0;
  // Rows to make unique: elements (dim=None) or slices along dim, flattened to (n, m).
  Tensor rows = dim ? movedim(x, d, 0).reshape({x.dim() ? x.size(d) : 1, -1}) : x.reshape({-1, 1});
  const int64_t n = rows.size(0);
  Tensor perm = arange(n, long_opts);
  // Lexicographic order: stable sorts from the last column to the first.
  for (int64_t c = rows.size(1) - 1; c >= 0; --c) {
    Tensor key = index_select(rows.select(1, c), 0, perm);
    perm = index_select(perm, 0, argsort(key, 0, false, true));
  }
  Tensor sorted_rows = index_select(rows, 0, perm);
  Tensor is_new = n == 0 ? empty({0}, bool_opts)
                         : cat({ones({1}, bool_opts),
                                any(ne(sorted_rows.slice(0, 1, n), sorted_rows.slice(0, 0, n - 1)), {1})});
  Tensor first = nonzero(is_new).reshape({-1});
  Tensor values;
  if (dim) {
    values = movedim(index_select(movedim(x, d, 0), 0, index_select(perm, 0, first)), 0, d).contiguous();
  } else {
    values = index_select(sorted_rows.reshape({-1}), 0, first);
  }
  Tensor group = cumsum(is_new.to(kInt64), 0) - 1;
  Tensor inverse = empty({0}, long_opts), counts = empty({0}, long_opts);
  if (return_inverse) {
    inverse = scatter(empty({n}, long_opts), 0, perm, group);
    if (!dim) inverse = inverse.view(x.sizes());
  }
  if (return_counts) counts = scatter_add(zeros({first.numel()}, long_opts), 0, group, ones({n}, long_opts));
  return {values, inverse, counts};
}

}  // namespace adept
