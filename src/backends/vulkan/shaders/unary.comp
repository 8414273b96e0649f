#version 450
// out = OP(x) elementwise (OP: specialization constant, a UNARY_* code of the generated op_table.glsl).
// float16 and bfloat16 compute in float32, float64 in double; integer variants implement the integer
// subset. The `case` labels after each `@variant` marker are the ops that variant implements (read at
// build time): `float` every floating dtype, `single` float32/float16/bfloat16, `double` float64 (GLSL
// has no float64 exp, log, trigonometric functions: double_math.glsl implements them), `int` the
// integer and bool dtypes.
// @build unary = all
// @build unary bool all
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "elementwise_pc.glsl"
#include "op_table.glsl"
#include "double_math.glsl"
#if IS_FLOAT && !IS_DOUBLE
#include "trig_reduce.glsl"
#endif
layout(local_size_x = 256) in;
layout(constant_id = 0) const int OP = 0;
layout(std430, set = 0, binding = 1) writeonly buffer Out { T_0 out_[]; };
layout(std430, set = 0, binding = 2) readonly buffer In { T_1 in_[]; };

#if IS_FLOAT && !IS_DOUBLE
// float32 versions of the functions whose GLSL built-ins are inexact near 0 (or missing): short series
// near 0, the built-ins elsewhere.
float erf_approx(float x) {
  if (abs(x) < 0.5) {  // Taylor series: 2/sqrt(pi) (x - x^3/3 + x^5/10 - x^7/42 + x^9/216)
    const float x2 = x * x;
    return 1.1283791671 * x * (1.0 + x2 * (-1.0 / 3.0 + x2 * (0.1 + x2 * (-1.0 / 42.0 + x2 / 216.0))));
  }
  // Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7).
  float s = sign(x);
  x = abs(x);
  float t = 1.0 / (1.0 + 0.3275911 * x);
  float y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * exp(-x * x);
  return s * y;
}
float log1p_(float x) {
  if (x < -1.0) return uintBitsToFloat(0x7fc00000u);
  if (abs(x) >= 0.5 || x == 0.0) return x == 0.0 ? x : log(1.0 + x);
  const float s = x / (2.0 + x), s2 = s * s;  // log(1 + x) = 2 atanh(s)
  float term = s, sum = 0.0;
  for (int k = 1; k <= 19; k += 2) { sum += term / float(k); term *= s2; }
  return 2.0 * sum;
}
float expm1_(float x) {
  if (abs(x) >= 0.5 || x == 0.0) return x == 0.0 ? x : exp(x) - 1.0;
  float term = x, sum = x;
  for (int k = 2; k <= 10; ++k) { term *= x / float(k); sum += term; }
  return sum;
}
float tanh_(float x) {
  if (abs(x) < 0.125) {  // x - x^3/3 + 2x^5/15 - 17x^7/315
    const float x2 = x * x;
    return x * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 - x2 * 17.0 / 315.0)));
  }
  return tanh(clamp(x, -15.0, 15.0));
}
float sigmoid_(float x) { return 1.0 / (1.0 + exp(-x)); }
#endif

#define PA C_1(PARAM(pc.a))
#define PB C_1(PARAM(pc.b))
#define PC C_1(PARAM(pc.c))

