// Indexing with index expressions (Tensor::index / index_put_, PyTorch's x[...] semantics) and the
// advanced-index free functions index, index_put(_), masked_select, nonzero.
//
// An expression is split in two stages: basic indices (ints, slices, None, Ellipsis) become views
// of the tensor; what is left is a list of integer index tensors, one per dim of that view
// (undefined = the whole dim). Boolean masks become their nonzero() coordinates and bool scalars a
// new dim indexed by [0] or []. The advanced stage folds the index tensors into one tensor of
// element offsets, which the index / index_put kernels apply.
#include "ops/helpers.h"

namespace adept {

using autograd::record;
using Grads = std::vector<Tensor>;

namespace {

// Private restrided alias of `t` (no autograd): the kernels' view of an operand.
Tensor restride(const Tensor& t, const Shape& sizes, const Shape& strides) {
  return restrided(t, sizes, strides, t.storage_offset());
}

bool is_mask_dtype(Dtype d) { return d == kBool || d == kUInt8; }

// Result of the basic stage: `view` is the tensor after basic indices; `adv` has one entry per dim
// of `view` (undefined = whole dim, else an int64 index tensor, not yet bounds-checked).
struct Decomposed {
  Tensor view;
  std::vector<Tensor> adv;
  bool has_adv = false;
};

// Dims of the indexed tensor an index component consumes.
int64_t consumed_dims(const TensorIndex& ix) {
  switch (ix.kind()) {
    case TensorIndex::Kind::Integer:
    case TensorIndex::Kind::Slice: return 1;
    case TensorIndex::Kind::Tensor: return is_mask_dtype(ix.tensor().dtype()) ? ix.tensor().dim() : 1;
    default: return 0;
  }
}

// `scalar_tensor_selects`: a 0-d integer tensor acts as an int (Python's x[t]) rather than as an
// advanced index (aten::index), which changes where the result dims go.
Decomposed decompose(const Tensor& self, const std::vector<TensorIndex>& expr, bool scalar_tensor_selects,
                     const char* op) {
  int64_t consumed = 0, ellipses = 0;
  for (const auto& ix : expr) {
    consumed += consumed_dims(ix);
    if (ix.kind() == TensorIndex::Kind::Tensor) {
      ADEPT_CHECK(ix.tensor().defined(), IndexError, "{}: undefined tensor in an index expression", op);
      Dtype dt = ix.tensor().dtype();
      ADEPT_CHECK(is_mask_dtype(dt) || dt == kInt64 || dt == kInt32, IndexError,
                  "{}: tensors used as indices must be long, int, byte or bool tensors, got {}", op, dtype_name(dt));
    }
    ellipses += ix.kind() == TensorIndex::Kind::Ellipsis;
  }
  ADEPT_CHECK(ellipses <= 1, IndexError, "{}: an index can only have a single ellipsis ('...')", op);
  ADEPT_CHECK(consumed <= self.dim(), IndexError, "{}: too many indices for tensor of dimension {}", op, self.dim());

  const TensorOptions long_opts = TensorOptions(kInt64).set_device(self.device());
  Decomposed d;
  Tensor r = self;
  auto bool_dim = [&](bool b) {
    int64_t pos = static_cast<int64_t>(d.adv.size());
    r = unsqueeze(r, pos);
    d.adv.push_back(b ? zeros({1}, long_opts) : empty({0}, long_opts));
    d.has_adv = true;
  };
  for (const auto& ix : expr) {
    const int64_t pos = static_cast<int64_t>(d.adv.size());
    switch (ix.kind()) {
      case TensorIndex::Kind::None:
        r = unsqueeze(r, pos);
        d.adv.emplace_back();
        break;
      case TensorIndex::Kind::Ellipsis:
        for (int64_t k = 0; k < self.dim() - consumed; ++k) d.adv.emplace_back();
        break;
      case TensorIndex::Kind::Integer: {
        int64_t n = r.size(pos), i = ix.integer();
        ADEPT_CHECK(i >= -n && i < n, IndexError, "{}: index {} is out of bounds for dimension {} with size {}", op, i,
                    pos, n);
        r = select(r, pos, i);
        break;
      }
      case TensorIndex::Kind::Slice: {
        const Slice& s = ix.slice();
        int64_t step = s.step.value_or(1);
        ADEPT_CHECK(step > 0, ValueError, "{}: step must be greater than zero, got {}", op, step);
        r = slice(r, pos, s.start, s.stop, step);
        d.adv.emplace_back();
        break;
      }
      case TensorIndex::Kind::Boolean:
        bool_dim(ix.boolean());
        break;
      case TensorIndex::Kind::Tensor: {
        Tensor t = ix.tensor().device() == self.device() ? ix.tensor() : ix.tensor().to(self.device());
        if (is_mask_dtype(t.dtype()) && t.dim() == 0) {
          bool_dim(t.item().to_bool());
        } else if (is_mask_dtype(t.dtype())) {
          for (int64_t k = 0; k < t.dim(); ++k) {
            ADEPT_CHECK(t.size(k) == r.size(pos + k), IndexError,
                        "{}: The shape of the mask {} at index {} does not match the shape of the indexed tensor {} "
                        "at index {}", op, shape_str(t.sizes()), k, shape_str(r.sizes()), pos + k);
          }
          Tensor nz = nonzero(t);
          for (int64_t k = 0; k < t.dim(); ++k) d.adv.push_back(nz.select(1, k));
          d.has_adv = true;
        } else if (t.dim() == 0 && scalar_tensor_selects) {
          int64_t n = r.size(pos), i = t.item().to_int64();
          ADEPT_CHECK(i >= -n && i < n, IndexError, "{}: index {} is out of bounds for dimension {} with size {}", op,
                      i, pos, n);
          r = select(r, pos, i);
        } else {
          d.adv.push_back(t.dtype() == kInt64 ? t : t.to(kInt64));
          d.has_adv = true;
        }
        break;
      }
    }
  }
  while (static_cast<int64_t>(d.adv.size()) < r.dim()) d.adv.emplace_back();
  d.view = r;
  return d;
}

// The advanced stage's geometry: result shape, `view`'s strides restrided to it (0 over the index
// dims) and the element-offset tensor restrided to it.
struct AdvPlan {
  Shape out_shape;
  Shape src_strides;
  Tensor offset;  // int64, already restrided to out_shape
};

AdvPlan plan_advanced(const Tensor& v, const std::vector<Tensor>& adv, const char* op) {
  NoGradGuard ng;
  std::vector<int64_t> dims;
  Shape b;
  for (int64_t k = 0; k < v.dim(); ++k) {
    if (!adv[k].defined()) continue;
    dims.push_back(k);
    try {
      b = dims.size() == 1 ? adv[k].sizes() : broadcast_shapes(b, adv[k].sizes());
    } catch (const ShapeError&) {
      std::string shapes;
      for (int64_t j : dims) shapes += (shapes.empty() ? "" : ", ") + shape_str(adv[j].sizes());
      throw IndexError(fmt::format("{}: shape mismatch: indexing tensors could not be broadcast together with shapes {}",
                                   op, shapes));
    }
  }
  // Element offsets: sum over index dims of wrapped(index) * stride.
  Tensor offset;
  for (int64_t k : dims) {
    Tensor idx = adv[k];
    const int64_t n = v.size(k);
    if (idx.numel() > 0) {
      int64_t lo = min(idx).item().to_int64(), hi = max(idx).item().to_int64();
      ADEPT_CHECK(lo >= -n && hi < n, IndexError, "{}: index {} is out of bounds for dimension {} with size {}", op,
                  lo < -n ? lo : hi, k, n);
      if (lo < 0) idx = where(lt(idx, 0), idx + n, idx);
    }
    Tensor term = v.stride(k) == 1 ? idx : idx * v.stride(k);
    offset = offset.defined() ? offset + term : term;
  }
  offset = offset.expand(b);

  const bool adjacent = dims.back() - dims.front() + 1 == static_cast<int64_t>(dims.size());
  AdvPlan p;
  Shape off_strides;
  auto push_rest = [&](int64_t k) {
    p.out_shape.push_back(v.size(k));
    p.src_strides.push_back(v.stride(k));
    off_strides.push_back(0);
  };
  auto push_index_dims = [&] {
    for (int64_t j = 0; j < static_cast<int64_t>(b.size()); ++j) {
      p.out_shape.push_back(b[j]);
      p.src_strides.push_back(0);
      off_strides.push_back(offset.stride(j));
    }
  };
  if (!adjacent) push_index_dims();
  for (int64_t k = 0; k < v.dim(); ++k) {
    if (adv[k].defined()) {
      if (adjacent && k == dims.front()) push_index_dims();
    } else {
      push_rest(k);
    }
  }
  p.offset = restride(offset, p.out_shape, off_strides);
  return p;
}

// Advanced read of `v` (autograd: IndexBackward0 adds the gradient back at the indexed positions).
Tensor advanced_index(const Tensor& v, const std::vector<Tensor>& adv, const char* op) {
  AdvPlan p = plan_advanced(v, adv, op);
  Tensor out = empty(p.out_shape, TensorOptions(v.dtype()).set_device(v.device()));
  if (out.numel() > 0) index_kernel().get(v.device(), op)(out, restride(v, p.out_shape, p.src_strides), p.offset);
  if (autograd::needs_grad({&v})) {
    Shape vs = v.sizes();
    record("IndexBackward0", {v}, {out}, [vs, adv](const Grads& g) {
      return Grads{index_put(zeros(vs, TensorOptions(g[0].dtype()).set_device(g[0].device())), adv, g[0], true)};
    });
  }
  return out;
}

// `value` with leading size-1 dims dropped until it has at most `ndim` dims (as Python setitem does).
Tensor strip_leading_ones(Tensor value, size_t ndim) {
  while (static_cast<size_t>(value.dim()) > ndim && value.size(0) == 1) value = value.squeeze(0);
  return value;
}

Tensor broadcast_value(const Tensor& value, const Shape& shape, const char* op) {
  Tensor v = strip_leading_ones(value, shape.size());
  bool ok = v.dim() <= static_cast<int64_t>(shape.size());
  for (int64_t k = 1; ok && k <= v.dim(); ++k) {
    int64_t have = v.size(-k), want = shape[shape.size() - k];
    ok = have == want || have == 1;
  }
  ADEPT_CHECK(ok, ShapeError, "{}: shape mismatch: value tensor of shape {} cannot be broadcast to indexing result of "
              "shape {}", op, shape_str(value.sizes()), shape_str(shape));
  return v.expand(shape);
}

// Writes `value` (no autograd, self's dtype) at the positions `d` describes; d.view aliases the target.
void write_indexed(const Decomposed& d, const Tensor& value, bool accumulate, const char* op) {
  NoGradGuard ng;
  if (!d.has_adv) {
    Tensor v = broadcast_value(value, d.view.sizes(), op);
    if (d.view.numel() == 0) return;
    copy_kernel().get(d.view.device(), op)(d.view, accumulate ? add(d.view, v) : v);
    return;
  }
  AdvPlan p = plan_advanced(d.view, d.adv, op);
  Tensor v = broadcast_value(value, p.out_shape, op);
  if (v.numel() == 0) return;
  index_put_kernel().get(d.view.device(), op)(restride(d.view, p.out_shape, p.src_strides), v, p.offset, accumulate);
}

// The value to write: self's dtype and device, never aliasing self's storage.
Tensor prepare_value(const Tensor& self, const Tensor& value, const char* op) {
  check_same_device(op, {&self, &value});
  Tensor v = value.dtype() == self.dtype() ? value : value.to(self.dtype());
  if (v.impl()->storage == self.impl()->storage) v = v.clone();
  return v;
}

// Out-of-place put: a copy of self with `value` written (or added) at expr's positions.
Tensor put_out_of_place(const Tensor& self, const std::vector<TensorIndex>& expr, const Tensor& value_in,
                        bool accumulate, bool scalar_tensor_selects, const char* op) {
  Tensor value = prepare_value(self, value_in, op);
  Tensor out = self.detach().clone();
  {
    NoGradGuard ng;
    write_indexed(decompose(out, expr, scalar_tensor_selects, op), value.detach(), accumulate, op);
  }
  if (autograd::needs_grad({&self, &value_in})) {
    // The value's gradient is taken in its own dtype (as PyTorch sums it), not in self's.
    bool gv = value_in.requires_grad();
    Shape value_shape = value_in.sizes();
    Dtype value_dtype = value_in.dtype();
    record("IndexPutBackward0", {self, value_in}, {out}, [=](const Grads& g) {
      Tensor grad_self = accumulate ? g[0]
                                    : put_out_of_place(g[0], expr, zeros({}, TensorOptions(g[0].dtype()).set_device(
                                                                            g[0].device())),
                                                       false, scalar_tensor_selects, op);
      Tensor grad_value;
      if (gv) {
        Decomposed d = decompose(g[0], expr, scalar_tensor_selects, op);
        Tensor gi = d.has_adv ? advanced_index(d.view, d.adv, op) : d.view;
        Tensor stripped = strip_leading_ones(zeros(value_shape, TensorOptions(kBool)), gi.dim());
        grad_value = sum_to(gi.to(value_dtype), stripped.sizes()).reshape(value_shape);
      }
      return Grads{grad_self, grad_value};
    });
  }
  return out;
}

// In-place put: writes straight into self's memory when no autograd is involved (so a view of a
// plain tensor can be assigned through), else commits the out-of-place result.
Tensor& put_in_place(Tensor& self, const std::vector<TensorIndex>& expr, const Tensor& value_in, bool accumulate,
                     bool scalar_tensor_selects, const char* op) {
  check_inplace(self, op);
  if (!autograd::needs_grad({&self, &value_in})) {
    Tensor value = prepare_value(self, value_in, op);
    {
      NoGradGuard ng;
      write_indexed(decompose(self, expr, scalar_tensor_selects, op), value, accumulate, op);
    }
    self.impl()->storage->bump_version();
    return self;
  }
  return commit_inplace(self, put_out_of_place(self, expr, value_in, accumulate, scalar_tensor_selects, op), op);
}

// aten::index's list form as an expression: undefined entries are full slices.
std::vector<TensorIndex> to_expr(const std::vector<Tensor>& indices) {
  std::vector<TensorIndex> expr;
  expr.reserve(indices.size());
  for (const Tensor& t : indices) {
    if (t.defined()) expr.emplace_back(t);
    else expr.emplace_back(Slice());
  }
  return expr;
}

Tensor index_expr(const Tensor& self, const std::vector<TensorIndex>& expr, bool scalar_tensor_selects,
                  const char* op) {
  Decomposed d = decompose(self, expr, scalar_tensor_selects, op);
  if (d.has_adv) return advanced_index(d.view, d.adv, op);
  // Basic indices only: a view (an alias when the expression changed nothing).
  return d.view.is_same(self) ? view(self, self.sizes()) : d.view;
}

}  // namespace

Tensor Tensor::index(const std::vector<TensorIndex>& indices) const {
  return index_expr(*this, indices, true, "index");
}

Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices, const Tensor& value) {
  return put_in_place(*this, indices, value, false, true, "index_put_");
}

Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices, const Scalar& value) {
  return put_in_place(*this, indices, wrap_scalar(value, dtype(), device()), false, true, "index_put_");
}

