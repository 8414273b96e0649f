// Reductions (sum, mean, prod, max/min, arg*, var/std, norm, logsumexp, all/any), softmax and scans.
#include <cmath>
#include <limits>

#include "ops/autocast_scope.h"
#include "ops/helpers.h"

namespace adept {
namespace {

using autograd::record;
using autograd::SavedTensor;
using Grads = std::vector<Tensor>;

// Reduces x over `mask` into a keepdim-shaped tensor of `out_dtype` (input converted to `in_dtype`).
Tensor run_reduce(ReduceOp op, const char* name, const Tensor& x, uint64_t mask, Dtype in_dtype, Dtype out_dtype) {
  Tensor out = empty(keepdim_shape(x.sizes(), mask), TensorOptions(out_dtype).set_device(x.device()));
  NoGradGuard ng;
  reduce_kernel().get(x.device(), name)(op, out, x.to(in_dtype), mask);
  return out;
}

Tensor finish_dims(const Tensor& kd, const Shape& in, uint64_t mask, bool keepdim) {
  return keepdim ? kd : fresh_result(kd.view(squeeze_shape(in, mask)));
}

int64_t reduced_count(const Shape& in, uint64_t mask) {
  int64_t n = 1;
  for (size_t d = 0; d < in.size(); ++d) if ((mask >> d) & 1) n *= in[d];
  return n;
}

void check_nonempty_slices(const Tensor& x, uint64_t mask, const char* op) {
  if (x.numel() != 0) return;
  for (int64_t d = 0; d < x.dim(); ++d) {
    ADEPT_CHECK(!(((mask >> d) & 1) && x.size(d) == 0), IndexError,
                "{}: Expected reduction dim {} to have non-zero size (input shape {}).", op, d, shape_str(x.sizes()));
  }
  ADEPT_CHECK(x.dim() > 0 && mask != 0 && (mask != ((1ULL << x.dim()) - 1) || x.numel() != 0), IndexError,
              "{}: operation does not have an identity (empty input of shape {}).", op, shape_str(x.sizes()));
}

// Gradient of a keepdim-reduced value w.r.t. x: g expanded back (g has keepdim or reduced shape).
Tensor expand_back(const Tensor& g, const Shape& in, uint64_t mask) { return g.view(keepdim_shape(in, mask)).expand(in); }

Tensor minmax_all(const Tensor& x, uint64_t mask, bool keepdim, bool is_max, const char* name) {
  check_nonempty_slices(x, mask, name);
  Tensor kd = run_reduce(is_max ? ReduceOp::Max : ReduceOp::Min, name, x, mask, x.dtype(), x.dtype());
  Tensor out = finish_dims(kd, x.sizes(), mask, keepdim).clone();
  if (autograd::needs_grad({&x})) {
    SavedTensor X = x;
    Tensor kdd = kd.detach();
    Shape in = x.sizes();
    record(is_max ? "AmaxBackward0" : "AminBackward0", {x}, {out}, [=](const Grads& g) {
      // Ties share the gradient evenly, as PyTorch does.
      Tensor m = eq(X.get(), kdd).to(g[0].dtype());
      Shape dims;
      for (size_t d = 0; d < in.size(); ++d) if ((mask >> d) & 1) dims.push_back(static_cast<int64_t>(d));
      Tensor c = dims.empty() ? m : sum(m, dims, true);
      return Grads{expand_back(g[0], in, mask) * m / c};
    });
  }
  return out;
}

Shape mask_dims(uint64_t mask, int64_t ndim) {
  Shape dims;
  for (int64_t d = 0; d < ndim; ++d) if ((mask >> d) & 1) dims.push_back(d);
  return dims;
}

}  // namespace

Tensor sum(const Tensor& x, const Shape& dims, bool keepdim, std::optional<Dtype> dtype) {
  if (!dtype) {
    if (autocast::Scope s(autocast::Policy::Float32Gpu, {&x}); s) return sum(s[0], dims, keepdim);
  }
  uint64_t mask = dims_mask(dims, x.dim(), "sum");
  Dtype out_dtype = dtype.value_or(is_integral(x.dtype(), true) ? kInt64 : x.dtype());
  Tensor kd = run_reduce(ReduceOp::Sum, "sum", x, mask, out_dtype, out_dtype);
  Tensor out = finish_dims(kd, x.sizes(), mask, keepdim);
  if (autograd::needs_grad({&x})) {
    Shape in = x.sizes();
    Dtype dx = x.dtype();
    // PyTorch names the full reduction SumBackward0 and the one over dims SumBackward1.
    record(dims.empty() ? "SumBackward0" : "SumBackward1", {x}, {out}, [=](const Grads& g) {
      Tensor r = expand_back(g[0], in, mask);
      return Grads{r.dtype() == dx ? r : r.to(dx)};
    });
  }
  return out;
}

Tensor mean(const Tensor& x, const Shape& dims, bool keepdim) {
  const autocast::Scope in_op(autocast::Policy::Exclude, {&x});  // its sum stays in x's dtype
  ADEPT_CHECK(x.is_floating_point(), DtypeError,
              "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
              "Got: {}", dtype_name(x.dtype()));
  uint64_t mask = dims_mask(dims, x.dim(), "mean");
  int64_t n = reduced_count(x.sizes(), mask);
  Tensor s = sum(x, mask_dims(mask, x.dim()), keepdim);
  return n == 0 ? s * std::numeric_limits<double>::quiet_NaN() : s / static_cast<double>(n);
}

Tensor prod(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  if (autocast::Scope s(autocast::Policy::Float32, {&x}); s) return prod(s[0], dim, keepdim);
  Tensor in = dim ? x : x.reshape({-1});
  int64_t d = dim ? wrap_dim(*dim, x.dim(), "prod") : 0;
  Dtype out_dtype = is_integral(x.dtype(), true) ? kInt64 : x.dtype();
  if (x.dim() == 0) return x.to(out_dtype, /*copy=*/true);  // ints still give int64, as torch
  uint64_t mask = 1ULL << d;
  Tensor kd = run_reduce(ReduceOp::Prod, "prod", in, mask, out_dtype, out_dtype);
  Tensor out = dim ? finish_dims(kd, in.sizes(), mask, keepdim) : fresh_result(kd.view({}));
  if (autograd::needs_grad({&x})) {
    SavedTensor X = in;
    Shape xs = x.sizes(), ins = in.sizes();
    record("ProdBackward0", {x}, {out}, [=](const Grads& g) {
      // Product of all other elements = exclusive cumprod from the left times from the right
      // (exact with zeros, unlike out / x).
      Tensor v = X.get();
      int64_t n = v.size(d);
      Tensor one = ones_like(v.narrow(d, 0, std::min<int64_t>(n, 1)));
      Tensor left = cat({one, cumprod(v, d).narrow(d, 0, std::max<int64_t>(n - 1, 0))}, d);
      Tensor rv = flip(v, {d});
      Tensor right = flip(cat({one, cumprod(rv, d).narrow(d, 0, std::max<int64_t>(n - 1, 0))}, d), {d});
      Tensor gi = expand_back(g[0], ins, mask) * left * right;
      return Grads{gi.reshape(xs)};
    });
  }
  return out;
}

Tensor amax(const Tensor& x, const Shape& dims, bool keepdim) {
  return minmax_all(x, dims_mask(dims, x.dim(), "amax"), keepdim, true, "amax");
}
Tensor amin(const Tensor& x, const Shape& dims, bool keepdim) {
  return minmax_all(x, dims_mask(dims, x.dim(), "amin"), keepdim, false, "amin");
}
Tensor max(const Tensor& x) {
  ADEPT_CHECK(x.numel() > 0, IndexError,
              "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the "
              "'dim' argument.");
  return amax(x);
}
Tensor min(const Tensor& x) {
  ADEPT_CHECK(x.numel() > 0, IndexError,
              "min(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the "
              "'dim' argument.");
  return amin(x);
}

static std::tuple<Tensor, Tensor> minmax_dim(const Tensor& x, int64_t dim, bool keepdim, bool is_max) {
  const char* name = is_max ? "max" : "min";
  int64_t d = wrap_dim(dim, x.dim(), name);
  uint64_t mask = x.dim() == 0 ? 0 : 1ULL << d;
  if (x.dim() > 0) {
    ADEPT_CHECK(x.size(d) > 0, IndexError,
                "{}(): Expected reduction dim {} to have non-zero size.", name, d);
  }
  Tensor idx_kd = run_reduce(is_max ? ReduceOp::ArgMax : ReduceOp::ArgMin, name, x, mask, x.dtype(), kInt64);
  Tensor val_kd = run_reduce(is_max ? ReduceOp::Max : ReduceOp::Min, name, x, mask, x.dtype(), x.dtype());
  Tensor values = finish_dims(val_kd, x.sizes(), mask, keepdim);
  Tensor indices = finish_dims(idx_kd, x.sizes(), mask, keepdim);
  if (autograd::needs_grad({&x})) {
    Shape in = x.sizes();
    Tensor ikd = idx_kd;
    record(is_max ? "MaxBackward0" : "MinBackward0", {x}, {values, indices}, [=](const Grads& g) {
      if (in.empty()) return Grads{g[0].view(in)};
      Shape ar(in.size(), 1);
      ar[d] = in[d];
      Tensor pos = arange(in[d], TensorOptions(kInt64).set_device(g[0].device())).view(ar);
      Tensor hit = eq(pos, ikd).to(g[0].dtype());
      return Grads{expand_back(g[0], in, mask) * hit};
    });
  }
  return {values, indices};
}

std::tuple<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim) { return minmax_dim(x, dim, keepdim, true); }
std::tuple<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim) { return minmax_dim(x, dim, keepdim, false); }