void main() {
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint i = gl_GlobalInvocationID.x; i < pc.numel; i += stride) {
    C_1 x = LOAD_1(in_[idx(i, 1u)]);
    C_1 r;
    switch (OP) {
#if IS_FLOAT
      // @variant float
      case UNARY_Neg: r = -x; break;
      case UNARY_Abs: r = abs(x); break;
      case UNARY_Sign: r = isnan(x) ? C_1(0) : sign(x); break;
      case UNARY_Floor: r = floor(x); break;
      case UNARY_Ceil: r = ceil(x); break;
#if IS_DOUBLE
      case UNARY_Round: r = d_round_even(x); break;
#else
      case UNARY_Round: r = roundEven(x); break;
#endif
      case UNARY_Trunc: r = trunc(x); break;
      case UNARY_Sqrt: r = sqrt(x); break;
      case UNARY_Rsqrt: r = inversesqrt(x); break;
      case UNARY_Relu: r = isnan(x) ? x : max(x, C_1(0)); break;
      case UNARY_Reciprocal: r = C_1(1) / x; break;
      case UNARY_LogicalNot: r = C_1(x == C_1(0)); break;
      case UNARY_IsNan: r = C_1(isnan(x)); break;
      case UNARY_IsInf: r = C_1(isinf(x)); break;
      case UNARY_IsFinite: r = C_1(!isnan(x) && !isinf(x)); break;
      case UNARY_IsPosInf: r = C_1(isinf(x) && x > C_1(0)); break;
      case UNARY_IsNegInf: r = C_1(isinf(x) && x < C_1(0)); break;
      case UNARY_Clamp: r = isnan(x) ? x : min(max(x, PA), PB); break;
      case UNARY_NanToNum: r = isnan(x) ? PA : (isinf(x) ? (x > C_1(0) ? PB : PC) : x); break;
      case UNARY_LeakyRelu: r = x > C_1(0) ? x : x * PA; break;
      case UNARY_Square: r = x * x; break;
      case UNARY_Hardshrink: r = (x >= -PA && x <= PA) ? C_1(0) : x; break;
#if !IS_DOUBLE
      // @variant single
      case UNARY_Exp: r = exp(x); break;
      case UNARY_Exp2: r = exp2(x); break;
      case UNARY_Log: r = log(x); break;
      case UNARY_Log2: r = log2(x); break;
      case UNARY_Log1p: r = log1p_(x); break;
      case UNARY_Expm1: r = expm1_(x); break;
      case UNARY_Sin: r = sincos_f(x, false); break;
      case UNARY_Cos: r = sincos_f(x, true); break;
      case UNARY_Tan: r = sincos_f(x, false) / sincos_f(x, true); break;
      case UNARY_Atan: r = atan_f(x); break;
      case UNARY_Tanh: r = tanh_(x); break;
      case UNARY_Sigmoid: r = sigmoid_(x); break;
      case UNARY_Silu: r = x * sigmoid_(x); break;
      case UNARY_GeluErf: r = 0.5 * x * (1.0 + erf_approx(x * 0.70710678118654752)); break;
      case UNARY_GeluTanh: r = 0.5 * x * (1.0 + tanh_(0.79788456080286535 * (x + 0.044715 * x * x * x))); break;
      case UNARY_Softplus: r = x * PA > PB ? x : log1p_(exp(x * PA)) / PA; break;
      case UNARY_Erf: r = erf_approx(x); break;
      case UNARY_PowScalar: r = PA == 2.0 ? x * x : pow_signed(x, PA); break;
      case UNARY_RoundDecimals: { float p = exp2(PA * 3.321928094887362); r = roundEven(x * p) / p; } break;
      case UNARY_LogSigmoid: r = min(x, 0.0) - log1p_(exp(-abs(x))); break;
#else
      // @variant double
      case UNARY_Exp: r = d_exp(x); break;
      case UNARY_Exp2: r = d_exp(x * 6.93147180559945286227e-01LF); break;
      case UNARY_Log: r = d_log(x); break;
      case UNARY_Log2: r = d_log(x) * 1.44269504088896338700e+00LF; break;
      case UNARY_Log1p: r = d_log1p(x); break;
      case UNARY_Expm1: r = d_expm1(x); break;
      case UNARY_Sin: r = d_sincos(x, false); break;
      case UNARY_Cos: r = d_sincos(x, true); break;
      case UNARY_Tan: r = d_sincos(x, false) / d_sincos(x, true); break;
      case UNARY_Atan: r = d_atan(x); break;
      case UNARY_Tanh: r = d_tanh(x); break;
      case UNARY_Sigmoid: r = d_sigmoid(x); break;
      case UNARY_Silu: r = x * d_sigmoid(x); break;
      case UNARY_GeluErf: r = 0.5LF * x * (1.0LF + d_erf(x * 0.70710678118654752440LF)); break;
      case UNARY_GeluTanh: r = 0.5LF * x * (1.0LF + d_tanh(0.79788456080286535588LF * (x + 0.044715LF * x * x * x))); break;
      case UNARY_Softplus: r = x * PA > PB ? x : d_log1p(d_exp(x * PA)) / PA; break;
      case UNARY_Erf: r = d_erf(x); break;
      case UNARY_PowScalar: r = PA == 2.0LF ? x * x : d_pow(x, PA); break;
      case UNARY_RoundDecimals: {
        double p = 1.0LF;
        for (int k = 0; k < int(abs(PA)); ++k) p *= 10.0LF;
        r = PA >= 0.0LF ? d_round_even(x * p) / p : d_round_even(x / p) * p;
      } break;
      case UNARY_LogSigmoid: r = min(x, 0.0LF) - d_log1p(d_exp(-abs(x))); break;
#endif
#else
      // @variant int
      case UNARY_Neg: r = -x; break;
      case UNARY_Abs: r = abs(x); break;
      case UNARY_Sign: r = C_1(sign(x)); break;
      case UNARY_Floor: case UNARY_Ceil: case UNARY_Round: case UNARY_Trunc: case UNARY_NanToNum: case UNARY_RoundDecimals: r = x; break;
      case UNARY_Relu: r = max(x, C_1(0)); break;
      case UNARY_LogicalNot: r = C_1(x == C_1(0)); break;
      case UNARY_BitwiseNot: r = IS_BOOL != 0 ? C_1(x == C_1(0)) : ~x; break;
      case UNARY_IsNan: case UNARY_IsInf: case UNARY_IsPosInf: case UNARY_IsNegInf: r = C_1(0); break;
      case UNARY_IsFinite: r = C_1(1); break;
      case UNARY_Clamp: r = min(max(x, PA), PB); break;  // bounds exact, already in the dtype's range
      case UNARY_Square: r = x * x; break;
#endif
      // @end
      default: return;  // unreachable: the host refuses the ops a variant lacks (no value is written)
    }
    out_[idx(i, 0u)] = STORE_0(r);
  }
}
