// Elementwise ops: type promotion, broadcasting, kernels through dispatch, and backward formulas
// (written with other ops so they run on every backend).
#include <cmath>
#include <limits>
#include <numbers>

#include "ops/autocast_scope.h"
#include "ops/helpers.h"

namespace adept {
namespace {

using autograd::record;
using autograd::SavedTensor;
using Grads = std::vector<Tensor>;

std::optional<Dtype> promote_opt(std::optional<Dtype> a, Dtype b) { return a ? promote_types(*a, b) : b; }

// PyTorch's combine_categories: `higher` wins within its category; a lower-priority operand only
// matters when it is of a higher category (e.g. a 0-d float tensor added to an int tensor).
std::optional<Dtype> combine_categories(std::optional<Dtype> higher, std::optional<Dtype> lower) {
  if (!higher) return lower;
  if (!lower) return higher;
  if (is_floating_point(*higher)) return higher;
  if (*higher == kBool || is_floating_point(*lower)) return promote_types(*higher, *lower);
  return higher;
}

bool can_cast(Dtype from, Dtype to) {
  if (is_floating_point(from) && !is_floating_point(to)) return false;
  if (from != kBool && to == kBool) return false;
  return true;
}

Dtype float_of(Dtype t) { return is_floating_point(t) ? t : default_float_dtype(); }

Tensor grad_for(const Tensor& g, const Shape& shape, Dtype dtype) {
  Tensor r = sum_to(g, shape);
  return r.dtype() == dtype ? r : r.to(dtype);
}

// Runs a binary kernel on broadcast operands converted to `compute`; result in `out_dtype`.
Tensor run_binary(BinaryOp op, const char* name, const Tensor& a, const Tensor& b, Dtype compute, Dtype out_dtype) {
  Device dev = check_same_device(name, {&a, &b});
  Shape shape = broadcast_shapes(a.sizes(), b.sizes());
  Tensor out = empty(shape, TensorOptions(out_dtype).set_device(dev));
  NoGradGuard ng;
  Tensor ac = a.to(dev, compute).expand(shape), bc = b.to(dev, compute).expand(shape);
  binary_kernel().get(dev, name, static_cast<int>(op), compute)(op, out, ac, bc);
  return out;
}

void check_int_divisor(const Tensor& b, Dtype compute, const char* op) {
  if (!is_floating_point(compute) && b.numel() > 0) {
    NoGradGuard ng;
    ADEPT_CHECK(!any(eq(b, 0)).item().to_bool(), ValueError, "{}: ZeroDivisionError (integer division by zero)", op);
  }
}

// Binary op on two tensors (scalar operands are passed as 0-d tensors with `wrapped` set so that
// they do not take part in promotion as tensors do).
Tensor binary_op(BinaryOp op, const char* name, const Tensor& a, const Tensor& b, Dtype compute) {
  bool cmp = is_comparison(op);
  Dtype out_dtype = cmp ? kBool : compute;
  Tensor out = run_binary(op, name, a, b, compute, out_dtype);
  if (cmp || !autograd::needs_grad({&a, &b})) return out;
  const bool ga = a.requires_grad(), gb = b.requires_grad();
  const Shape sa = a.sizes(), sb = b.sizes();
  const Dtype da = a.dtype(), db = b.dtype();
  SavedTensor A = a, B = b;
  SavedTensor O;
  auto fin = [=](Tensor gA, Tensor gB) {
    return Grads{ga && gA.defined() ? grad_for(gA, sa, da) : Tensor(),
                 gb && gB.defined() ? grad_for(gB, sb, db) : Tensor()};
  };
  switch (op) {
    case BinaryOp::Mul:
      record("MulBackward0", {a, b}, {out}, [=](const Grads& g) {
        return fin(ga ? g[0] * B.get() : Tensor(), gb ? g[0] * A.get() : Tensor());
      });
      break;
    case BinaryOp::Div:
      record("DivBackward0", {a, b}, {out}, [=](const Grads& g) {
        Tensor bb = B.get();
        return fin(ga ? g[0] / bb : Tensor(), gb ? -g[0] * A.get() / (bb * bb) : Tensor());
      });
      break;
    case BinaryOp::Pow:
      record("PowBackward1", {a, b}, {out}, [=](const Grads& g) {
        Tensor x = A.get(), e = B.get();
        Tensor gx, gexp;
        if (ga) gx = where(eq(e, 0), zeros({}, TensorOptions(g[0].dtype())), g[0] * e * pow(x, e - 1));
        if (gb) {
          Tensor r = pow(x, e);
          gexp = where(logical_and(eq(x, 0), ge(e, 0)), zeros({}, TensorOptions(g[0].dtype())), g[0] * r * log(x));
        }
        return fin(gx, gexp);
      });
      break;
    case BinaryOp::Maximum:
    case BinaryOp::Minimum: {
      bool is_max = op == BinaryOp::Maximum;
      record(is_max ? "MaximumBackward0" : "MinimumBackward0", {a, b}, {out}, [=](const Grads& g) {
        Tensor x = A.get(), y = B.get();
        Tensor half = g[0] * 0.5;
        Tensor wins_a = is_max ? gt(x, y) : lt(x, y);
        Tensor ties = eq(x, y);
        Tensor zero = zeros({}, TensorOptions(g[0].dtype()));
        Tensor gx = where(ties, half, where(wins_a, g[0], zero));
        Tensor gy = where(ties, half, where(wins_a, zero, g[0]));
        return fin(gx, gy);
      });
      break;
    }
    case BinaryOp::Atan2:
      record("Atan2Backward0", {a, b}, {out}, [=](const Grads& g) {
        Tensor x = A.get(), y = B.get();
        Tensor den = x * x + y * y;
        return fin(g[0] * y / den, -g[0] * x / den);
      });
      break;
    case BinaryOp::Remainder:
      record("RemainderBackward0", {a, b}, {out}, [=](const Grads& g) {
        return fin(g[0], gb ? -g[0] * floor_divide(A.get(), B.get()) : Tensor());
      });
      break;
    case BinaryOp::FloorDivide:
      record("FloorDivideBackward0", {a, b}, {out}, [=](const Grads& g) {
        return fin(zeros_like(g[0]), zeros_like(g[0]));
      });
      break;
    default:
      throw AutogradError(fmt::format("{}: derivative not implemented", name));
  }
  return out;
}

Tensor add_impl(const Tensor& a, const Tensor& b, const Scalar& alpha, Dtype compute, bool subtract) {
  const char* name = subtract ? "sub" : "add";
  ADEPT_CHECK(!(subtract && compute == kBool), DtypeError,
              "sub: subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
              "`logical_xor()` operator instead.");
  ADEPT_CHECK(!alpha.is_floating_point() || is_floating_point(compute), DtypeError,
              "{}: for integral input tensors, argument alpha must not be a floating point number", name);
  bool unit = alpha.to_double() == 1.0;
  Tensor bs;
  {
    NoGradGuard ng;
    bs = unit ? b : run_binary(BinaryOp::Mul, "mul", b, wrap_scalar(alpha, compute, b.device()), compute, compute);
  }
  Tensor out = run_binary(subtract ? BinaryOp::Sub : BinaryOp::Add, name, a, bs, compute, compute);
  if (autograd::needs_grad({&a, &b})) {
    const bool ga = a.requires_grad(), gb = b.requires_grad();
    const Shape sa = a.sizes(), sb = b.sizes();
    const Dtype da = a.dtype(), db = b.dtype();
    double k = (subtract ? -1.0 : 1.0) * alpha.to_double();
    record(subtract ? "SubBackward0" : "AddBackward0", {a, b}, {out}, [=](const Grads& g) {
      return Grads{ga ? grad_for(g[0], sa, da) : Tensor(),
                   gb ? grad_for(k == 1.0 ? g[0] : g[0] * k, sb, db) : Tensor()};
    });
  }
  return out;
}

Dtype rt(const Tensor& a, const Tensor& b) { return result_type({a, b}); }
Dtype rt(const Tensor& a, const Scalar& b) { return result_type({a}, {b}); }

Tensor div_rounding(const Tensor& a, const Tensor& b, Dtype compute, const std::optional<std::string>& mode) {
  if (!mode) {
    Dtype c = float_of(compute);
    return binary_op(BinaryOp::Div, "div", a, b, c);
  }
  if (*mode == "floor") {
    check_int_divisor(b, compute, "div");
    return binary_op(BinaryOp::FloorDivide, "div", a, b, compute);
  }
  ADEPT_CHECK(*mode == "trunc", ValueError,
              "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{}'", *mode);
  if (is_floating_point(compute)) return trunc(binary_op(BinaryOp::Div, "div", a, b, compute));
  check_int_divisor(b, compute, "div");
  return run_binary(BinaryOp::Div, "div", a, b, compute, compute);
}

// ---- unary ----

Tensor run_unary(UnaryOp op, const char* name, const Tensor& x, Dtype compute, Dtype out_dtype,
                 const UnaryParams& p = {}) {
  ADEPT_CHECK(accepts(dtype_rule(op), compute), DtypeError, "{}: not implemented for '{}'", name, dtype_name(compute));
  Tensor out = empty_like_layout(x, out_dtype, x.device());
  NoGradGuard ng;
  Tensor xc = x.to(compute);
  unary_kernel().get(x.device(), name, static_cast<int>(op), compute)(op, out, xc, p);
  return out;
}

using UnaryGrad = std::function<Tensor(const Tensor& g, const Tensor& x, const Tensor& out)>;

// What a unary op's gradient reads, so that backward keeps only that alive (SiLU's output, say, is
// often consumed by ops that save nothing, like a residual add: saving it would hold it until backward).
enum class Saves { None, Input, Output };

// Unary op with a backward formula in terms of the input x and output y (whichever `saves` names).
Tensor unary_op(UnaryOp op, const char* name, const char* node, const Tensor& x, bool floating, Saves saves,
                UnaryGrad grad, const UnaryParams& p = {}) {
  Dtype compute = floating ? float_of(x.dtype()) : x.dtype();
  Tensor out = run_unary(op, name, x, compute, compute, p);
  if (grad && autograd::needs_grad({&x})) {
    SavedTensor X = saves == Saves::Input ? SavedTensor(x) : SavedTensor(),
                Y = saves == Saves::Output ? SavedTensor::output(out) : SavedTensor();
    Dtype dx = x.dtype();
    record(node, {x}, {out}, [=](const Grads& g) {
      Tensor r = grad(g[0], X.get(), Y.get());
      return Grads{r.dtype() == dx ? r : r.to(dx)};
    });
  }
  return out;
}

Tensor zero_grad_fn(const Tensor& g, const Tensor&, const Tensor&) { return zeros_like(g); }

Tensor predicate(UnaryOp op, const char* name, const Tensor& x) { return run_unary(op, name, x, x.dtype(), kBool); }

Tensor logical_binary(BinaryOp op, const char* name, const Tensor& a, const Tensor& b) {
  return run_binary(op, name, a, b, rt(a, b), kBool);
}

Tensor bitwise_binary(BinaryOp op, const char* name, const Tensor& a, const Tensor& b) {
  Dtype c = rt(a, b);
  ADEPT_CHECK(!is_floating_point(c), DtypeError, "{}: not implemented for '{}' (expected integral or bool tensors)",
              name, dtype_name(c));
  return run_binary(op, name, a, b, c, c);
}

}  // namespace

// ---- promotion and broadcasting ----

Dtype result_type(const std::vector<Tensor>& tensors, const std::vector<Scalar>& scalars) {
  std::optional<Dtype> dim_r, zero_r, wrapped_r;
  for (const Tensor& t : tensors) {
    if (t.dim() > 0) dim_r = promote_opt(dim_r, t.dtype());
    else zero_r = promote_opt(zero_r, t.dtype());
  }
  for (const Scalar& s : scalars) wrapped_r = promote_opt(wrapped_r, s.dtype());
  auto r = combine_categories(combine_categories(dim_r, zero_r), wrapped_r);
  ADEPT_CHECK(r.has_value(), ValueError, "result_type: no operands");
  return *r;
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    ADEPT_CHECK(x == y || x == 1 || y == 1, ShapeError,
                "The size of tensor a ({}) must match the size of tensor b ({}) at non-singleton dimension {} "
                "(shapes {} and {})", x, y, i, shape_str(a), shape_str(b));
    out[i] = x == 1 ? y : x;
  }
  return out;
}