static Tensor arg_reduce(const Tensor& x, std::optional<int64_t> dim, bool keepdim, bool is_max) {
  const char* name = is_max ? "argmax" : "argmin";
  if (!dim) {
    ADEPT_CHECK(x.numel() > 0, IndexError, "{}(): Expected reduction dim to be specified for input.numel() == 0.", name);
    Tensor flat = x.reshape({-1});
    Tensor r = run_reduce(is_max ? ReduceOp::ArgMax : ReduceOp::ArgMin, name, flat, 1, x.dtype(), kInt64);
    return fresh_result(keepdim ? r.view(Shape(x.dim(), 1)) : r.view({}));
  }
  int64_t d = wrap_dim(*dim, x.dim(), name);
  if (x.dim() > 0) ADEPT_CHECK(x.size(d) > 0, IndexError, "{}(): Expected reduction dim {} to have non-zero size.", name, d);
  uint64_t mask = x.dim() == 0 ? 0 : 1ULL << d;
  Tensor kd = run_reduce(is_max ? ReduceOp::ArgMax : ReduceOp::ArgMin, name, x, mask, x.dtype(), kInt64);
  return finish_dims(kd, x.sizes(), mask, keepdim);
}
Tensor argmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) { return arg_reduce(x, dim, keepdim, true); }
Tensor argmin(const Tensor& x, std::optional<int64_t> dim, bool keepdim) { return arg_reduce(x, dim, keepdim, false); }

