// CPU elementwise unary kernels. Floating ops compute in compute_t<T> (float for 16-bit types).
#include <cmath>
#include <limits>

#include "backends/cpu/convert.h"
#include "backends/cpu/loops.h"
#include "backends/cpu/simd.h"
#include "kernels/kernels.h"

namespace adept::cpu {
namespace {

// out = f(in); float32 ops with a SIMD kernel (simd.h) take it on contiguous runs, strided runs
// and other dtypes use the scalar reference f.
template <class T, class F>
void unary_dispatch(UnaryOp op, const Tensor& out, const Tensor& in, const UnaryParams& params, F f) {
  if constexpr (std::is_same_v<T, float>) {
    if (simd::UnaryRunF32 run = simd::unary_run_f32(op)) {
      auto it = make_iter<2>({&out, &in});
      for_each_run(it, [&](std::array<char*, 2> p, std::array<int64_t, 2> s, int64_t n) {
        if (s[0] == sizeof(float) && s[1] == sizeof(float)) {
          run(reinterpret_cast<float*>(p[0]), reinterpret_cast<const float*>(p[1]), n, static_cast<float>(params.a),
              static_cast<float>(params.b));
        } else {
          for (int64_t i = 0; i < n; ++i) {
            *reinterpret_cast<float*>(p[0] + i * s[0]) = f(*reinterpret_cast<const float*>(p[1] + i * s[1]));
          }
        }
      });
      return;
    }
  }
  unary_loop<T, T>(out, in, f);
}

template <class C>
inline C round_half_even(C x) { return std::nearbyint(x); }

#define ADEPT_UNARY_CASE(OP, EXPR)                                                     \
  case UnaryOp::OP:                                                                    \
    unary_dispatch<T>(op, out, in, p, [=](T xv) { const C x = static_cast<C>(xv); return T(EXPR); }); \
    return;
#define ADEPT_PREDICATE_CASE(OP, EXPR)                                                       \
  case UnaryOp::OP:                                                                          \
    unary_loop<bool, T>(out, in, [=](T xv) { const C x = static_cast<C>(xv); return static_cast<bool>(EXPR); }); \
    return;

template <class T>
void unary_floating(UnaryOp op, const Tensor& out, const Tensor& in, const UnaryParams& p) {
  using C = compute_t<T>;
  const C a = static_cast<C>(p.a), b = static_cast<C>(p.b), c = static_cast<C>(p.c);
  const C lambd = static_cast<C>(static_cast<T>(p.a));
  constexpr C kSqrtHalf = C(0.70710678118654752440);
  constexpr C kSqrt2OverPi = C(0.79788456080286535588);
  switch (op) {
    ADEPT_UNARY_CASE(Neg, -x)
    ADEPT_UNARY_CASE(Abs, std::abs(x))
    ADEPT_UNARY_CASE(Sign, std::isnan(x) ? C(0) : C((C(0) < x) - (x < C(0))))
    ADEPT_UNARY_CASE(Floor, std::floor(x))
    ADEPT_UNARY_CASE(Ceil, std::ceil(x))
    ADEPT_UNARY_CASE(Round, round_half_even(x))
    ADEPT_UNARY_CASE(RoundDecimals, a >= 0 ? round_half_even(x * std::pow(C(10), a)) / std::pow(C(10), a)
                                           : round_half_even(x / std::pow(C(10), -a)) * std::pow(C(10), -a))
    ADEPT_UNARY_CASE(Trunc, std::trunc(x))
    ADEPT_UNARY_CASE(Exp, std::exp(x))
    ADEPT_UNARY_CASE(Exp2, std::exp2(x))
    ADEPT_UNARY_CASE(Log, std::log(x))
    ADEPT_UNARY_CASE(Log2, std::log2(x))
    ADEPT_UNARY_CASE(Log1p, std::log1p(x))
    ADEPT_UNARY_CASE(Expm1, std::expm1(x))
    ADEPT_UNARY_CASE(Sqrt, std::sqrt(x))
    ADEPT_UNARY_CASE(Rsqrt, C(1) / std::sqrt(x))
    ADEPT_UNARY_CASE(Square, x * x)
    ADEPT_UNARY_CASE(Reciprocal, C(1) / x)
    ADEPT_UNARY_CASE(Sin, std::sin(x))
    ADEPT_UNARY_CASE(Cos, std::cos(x))
    ADEPT_UNARY_CASE(Tan, std::tan(x))
    ADEPT_UNARY_CASE(Atan, std::atan(x))
    ADEPT_UNARY_CASE(Tanh, std::tanh(x))
    ADEPT_UNARY_CASE(Sigmoid, C(1) / (C(1) + std::exp(-x)))
    ADEPT_UNARY_CASE(Relu, x < C(0) ? C(0) : x)  // keeps NaN and -0.0, as torch
    ADEPT_UNARY_CASE(Silu, x / (C(1) + std::exp(-x)))
    ADEPT_UNARY_CASE(GeluErf, C(0.5) * x * (C(1) + std::erf(x * kSqrtHalf)))
    ADEPT_UNARY_CASE(GeluTanh, C(0.5) * x * (C(1) + std::tanh(kSqrt2OverPi * (x + C(0.044715) * x * x * x))))
    ADEPT_UNARY_CASE(Softplus, x * a > b ? x : std::log1p(std::exp(x * a)) / a)
    ADEPT_UNARY_CASE(LeakyRelu, x > C(0) ? x : x * a)
    ADEPT_UNARY_CASE(Erf, std::erf(x))
    ADEPT_UNARY_CASE(LogSigmoid, std::min(x, C(0)) - std::log1p(std::exp(-std::abs(x))))
    // lambd rounded to the tensor's dtype first, as torch (and as the backward's comparisons do).
    ADEPT_UNARY_CASE(Hardshrink, x >= -lambd && x <= lambd ? C(0) : x)  // NaN stays NaN
    ADEPT_UNARY_CASE(PowScalar, a == C(2) ? x * x : a == C(0.5) ? std::sqrt(x) : std::pow(x, a))
    ADEPT_UNARY_CASE(Clamp, std::isnan(x) ? x : std::min(std::max(x, a), b))
    ADEPT_UNARY_CASE(NanToNum, std::isnan(x) ? a : (x == std::numeric_limits<C>::infinity() ? b
                               : (x == -std::numeric_limits<C>::infinity() ? c : x)))
    ADEPT_PREDICATE_CASE(IsNan, std::isnan(x))
    ADEPT_PREDICATE_CASE(IsInf, std::isinf(x))
    ADEPT_PREDICATE_CASE(IsFinite, std::isfinite(x))
    ADEPT_PREDICATE_CASE(IsPosInf, x == std::numeric_limits<C>::infinity())
    ADEPT_PREDICATE_CASE(IsNegInf, x == -std::numeric_limits<C>::infinity())
    ADEPT_PREDICATE_CASE(LogicalNot, x == C(0))
    default:
      break;
  }
  throw DtypeError(fmt::format("{}: not implemented for dtype {}", op_name(op),
                               dtype_name(in.dtype())));
}

template <class T>
void unary_integral(UnaryOp op, const Tensor& out, const Tensor& in, const UnaryParams& p) {
  using C = std::conditional_t<std::is_same_v<T, bool>, int64_t, T>;
  const auto lo = static_cast<double>(p.a), hi = static_cast<double>(p.b);
  switch (op) {
    ADEPT_UNARY_CASE(Neg, static_cast<T>(-x))
    ADEPT_UNARY_CASE(Abs, x < 0 ? static_cast<T>(-x) : static_cast<T>(x))
    ADEPT_UNARY_CASE(Sign, (C(0) < x) - (x < C(0)))
    ADEPT_UNARY_CASE(Square, static_cast<T>(x * x))
    ADEPT_UNARY_CASE(Relu, x > 0 ? x : C(0))
    ADEPT_UNARY_CASE(Clamp, static_cast<C>(std::min(std::max(static_cast<double>(x), lo), hi)))
    case UnaryOp::Floor: case UnaryOp::Ceil: case UnaryOp::Round: case UnaryOp::Trunc: case UnaryOp::NanToNum:
    case UnaryOp::RoundDecimals:
      unary_loop<T, T>(out, in, [](T v) { return v; });
      return;
    case UnaryOp::BitwiseNot:
      if constexpr (std::is_same_v<T, bool>) {
        unary_loop<T, T>(out, in, [](T v) { return !v; });
      } else {
        unary_loop<T, T>(out, in, [](T v) { return static_cast<T>(~v); });
      }
      return;
    ADEPT_PREDICATE_CASE(LogicalNot, x == 0)
    ADEPT_PREDICATE_CASE(IsNan, false && x)
    ADEPT_PREDICATE_CASE(IsInf, false && x)
    ADEPT_PREDICATE_CASE(IsPosInf, false && x)
    ADEPT_PREDICATE_CASE(IsNegInf, false && x)
    ADEPT_PREDICATE_CASE(IsFinite, true || x)
    default:
      break;
  }
  throw DtypeError(fmt::format("{}: not implemented for dtype {}", op_name(op),
                               dtype_name(in.dtype())));
}

void unary_cpu(UnaryOp op, const Tensor& out, const Tensor& in, const UnaryParams& p) {
  if (out.numel() == 0) return;
  ADEPT_DISPATCH_ALL(in.dtype(), "unary", [&] {
    if constexpr (std::is_floating_point_v<compute_t<scalar_t>>) {
      unary_floating<scalar_t>(op, out, in, p);
    } else {
      unary_integral<scalar_t>(op, out, in, p);
    }
  });
}

}  // namespace

ADEPT_REGISTER_KERNEL(unary_kernel, CPU, unary_cpu)

}  // namespace adept::cpu