std::vector<Tensor> broadcast_tensors(const std::vector<Tensor>& ts) {
  Shape s;
  for (const Tensor& t : ts) s = broadcast_shapes(s, t.sizes());
  std::vector<Tensor> out;
  for (const Tensor& t : ts) out.push_back(t.expand(s));
  return out;
}

// ---- arithmetic ----

Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha) { return add_impl(a, b, alpha, rt(a, b), false); }
Tensor add(const Tensor& a, const Scalar& b, const Scalar& alpha) {
  Dtype c = rt(a, b);
  return add_impl(a, wrap_scalar(b, c, a.device()), alpha, c, false);
}
namespace {
// PyTorch rejects subtraction as soon as one operand (tensor or scalar) is bool.
void check_sub_operands(bool any_bool) {
  ADEPT_CHECK(!any_bool, DtypeError,
              "sub: subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a "
              "mask, use the `~` or `logical_not()` operator instead.");
}
}  // namespace

Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  check_sub_operands(a.dtype() == kBool || b.dtype() == kBool);
  return add_impl(a, b, alpha, rt(a, b), true);
}
Tensor sub(const Tensor& a, const Scalar& b, const Scalar& alpha) {
  check_sub_operands(a.dtype() == kBool || b.is_bool());
  Dtype c = rt(a, b);
  return add_impl(a, wrap_scalar(b, c, a.device()), alpha, c, true);
}
Tensor rsub(const Tensor& a, const Scalar& b) {
  check_sub_operands(a.dtype() == kBool || b.is_bool());
  Dtype c = rt(a, b);
  return add_impl(wrap_scalar(b, c, a.device()), a, 1, c, true);
}
Tensor mul(const Tensor& a, const Tensor& b) { return binary_op(BinaryOp::Mul, "mul", a, b, rt(a, b)); }
Tensor mul(const Tensor& a, const Scalar& b) {
  Dtype c = rt(a, b);
  return binary_op(BinaryOp::Mul, "mul", a, wrap_scalar(b, c, a.device()), c);
}
Tensor div(const Tensor& a, const Tensor& b, const std::optional<std::string>& mode) {
  return div_rounding(a, b, rt(a, b), mode);
}
Tensor div(const Tensor& a, const Scalar& b, const std::optional<std::string>& mode) {
  Dtype c = rt(a, b);
  return div_rounding(a, wrap_scalar(b, c, a.device()), c, mode);
}
Tensor div(const Scalar& a, const Tensor& b) {
  Dtype c = rt(b, a);
  return div_rounding(wrap_scalar(a, c, b.device()), b, c, std::nullopt);
}
Tensor floor_divide(const Tensor& a, const Tensor& b) { return div(a, b, std::string("floor")); }
Tensor floor_divide(const Tensor& a, const Scalar& b) { return div(a, b, std::string("floor")); }
Tensor remainder(const Tensor& a, const Tensor& b) {
  Dtype c = rt(a, b);
  check_int_divisor(b, c, "remainder");
  return binary_op(BinaryOp::Remainder, "remainder", a, b, c);
}
Tensor remainder(const Tensor& a, const Scalar& b) { return remainder(a, wrap_scalar(b, rt(a, b), a.device())); }
Tensor remainder(const Scalar& a, const Tensor& b) { return remainder(wrap_scalar(a, rt(b, a), b.device()), b); }