Tensor var(const Tensor& x, const Shape& dims, int64_t correction, bool keepdim) {
  const autocast::Scope in_op(autocast::Policy::Exclude, {&x});
  ADEPT_CHECK(x.is_floating_point(), DtypeError, "var: only supports floating-point dtypes, got {}", dtype_name(x.dtype()));
  // Half inputs in float32 (as PyTorch accumulates them): squared deviations overflow float16 past 65504.
  if (x.dtype() == kFloat16 || x.dtype() == kBFloat16) {
    return var(x.to(kFloat32), dims, correction, keepdim).to(x.dtype());
  }
  uint64_t mask = dims_mask(dims, x.dim(), "var");
  Shape d = mask_dims(mask, x.dim());
  int64_t n = reduced_count(x.sizes(), mask);
  Tensor centered = x - mean(x, d, true);
  Tensor ss = sum(centered * centered, d, keepdim);
  double denom = static_cast<double>(std::max<int64_t>(n - correction, 0));
  return ss / denom;
}

Tensor std(const Tensor& x, const Shape& dims, int64_t correction, bool keepdim) {
  return sqrt(var(x, dims, correction, keepdim));
}

Tensor norm(const Tensor& x, double p, const Shape& dims, bool keepdim) {
  if (autocast::Scope s(autocast::Policy::Float32Gpu, {&x}); s) return norm(s[0], p, dims, keepdim);
  ADEPT_CHECK(x.is_floating_point(), DtypeError, "norm: expected a floating point tensor, got {}", dtype_name(x.dtype()));
  uint64_t mask = dims_mask(dims, x.dim(), "norm");
  Shape d = mask_dims(mask, x.dim());
  // Empty slices have norm 0 for every p (torch 1.13), also for +-inf where amax/amin would raise.
  if (std::isinf(p) && reduced_count(x.sizes(), mask) == 0) return sum(abs(x), d, keepdim);
  if (std::isinf(p)) return p > 0 ? amax(abs(x), d, keepdim) : amin(abs(x), d, keepdim);
  if (p == 0) {
    // The count of non-zeros: requires grad, but (as in PyTorch) sends no gradient to x.
    Tensor out;
    {
      NoGradGuard ng;
      out = sum(ne(x, 0).to(x.dtype()), d, keepdim);
    }
    record("NormBackward1", {x}, {out}, [](const Grads&) { return Grads{Tensor()}; });
    return out;
  }
  if (p == 1) return sum(abs(x), d, keepdim);
  Tensor out;
  {
    NoGradGuard ng;
    out = p == 2 ? sqrt(sum(x * x, d, keepdim)) : pow(sum(pow(abs(x), p), d, keepdim), 1.0 / p);
  }
  if (autograd::needs_grad({&x})) {
    SavedTensor X = x;
    Tensor nk = out.detach().view(keepdim_shape(x.sizes(), mask));
    Shape in = x.sizes();
    record("NormBackward1", {x}, {out}, [=](const Grads& g) {
      Tensor xx = X.get();
      Tensor gk = expand_back(g[0], in, mask);
      Tensor zero = zeros({}, TensorOptions(g[0].dtype()));
      Tensor scale = p == 2 ? xx / nk : sign(xx) * pow(abs(xx), p - 1) / pow(nk, p - 1);
      return Grads{where(eq(nk, 0).expand(in), zero, gk * scale)};
    });
  }
  return out;
}

