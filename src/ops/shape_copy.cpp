// Copying shape ops composed from views, cat and where: roll, repeat, tile, meshgrid, tril, triu.
// Their gradients come from the ops they are built from (narrow/cat, expand, where).
#include "ops/helpers.h"

namespace adept {

Tensor roll(const Tensor& x, const Shape& shifts, const Shape& dims) {
  if (dims.empty()) {
    ADEPT_CHECK(shifts.size() == 1, ValueError, "roll: shifts must have one element when dims is empty, got {}",
                shape_str(shifts));
    return roll(x.flatten(), shifts, {0}).view(x.sizes());
  }
  ADEPT_CHECK(shifts.size() == dims.size(), ValueError, "roll: shifts and dimensions must align. shifts: {}, dims: {}",
              shifts.size(), dims.size());
  Tensor r = x;
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = wrap_dim(dims[i], x.dim(), "roll");
    int64_t n = x.dim() == 0 ? 1 : x.size(d);
    if (n == 0) continue;
    int64_t s = ((shifts[i] % n) + n) % n;
    if (s == 0) continue;
    r = cat({r.narrow(d, n - s, s), r.narrow(d, 0, n - s)}, d);
  }
  return r.is_same(x) ? x.clone() : r;
}

Tensor repeat(const Tensor& x, const Shape& repeats) {
  const int64_t nd = static_cast<int64_t>(repeats.size());
  ADEPT_CHECK(nd >= x.dim(), ShapeError,
              "repeat: Number of dimensions of repeat dims ({}) can not be smaller than number of dimensions of "
              "tensor ({})", nd, x.dim());
  // View x as (1, s0, 1, s1, ...), expand to (r0, s0, r1, s1, ...), materialise, merge pairs.
  Shape inter, expanded, final_shape;
  for (int64_t i = 0; i < nd; ++i) {
    ADEPT_CHECK(repeats[i] >= 0, ValueError, "repeat: repeats can not be negative, got {}", shape_str(repeats));
    int64_t s = i < nd - x.dim() ? 1 : x.size(i - (nd - x.dim()));
    inter.insert(inter.end(), {1, s});
    expanded.insert(expanded.end(), {repeats[i], s});
    final_shape.push_back(repeats[i] * s);
  }
  return x.reshape(inter).expand(expanded).clone().view(final_shape);
}

Tensor tile(const Tensor& x, const Shape& reps) {
  Shape r = reps;
  if (static_cast<int64_t>(r.size()) < x.dim()) r.insert(r.begin(), x.dim() - r.size(), 1);
  return repeat(x, r);
}

std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors, const std::string& indexing) {
  ADEPT_CHECK(!tensors.empty(), ValueError, "meshgrid: expects a non-empty TensorList");
  ADEPT_CHECK(indexing == "ij" || indexing == "xy", ValueError,
              "meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {}", indexing);
  for (const Tensor& t : tensors) {
    ADEPT_CHECK(t.dim() <= 1, ShapeError, "meshgrid: Expected 0D or 1D tensor in the tensor list but got shape {}",
                shape_str(t.sizes()));
    ADEPT_CHECK(t.dtype() == tensors[0].dtype(), DtypeError,
                "meshgrid: expects all tensors to have the same dtype (got {} and {})", dtype_name(tensors[0].dtype()),
                dtype_name(t.dtype()));
    check_same_device("meshgrid", {&tensors[0], &t});
  }
  // "xy" is "ij" with the first two inputs (and outputs) swapped.
  std::vector<Tensor> in = tensors;
  const bool swap = indexing == "xy" && in.size() >= 2;
  if (swap) std::swap(in[0], in[1]);
  Shape shape;
  for (const Tensor& t : in) shape.push_back(t.numel());
  std::vector<Tensor> out;
  for (size_t i = 0; i < in.size(); ++i) {
    Shape v(in.size(), 1);
    v[i] = in[i].numel();
    out.push_back(in[i].reshape(v).expand(shape));
  }
  if (swap) std::swap(out[0], out[1]);
  return out;
}

namespace {

// Keeps x where (col - row) <= diagonal (lower) or >= diagonal (upper), zero elsewhere.
Tensor triangle(const Tensor& x, int64_t diagonal, bool lower, const char* op) {
  // PyTorch reports this as a dim out of range (IndexError).
  ADEPT_CHECK(x.dim() >= 2, IndexError, "{}: input tensor must have at least 2 dimensions, got shape {}", op,
              shape_str(x.sizes()));
  const TensorOptions long_opts = TensorOptions(kInt64).set_device(x.device());
  Tensor rows = arange(x.size(-2), long_opts).view({-1, 1});
  Tensor cols = arange(x.size(-1), long_opts).view({1, -1});
  Tensor diff = cols - rows;
  Tensor keep = lower ? le(diff, Scalar(diagonal)) : ge(diff, Scalar(diagonal));
  return where(keep, x, zeros({}, TensorOptions(x.dtype()).set_device(x.device())));
}

}  // namespace

Tensor tril(const Tensor& x, int64_t diagonal) { return triangle(x, diagonal, true, "tril"); }
Tensor triu(const Tensor& x, int64_t diagonal) { return triangle(x, diagonal, false, "triu"); }

}  // namespace adept