Tensor pow(const Tensor& a, const Tensor& b) {
  if (autocast::Scope s(autocast::Policy::Float32Gpu, {&a, &b}); s) return pow(s[0], s[1]);
  Dtype c = rt(a, b);
  ADEPT_CHECK(c != kBool, DtypeError, "pow: not implemented for 'bool'");
  return binary_op(BinaryOp::Pow, "pow", a, b, c);
}
Tensor pow(const Tensor& a, const Scalar& e) {
  if (autocast::Scope s(autocast::Policy::Float32Gpu, {&a}); s) return pow(s[0], e);
  Dtype c = rt(a, e);
  ADEPT_CHECK(c != kBool, DtypeError, "pow: not implemented for 'bool'");
  if (!is_floating_point(c)) {
    ADEPT_CHECK(e.to_int64() >= 0, ValueError, "pow: integers to negative integer powers are not allowed");
    return binary_op(BinaryOp::Pow, "pow", a, wrap_scalar(e, c, a.device()), c);
  }
  double ed = e.to_double();
  UnaryParams p{ed};
  return unary_op(UnaryOp::PowScalar, "pow", "PowBackward0", a.to(c), true, Saves::Input,
                  [ed](const Tensor& g, const Tensor& x, const Tensor&) {
                    if (ed == 0) return zeros_like(g);
                    return g * ed * pow(x, ed - 1);
                  }, p);
}
Tensor pow(const Scalar& a, const Tensor& e) { return pow(wrap_scalar(a, rt(e, a), e.device()), e); }