Tensor logsumexp(const Tensor& x, const Shape& dims, bool keepdim) {
  if (autocast::Scope s(autocast::Policy::Float32Gpu, {&x}); s) return logsumexp(s[0], dims, keepdim);
  Tensor xf = x.is_floating_point() ? x : x.to(default_float_dtype());
  uint64_t mask = dims_mask(dims, xf.dim(), "logsumexp");
  Shape d = mask_dims(mask, xf.dim());
  if (xf.numel() == 0) return log(sum(exp(xf), d, keepdim));
  Tensor m = amax(xf.detach(), d, true);
  m = where(isinf(m), zeros({}, TensorOptions(m.dtype())), m);
  Tensor r = log(sum(exp(xf - m), d, true)) + m;
  return keepdim ? r : fresh_result(r.view(squeeze_shape(xf.sizes(), mask)));
}

Tensor all(const Tensor& x, const Shape& dims, bool keepdim) {
  uint64_t mask = dims_mask(dims, x.dim(), "all");
  // uint8 inputs give uint8 results (0/1), as in PyTorch.
  Tensor r = finish_dims(run_reduce(ReduceOp::All, "all", x, mask, x.dtype(), kBool), x.sizes(), mask, keepdim);
  return x.dtype() == kUInt8 ? fresh_result(r.to(kUInt8)) : r;
}
Tensor any(const Tensor& x, const Shape& dims, bool keepdim) {
  uint64_t mask = dims_mask(dims, x.dim(), "any");
  // uint8 inputs give uint8 results (0/1), as in PyTorch.
  Tensor r = finish_dims(run_reduce(ReduceOp::Any, "any", x, mask, x.dtype(), kBool), x.sizes(), mask, keepdim);
  return x.dtype() == kUInt8 ? fresh_result(r.to(kUInt8)) : r;
}