Tensor index(const Tensor& x, const std::vector<Tensor>& indices) {
  return index_expr(x, to_expr(indices), false, "index");
}

Tensor index_put(const Tensor& x, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
  return put_out_of_place(x, to_expr(indices), values, accumulate, false, "index_put");
}

Tensor& index_put_(Tensor& x, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
  return put_in_place(x, to_expr(indices), values, accumulate, false, "index_put_");
}

Tensor masked_select(const Tensor& x, const Tensor& mask) {
  ADEPT_CHECK(mask.dtype() == kBool, DtypeError, "masked_select: expected BoolTensor for mask, got {}",
              dtype_name(mask.dtype()));
  check_same_device("masked_select", {&x, &mask});
  Shape shape = broadcast_shapes(x.sizes(), mask.sizes());
  Tensor xb = x.expand(shape), mb = mask.expand(shape);
  return index_expr(xb, {TensorIndex(mb)}, true, "masked_select");
}

Tensor nonzero(const Tensor& x) {
  NoGradGuard ng;
  Tensor flags = x.dtype() == kBool ? x : ne(x, Scalar(0));
  int64_t n = x.numel() == 0 ? 0 : sum(flags).item().to_int64();
  Tensor out = empty({n, x.dim()}, TensorOptions(kInt64).set_device(x.device()));
  if (n > 0) nonzero_kernel().get(x.device(), "nonzero")(out, x);
  return out;
}

}  // namespace adept