Tensor maximum(const Tensor& a, const Tensor& b) { return binary_op(BinaryOp::Maximum, "maximum", a, b, rt(a, b)); }
Tensor minimum(const Tensor& a, const Tensor& b) { return binary_op(BinaryOp::Minimum, "minimum", a, b, rt(a, b)); }
Tensor atan2(const Tensor& a, const Tensor& b) { return binary_op(BinaryOp::Atan2, "atan2", a, b, float_of(rt(a, b))); }

// ---- comparison / logic ----

#define ADEPT_COMPARE(NAME, OP)                                                                        \
  Tensor NAME(const Tensor& a, const Tensor& b) { return run_binary(BinaryOp::OP, #NAME, a, b, rt(a, b), kBool); } \
  Tensor NAME(const Tensor& a, const Scalar& b) {                                                      \
    Dtype c = rt(a, b);                                                                                \
    return run_binary(BinaryOp::OP, #NAME, a, wrap_scalar(b, c, a.device()), c, kBool);                \
  }
ADEPT_COMPARE(eq, Eq)
ADEPT_COMPARE(ne, Ne)
ADEPT_COMPARE(lt, Lt)
ADEPT_COMPARE(le, Le)
ADEPT_COMPARE(gt, Gt)
ADEPT_COMPARE(ge, Ge)
#undef ADEPT_COMPARE

Tensor logical_and(const Tensor& a, const Tensor& b) { return logical_binary(BinaryOp::LogicalAnd, "logical_and", a, b); }
Tensor logical_or(const Tensor& a, const Tensor& b) { return logical_binary(BinaryOp::LogicalOr, "logical_or", a, b); }
Tensor logical_xor(const Tensor& a, const Tensor& b) { return logical_binary(BinaryOp::LogicalXor, "logical_xor", a, b); }
Tensor logical_not(const Tensor& a) { return predicate(UnaryOp::LogicalNot, "logical_not", a); }
Tensor bitwise_and(const Tensor& a, const Tensor& b) { return bitwise_binary(BinaryOp::BitwiseAnd, "bitwise_and", a, b); }
Tensor bitwise_or(const Tensor& a, const Tensor& b) { return bitwise_binary(BinaryOp::BitwiseOr, "bitwise_or", a, b); }
Tensor bitwise_xor(const Tensor& a, const Tensor& b) { return bitwise_binary(BinaryOp::BitwiseXor, "bitwise_xor", a, b); }
Tensor bitwise_not(const Tensor& a) {
  ADEPT_CHECK(!a.is_floating_point(), DtypeError, "bitwise_not: not implemented for '{}'", dtype_name(a.dtype()));
  return run_unary(UnaryOp::BitwiseNot, "bitwise_not", a, a.dtype(), a.dtype());
}

Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  NoGradGuard ng;
  ADEPT_CHECK(a.dtype() == b.dtype(), DtypeError, "isclose: {} did not match {}", dtype_name(a.dtype()), dtype_name(b.dtype()));
  Tensor close = eq(a, b);
  if (!a.is_floating_point() && rtol == 0 && atol == 0) return close;
  // Integer and bool operands are compared in the default float dtype (no wrap-around), as in
  // PyTorch.
  const Dtype f = a.is_floating_point() ? a.dtype() : default_float_dtype();
  Tensor af = a.to(f), bf = b.to(f);
  Tensor diff = abs(sub(af, bf));
  Tensor tol = add(mul(abs(bf), rtol), atol);
  close = logical_or(close, logical_and(le(diff, tol), isfinite(diff)));
  if (equal_nan && a.is_floating_point()) close = logical_or(close, logical_and(isnan(a), isnan(b)));
  return close;
}
bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  return all(isclose(a, b, rtol, atol, equal_nan)).item().to_bool();
}
bool equal(const Tensor& a, const Tensor& b) {
  if (a.sizes() != b.sizes()) return false;
  NoGradGuard ng;
  return all(eq(a, b)).item().to_bool();
}

// ---- where / clamp ----

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  ADEPT_CHECK(cond.dtype() == kBool, DtypeError, "where: expected condition to be a boolean tensor, but got a tensor with "
              "dtype {}", dtype_name(cond.dtype()));
  Device dev = check_same_device("where", {&cond, &a, &b});
  Dtype c = rt(a, b);
  Shape shape = broadcast_shapes(broadcast_shapes(cond.sizes(), a.sizes()), b.sizes());
  Tensor out = empty(shape, TensorOptions(c).set_device(dev));
  {
    NoGradGuard ng;
    where_kernel().get(dev, "where")(out, cond.to(dev).expand(shape), a.to(dev, c).expand(shape),
                                     b.to(dev, c).expand(shape));
  }
  if (autograd::needs_grad({&a, &b})) {
    const bool ga = a.requires_grad(), gb = b.requires_grad();
    const Shape sa = a.sizes(), sb = b.sizes();
    const Dtype da = a.dtype(), db = b.dtype();
    Tensor cnd = cond.detach();
    record("WhereBackward0", {a, b}, {out}, [=](const Grads& g) {
      Tensor zero = zeros({}, TensorOptions(g[0].dtype()).set_device(g[0].device()));
      return Grads{ga ? grad_for(where(cnd, g[0], zero), sa, da) : Tensor(),
                   gb ? grad_for(where(cnd, zero, g[0]), sb, db) : Tensor()};
    });
  }
  return out;
}
Tensor where(const Tensor& cond, const Tensor& a, const Scalar& b) {
  return where(cond, a, wrap_scalar(b, rt(a, b), a.device()));
}
Tensor where(const Tensor& cond, const Scalar& a, const Tensor& b) {
  return where(cond, wrap_scalar(a, rt(b, a), b.device()), b);
}