// Devices with the fused kernels (the CPU composes softmax from reductions and pointwise ops).
static bool fused_softmax(const Tensor& x) {
  return !x.device().is_cpu() && softmax_kernel().supports(x.device().type, 0, x.dtype());
}

// The fused gradient of (log_)softmax output y for upstream g (one pass, not differentiable again).
static Tensor fused_softmax_backward(const Tensor& g, const Tensor& y, int64_t d, bool log) {
  Tensor gi = empty(y.sizes(), TensorOptions(y.dtype()).set_device(y.device()));
  softmax_backward_kernel().get(y.device(), log ? "log_softmax backward" : "softmax backward")(
      gi, g.to(y.dtype()).contiguous(), y.contiguous(), d, log);
  return gi;
}

Tensor softmax(const Tensor& x_in, int64_t dim, std::optional<Dtype> dtype) {
  if (!dtype) {
    if (autocast::Scope s(autocast::Policy::Float32Gpu, {&x_in}); s) return softmax(s[0], dim);
  }
  const autocast::Scope in_op(autocast::Policy::Exclude, {&x_in});  // an explicit dtype is kept
  Tensor x = dtype ? x_in.to(*dtype) : x_in;
  ADEPT_CHECK(x.is_floating_point(), DtypeError, "softmax: not implemented for '{}'", dtype_name(x.dtype()));
  int64_t d = wrap_dim(dim, x.dim(), "softmax");
  Tensor out;
  {
    NoGradGuard ng;
    if (x.dim() == 0) {
      out = ones_like(x);
    } else if (x.numel() == 0) {
      out = empty_like(x);
    } else if (fused_softmax(x)) {
      out = empty(x.sizes(), TensorOptions(x.dtype()).set_device(x.device()));
      softmax_kernel().get(x.device(), "softmax")(out, x.contiguous(), d, false);
    } else {
      Tensor e = exp(x - amax(x, {d}, true));
      out = e / sum(e, {d}, true);
    }
  }
  if (autograd::needs_grad({&x})) {
    SavedTensor Y = SavedTensor::output(out);
    record("SoftmaxBackward0", {x}, {out}, [=](const Grads& g) {
      Tensor y = Y.get();
      if (y.dim() == 0) return Grads{zeros_like(g[0])};
      if (!is_grad_enabled() && fused_softmax(y) && y.numel() > 0) return Grads{fused_softmax_backward(g[0], y, d, false)};
      return Grads{y * (g[0] - sum(g[0] * y, {d}, true))};
    });
  }
  return out;
}

Tensor log_softmax(const Tensor& x_in, int64_t dim, std::optional<Dtype> dtype) {
  if (!dtype) {
    if (autocast::Scope s(autocast::Policy::Float32Gpu, {&x_in}); s) return log_softmax(s[0], dim);
  }
  const autocast::Scope in_op(autocast::Policy::Exclude, {&x_in});  // an explicit dtype is kept
  Tensor x = dtype ? x_in.to(*dtype) : x_in;
  ADEPT_CHECK(x.is_floating_point(), DtypeError, "log_softmax: not implemented for '{}'", dtype_name(x.dtype()));
  int64_t d = wrap_dim(dim, x.dim(), "log_softmax");
  Tensor out;
  {
    NoGradGuard ng;
    if (x.dim() == 0) {
      out = zeros_like(x);
    } else if (x.numel() == 0) {
      out = empty_like(x);
    } else if (fused_softmax(x)) {
      out = empty(x.sizes(), TensorOptions(x.dtype()).set_device(x.device()));
      softmax_kernel().get(x.device(), "log_softmax")(out, x.contiguous(), d, true);
    } else {
      Tensor shifted = x - amax(x, {d}, true);
      out = shifted - log(sum(exp(shifted), {d}, true));
    }
  }
  if (autograd::needs_grad({&x})) {
    SavedTensor Y = SavedTensor::output(out);
    record("LogSoftmaxBackward0", {x}, {out}, [=](const Grads& g) {
      Tensor y = Y.get();
      if (y.dim() == 0) return Grads{zeros_like(g[0])};
      if (!is_grad_enabled() && fused_softmax(y) && y.numel() > 0) return Grads{fused_softmax_backward(g[0], y, d, true)};
      return Grads{g[0] - exp(y) * sum(g[0], {d}, true)};
    });
  }
  return out;
}

static Tensor scan(const Tensor& x_in, int64_t dim, std::optional<Dtype> dtype, bool is_prod) {
  const char* name = is_prod ? "cumprod" : "cumsum";
  Dtype out_dtype = dtype.value_or(is_integral(x_in.dtype(), true) ? kInt64 : x_in.dtype());
  Tensor x = x_in.to(out_dtype);
  int64_t d = wrap_dim(dim, x.dim(), name);
  if (x.dim() == 0) return x.clone();
  Tensor out = empty(x.sizes(), TensorOptions(out_dtype).set_device(x.device()));
  {
    NoGradGuard ng;
    scan_kernel().get(x.device(), name)(out, x, d, is_prod);
  }
  if (autograd::needs_grad({&x})) {
    SavedTensor X = x, Y = SavedTensor::output(out);
    record(is_prod ? "CumprodBackward0" : "CumsumBackward0", {x}, {out}, [=](const Grads& g) {
      Tensor rev = flip(cumsum(flip(is_prod ? g[0] * Y.get() : g[0], {d}), d), {d});
      if (!is_prod) return Grads{rev};
      // d out_j / d x_i = out_j / x_i for j >= i (x_i != 0). Zeros in x use the exact product
      // of the other factors, computed per position.
      Tensor xx = X.get();
      Tensor nz = ne(xx, 0);
      if (all(nz).item().to_bool()) return Grads{rev / xx};
      Tensor gi = zeros_like(xx);
      int64_t n = xx.size(d);
      for (int64_t i = 0; i < n; ++i) {
        // sum_{j >= i} g_j * prod_{k <= j, k != i} x_k
        Tensor without = xx.narrow(d, i, n - i).clone();
        Tensor before = i > 0 ? prod(xx.narrow(d, 0, i), d, true) : ones_like(xx.narrow(d, 0, 1));
        NoGradGuard ng;
        without.narrow(d, 0, 1).fill_(1);
        Tensor partial = cumprod(without, d) * before;
        Tensor contrib = sum(g[0].narrow(d, i, n - i) * partial, {d}, true);
        gi.narrow(d, i, 1).copy_(contrib);
      }
      return Grads{gi};
    });
  }
  return out;
}

Tensor cumsum(const Tensor& x, int64_t dim, std::optional<Dtype> dtype) {
  if (!dtype) {
    if (autocast::Scope s(autocast::Policy::Float32Gpu, {&x}); s) return cumsum(s[0], dim);
  }
  return scan(x, dim, dtype, false);
}
Tensor cumprod(const Tensor& x, int64_t dim, std::optional<Dtype> dtype) {
  if (!dtype) {
    if (autocast::Scope s(autocast::Policy::Float32Gpu, {&x}); s) return cumprod(s[0], dim);
  }
  return scan(x, dim, dtype, true);
}

}  // namespace adept