Tensor clamp(const Tensor& x, std::optional<Scalar> mn, std::optional<Scalar> mx) {
  ADEPT_CHECK(mn || mx, ValueError, "clamp: at least one of 'min' or 'max' must not be None");
  std::vector<Scalar> sc;
  if (mn) sc.push_back(*mn);
  if (mx) sc.push_back(*mx);
  Dtype c = result_type({x}, sc);
  constexpr double inf = std::numeric_limits<double>::infinity();
  UnaryParams p{mn ? mn->to_double() : -inf, mx ? mx->to_double() : inf};
  Tensor xin = x.to(c);
  return unary_op(UnaryOp::Clamp, "clamp", "ClampBackward1", xin, false, Saves::Input,
                  [p](const Tensor& g, const Tensor& xx, const Tensor&) {
                    Tensor keep = logical_and(ge(xx, p.a), le(xx, p.b));
                    return where(keep, g, zeros({}, TensorOptions(g.dtype()).set_device(g.device())));
                  }, p);
}
Tensor clamp(const Tensor& x, const Tensor& mn, const Tensor& mx) {
  Tensor r = x;
  if (mn.defined()) r = maximum(r, mn);
  if (mx.defined()) r = minimum(r, mx);
  return r;
}

// ---- unary ----

#define ADEPT_UNARY(NAME, OP, NODE, FLOATING, SAVES, GRAD) \
  Tensor NAME(const Tensor& x) { return unary_op(UnaryOp::OP, #NAME, NODE, x, FLOATING, Saves::SAVES, GRAD); }
// The same for the ops autocast runs in float32 (ops/autocast.h).
#define ADEPT_UNARY_FLOAT32(NAME, OP, NODE, FLOATING, SAVES, GRAD)                \
  Tensor NAME(const Tensor& x) {                                                  \
    if (autocast::Scope s(autocast::Policy::Float32Gpu, {&x}); s) return NAME(s[0]); \
    return unary_op(UnaryOp::OP, #NAME, NODE, x, FLOATING, Saves::SAVES, GRAD);   \
  }

ADEPT_UNARY(abs, Abs, "AbsBackward0", false, Input, [](const Tensor& g, const Tensor& x, const Tensor&) { return g * sign(x); })
ADEPT_UNARY(sign, Sign, "SignBackward0", false, None, zero_grad_fn)
ADEPT_UNARY(floor, Floor, "FloorBackward0", false, None, zero_grad_fn)
ADEPT_UNARY(ceil, Ceil, "CeilBackward0", false, None, zero_grad_fn)
ADEPT_UNARY(trunc, Trunc, "TruncBackward0", false, None, zero_grad_fn)
ADEPT_UNARY_FLOAT32(exp, Exp, "ExpBackward0", true, Output,
                    [](const Tensor& g, const Tensor&, const Tensor& y) { return g * y; })
ADEPT_UNARY(exp2, Exp2, "Exp2Backward0", true, Output,
            [](const Tensor& g, const Tensor&, const Tensor& y) { return g * y * std::numbers::ln2; })
ADEPT_UNARY_FLOAT32(log, Log, "LogBackward0", true, Input,
                    [](const Tensor& g, const Tensor& x, const Tensor&) { return g / x; })
ADEPT_UNARY_FLOAT32(log2, Log2, "Log2Backward0", true, Input,
                    [](const Tensor& g, const Tensor& x, const Tensor&) { return g / (x * std::numbers::ln2); })
ADEPT_UNARY_FLOAT32(log1p, Log1p, "Log1PBackward0", true, Input,
                    [](const Tensor& g, const Tensor& x, const Tensor&) { return g / (x + 1); })
ADEPT_UNARY_FLOAT32(expm1, Expm1, "Expm1Backward0", true, Output,
                    [](const Tensor& g, const Tensor&, const Tensor& y) { return g * (y + 1); })
ADEPT_UNARY(sqrt, Sqrt, "SqrtBackward0", true, Output, [](const Tensor& g, const Tensor&, const Tensor& y) { return g / (y * 2); })
ADEPT_UNARY_FLOAT32(rsqrt, Rsqrt, "RsqrtBackward0", true, Output,
                    [](const Tensor& g, const Tensor&, const Tensor& y) { return g * y * y * y * -0.5; })
ADEPT_UNARY_FLOAT32(reciprocal, Reciprocal, "ReciprocalBackward0", true, Output,
                    [](const Tensor& g, const Tensor&, const Tensor& y) { return -g * y * y; })
ADEPT_UNARY(sin, Sin, "SinBackward0", true, Input, [](const Tensor& g, const Tensor& x, const Tensor&) { return g * cos(x); })
ADEPT_UNARY(cos, Cos, "CosBackward0", true, Input, [](const Tensor& g, const Tensor& x, const Tensor&) { return -g * sin(x); })
ADEPT_UNARY_FLOAT32(tan, Tan, "TanBackward0", true, Output,
                    [](const Tensor& g, const Tensor&, const Tensor& y) { return g * (y * y + 1); })
ADEPT_UNARY(atan, Atan, "AtanBackward0", true, Input, [](const Tensor& g, const Tensor& x, const Tensor&) { return g / (x * x + 1); })
ADEPT_UNARY(tanh, Tanh, "TanhBackward0", true, Output, [](const Tensor& g, const Tensor&, const Tensor& y) { return g * (1 - y * y); })
ADEPT_UNARY(sigmoid, Sigmoid, "SigmoidBackward0", true, Output,
            [](const Tensor& g, const Tensor&, const Tensor& y) { return g * y * (1 - y); })
ADEPT_UNARY(relu, Relu, "ReluBackward0", false, Output,
            [](const Tensor& g, const Tensor&, const Tensor& y) { return where(gt(y, 0), g, zeros({}, TensorOptions(g.dtype()))); })
ADEPT_UNARY(silu, Silu, "SiluBackward0", true, Input, [](const Tensor& g, const Tensor& x, const Tensor&) {
  if (!is_grad_enabled() && silu_backward_kernel().has(x.device().type)) {
    // One fused pass; the formula below stays for create_graph (differentiable again) and for
    // devices without the kernel.
    Tensor gx = empty_like_layout(x, x.dtype(), x.device());
    silu_backward_kernel().get(x.device(), "silu backward")(gx, g.to(x.dtype()), x);
    return gx;
  }
  Tensor s = sigmoid(x);
  return g * s * (1 + x * (1 - s));
})
ADEPT_UNARY(erf, Erf, "ErfBackward0", true, Input, [](const Tensor& g, const Tensor& x, const Tensor&) {
  return g * exp(-(x * x)) * (2.0 / std::sqrt(std::numbers::pi));
})
#undef ADEPT_UNARY
#undef ADEPT_UNARY_FLOAT32

Tensor square(const Tensor& x) {
  // Bool squares in int64, as torch (square is pow(x, 2)).
  return unary_op(UnaryOp::Square, "square", "PowBackward0", x.dtype() == kBool ? x.to(kInt64) : x, false, Saves::Input,
                  [](const Tensor& g, const Tensor& xx, const Tensor&) { return g * xx * 2; });
}

Tensor neg(const Tensor& x) {
  ADEPT_CHECK(x.dtype() != kBool, DtypeError,
              "neg: negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a "
              "mask, use the `~` or `logical_not()` operator instead.");
  return unary_op(UnaryOp::Neg, "neg", "NegBackward0", x, false, Saves::None,
                  [](const Tensor& g, const Tensor&, const Tensor&) { return -g; });
}

Tensor round(const Tensor& x, int64_t decimals) {
  if (decimals == 0) return unary_op(UnaryOp::Round, "round", "RoundBackward0", x, false, Saves::None, zero_grad_fn);
  return unary_op(UnaryOp::RoundDecimals, "round", "RoundBackward1", x, false, Saves::None, zero_grad_fn,
                  UnaryParams{static_cast<double>(decimals)});
}

Tensor gelu(const Tensor& x, const std::string& approximate) {
  ADEPT_CHECK(approximate == "none" || approximate == "tanh", ValueError,
              "gelu: approximate must be 'none' or 'tanh', got '{}'", approximate);
  ADEPT_CHECK(x.is_floating_point(), DtypeError, "gelu: not implemented for '{}'", dtype_name(x.dtype()));
  if (approximate == "none") {
    return unary_op(UnaryOp::GeluErf, "gelu", "GeluBackward0", x, true, Saves::Input, [](const Tensor& g, const Tensor& xx, const Tensor&) {
      Tensor cdf = (erf(xx * std::numbers::sqrt2 * 0.5) + 1) * 0.5;
      Tensor pdf = exp(xx * xx * -0.5) * (1.0 / std::sqrt(2 * std::numbers::pi));
      return g * (cdf + xx * pdf);
    });
  }
  return unary_op(UnaryOp::GeluTanh, "gelu", "GeluBackward0", x, true, Saves::Input, [](const Tensor& g, const Tensor& xx, const Tensor&) {
    const double k = std::sqrt(2.0 / std::numbers::pi), c = 0.044715;
    Tensor inner = (xx + xx * xx * xx * c) * k;
    Tensor t = tanh(inner);
    Tensor dinner = (xx * xx * (3 * c) + 1) * k;
    return g * ((t + 1) * 0.5 + xx * 0.5 * (1 - t * t) * dinner);
  });
}

Tensor softplus(const Tensor& x, double beta, double threshold) {
  if (autocast::Scope s(autocast::Policy::Float32Gpu, {&x}); s) return softplus(s[0], beta, threshold);
  ADEPT_CHECK(x.is_floating_point(), DtypeError, "softplus: not implemented for '{}'", dtype_name(x.dtype()));
  return unary_op(UnaryOp::Softplus, "softplus", "SoftplusBackward0", x, true, Saves::Input,
                  [beta, threshold](const Tensor& g, const Tensor& xx, const Tensor&) {
                    return where(gt(xx * beta, threshold), g, g * sigmoid(xx * beta));
                  }, UnaryParams{beta, threshold});
}

Tensor logsigmoid(const Tensor& x) {
  ADEPT_CHECK(x.is_floating_point(), DtypeError, "logsigmoid: not implemented for '{}'", dtype_name(x.dtype()));
  return unary_op(UnaryOp::LogSigmoid, "logsigmoid", "LogSigmoidBackward0", x, true, Saves::Input,
                  [](const Tensor& g, const Tensor& xx, const Tensor&) { return g * sigmoid(-xx); });
}

Tensor hardshrink(const Tensor& x, double lambd) {
  ADEPT_CHECK(x.is_floating_point(), DtypeError, "hardshrink: not implemented for '{}'", dtype_name(x.dtype()));
  return unary_op(UnaryOp::Hardshrink, "hardshrink", "HardshrinkBackward0", x, false, Saves::Input,
                  [lambd](const Tensor& g, const Tensor& xx, const Tensor&) {
                    Tensor inside = logical_and(ge(xx, -lambd), le(xx, lambd));
                    return where(inside, zeros({}, TensorOptions(g.dtype()).set_device(g.device())), g);
                  }, UnaryParams{lambd});
}

Tensor leaky_relu(const Tensor& x, double slope) {
  ADEPT_CHECK(x.is_floating_point(), DtypeError, "leaky_relu: not implemented for '{}'", dtype_name(x.dtype()));
  return unary_op(UnaryOp::LeakyRelu, "leaky_relu", "LeakyReluBackward0", x, false, Saves::Input,
                  [slope](const Tensor& g, const Tensor& xx, const Tensor&) { return where(gt(xx, 0), g, g * slope); },
                  UnaryParams{slope});
}

Tensor isnan(const Tensor& x) { return predicate(UnaryOp::IsNan, "isnan", x); }
Tensor isinf(const Tensor& x) { return predicate(UnaryOp::IsInf, "isinf", x); }
Tensor isfinite(const Tensor& x) { return predicate(UnaryOp::IsFinite, "isfinite", x); }
Tensor isposinf(const Tensor& x) { return predicate(UnaryOp::IsPosInf, "isposinf", x); }
Tensor isneginf(const Tensor& x) { return predicate(UnaryOp::IsNegInf, "isneginf", x); }

Tensor nan_to_num(const Tensor& x, double nan, std::optional<double> posinf, std::optional<double> neginf) {
  double hi = std::numeric_limits<double>::max(), lo = std::numeric_limits<double>::lowest();
  switch (x.dtype()) {
    case kFloat32: hi = std::numeric_limits<float>::max(); break;
    case kFloat16: hi = 65504.0; break;
    case kBFloat16: hi = 3.3895313892515355e38; break;
    default: break;
  }
  if (x.dtype() != kFloat64) lo = -hi;
  UnaryParams p{nan, posinf.value_or(hi), neginf.value_or(lo)};
  return unary_op(UnaryOp::NanToNum, "nan_to_num", "NanToNumBackward0", x, false, Saves::Input,
                  [](const Tensor& g, const Tensor& xx, const Tensor&) {
                    return where(isfinite(xx), g, zeros({}, TensorOptions(g.dtype())));
                  }, p);
}

// ---- in place ----

namespace {
Tensor& inplace_result(Tensor& self, const Tensor& result, const char* op) {
  check_inplace(self, op);
  ADEPT_CHECK(can_cast(result.dtype(), self.dtype()), DtypeError,
              "{}: result type {} can't be cast to the desired output type {}", op, dtype_name(result.dtype()),
              dtype_name(self.dtype()));
  ADEPT_CHECK(result.sizes() == self.sizes(), ShapeError,
              "{}: output with shape {} doesn't match the broadcast shape {}", op, shape_str(self.sizes()),
              shape_str(result.sizes()));
  return commit_inplace(self, result, op);
}
// Input to use for the out-of-place computation: a clone when autograd must keep the old value.
Tensor inplace_input(const Tensor& self, std::initializer_list<const Tensor*> others) {
  bool grad = is_grad_enabled() && (self.requires_grad() || [&] {
    for (auto* o : others) if (o->requires_grad()) return true;
    return false;
  }());
  return grad ? self.clone() : self;
}
}  // namespace

Tensor& add_(Tensor& self, const Tensor& b, const Scalar& alpha) {
  check_inplace(self, "add_");
  return inplace_result(self, add(inplace_input(self, {&b}), b, alpha), "add_");
}
Tensor& add_(Tensor& self, const Scalar& b, const Scalar& alpha) {
  check_inplace(self, "add_");
  return inplace_result(self, add(inplace_input(self, {}), b, alpha), "add_");
}
Tensor& sub_(Tensor& self, const Tensor& b, const Scalar& alpha) {
  check_inplace(self, "sub_");
  return inplace_result(self, sub(inplace_input(self, {&b}), b, alpha), "sub_");
}
Tensor& sub_(Tensor& self, const Scalar& b, const Scalar& alpha) {
  check_inplace(self, "sub_");
  return inplace_result(self, sub(inplace_input(self, {}), b, alpha), "sub_");
}
Tensor& mul_(Tensor& self, const Tensor& b) {
  check_inplace(self, "mul_");
  return inplace_result(self, mul(inplace_input(self, {&b}), b), "mul_");
}
Tensor& mul_(Tensor& self, const Scalar& b) {
  check_inplace(self, "mul_");
  return inplace_result(self, mul(inplace_input(self, {}), b), "mul_");
}
Tensor& div_(Tensor& self, const Tensor& b) {
  check_inplace(self, "div_");
  return inplace_result(self, div(inplace_input(self, {&b}), b), "div_");
}
Tensor& div_(Tensor& self, const Scalar& b) {
  check_inplace(self, "div_");
  return inplace_result(self, div(inplace_input(self, {}), b), "div_");
}
Tensor& pow_(Tensor& self, const Scalar& b) {
  check_inplace(self, "pow_");
  return inplace_result(self, pow(inplace_input(self, {}), b), "pow_");
}
Tensor& clamp_(Tensor& self, std::optional<Scalar> mn, std::optional<Scalar> mx) {
  check_inplace(self, "clamp_");
  return inplace_result(self, clamp(inplace_input(self, {}), mn, mx), "clamp_");
}
Tensor& neg_(Tensor& self) { check_inplace(self, "neg_"); return inplace_result(self, neg(inplace_input(self, {})), "neg_"); }
Tensor& exp_(Tensor& self) { check_inplace(self, "exp_"); return inplace_result(self, exp(inplace_input(self, {})), "exp_"); }
Tensor& sqrt_(Tensor& self) { check_inplace(self, "sqrt_"); return inplace_result(self, sqrt(inplace_input(self, {})), "sqrt_"); }
Tensor& relu_(Tensor& self) { check_inplace(self, "relu_"); return inplace_result(self, relu(inplace_input(self, {})), "relu_"); }
Tensor& sigmoid_(Tensor& self) {
  check_inplace(self, "sigmoid_");
  return inplace_result(self, sigmoid(inplace_input(self, {})), "sigmoid_");
}

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  ADEPT_CHECK(mask.dtype() == kBool, DtypeError, "masked_fill: expected a bool mask, got {}", dtype_name(mask.dtype()));
  ADEPT_CHECK(value.dim() == 0, ShapeError,
              "masked_fill: only supports a 0-dimensional value tensor, but got tensor with {} dimension(s)", value.dim());
  return where(mask, value.to(self.dtype()), self).to(self.dtype());
}
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  return masked_fill(self, mask, wrap_scalar(value, self.dtype(), self.device()));
}
Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Scalar& value) {
  check_inplace(self, "masked_fill_");
  Tensor r = masked_fill(inplace_input(self, {}), mask, value);
  return inplace_result(self, r, "masked_fill_");
}

}  // namespace adept
