#version 450
// out = OP(x) elementwise (OP: specialization constant, UnaryOp's numbering). Floating
// variants compute in float; IS_FLOAT=0 variants implement the integer subset.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "elementwise_pc.glsl"
layout(local_size_x = 256) in;
layout(constant_id = 0) const int OP = 0;
layout(std430, set = 0, binding = 1) writeonly buffer Out { T_0 out_[]; };
layout(std430, set = 0, binding = 2) readonly buffer In { T_1 in_[]; };

#if IS_FLOAT
// erf with Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7).
float erf_approx(float x) {
  float s = sign(x);
  x = abs(x);
  float t = 1.0 / (1.0 + 0.3275911 * x);
  float y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * exp(-x * x);
  return s * y;
}
float log1p_(float x) { return abs(x) < 1e-4 ? x * (1.0 - x * (0.5 - x / 3.0)) : log(1.0 + x); }
float expm1_(float x) { return abs(x) < 1e-5 ? x * (1.0 + 0.5 * x) : exp(x) - 1.0; }
float tanh_(float x) { return tanh(clamp(x, -15.0, 15.0)); }
float sigmoid_(float x) { return 1.0 / (1.0 + exp(-x)); }
float round_even(float x) { return roundEven(x); }
#endif

void main() {
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint i = gl_GlobalInvocationID.x; i < pc.numel; i += stride) {
    C_1 x = C_1(in_[idx(i, 1u)]);
    C_1 r = C_1(0);
#if IS_FLOAT
    const float INF = 1.0 / 0.0;
    if (OP == 0) r = -x;
    else if (OP == 1) r = abs(x);
    else if (OP == 2) r = isnan(x) ? 0.0 : sign(x);
    else if (OP == 3) r = floor(x);
    else if (OP == 4) r = ceil(x);
    else if (OP == 5) r = round_even(x);
    else if (OP == 6) r = trunc(x);
    else if (OP == 7) r = exp(x);
    else if (OP == 8) r = exp2(x);
    else if (OP == 9) r = log(x);
    else if (OP == 10) r = log2(x);
    else if (OP == 11) r = log1p_(x);
    else if (OP == 12) r = expm1_(x);
    else if (OP == 13) r = sqrt(x);
    else if (OP == 14) r = inversesqrt(x);
    else if (OP == 15) r = sin(x);
    else if (OP == 16) r = cos(x);
    else if (OP == 17) r = tan(x);
    else if (OP == 18) r = atan(x);
    else if (OP == 19) r = tanh_(x);
    else if (OP == 20) r = sigmoid_(x);
    else if (OP == 21) r = isnan(x) ? x : max(x, 0.0);
    else if (OP == 22) r = x * sigmoid_(x);
    else if (OP == 23) r = 0.5 * x * (1.0 + erf_approx(x * 0.70710678118654752));
    else if (OP == 24) r = 0.5 * x * (1.0 + tanh_(0.79788456080286535 * (x + 0.044715 * x * x * x)));
    else if (OP == 25) r = x * pc.a > pc.b ? x : log1p_(exp(x * pc.a)) / pc.a;
    else if (OP == 26) r = erf_approx(x);
    else if (OP == 27) r = 1.0 / x;
    else if (OP == 28) r = C_1(x == 0.0);
    else if (OP == 30) r = C_1(isnan(x));
    else if (OP == 31) r = C_1(isinf(x));
    else if (OP == 32) r = C_1(!isnan(x) && !isinf(x));
    else if (OP == 33) r = C_1(x == INF);
    else if (OP == 34) r = C_1(x == -INF);
    else if (OP == 35) r = isnan(x) ? x : min(max(x, pc.a), pc.b);
    else if (OP == 36) r = isnan(x) ? pc.a : (x == INF ? pc.b : (x == -INF ? pc.c : x));
    else if (OP == 37) r = pc.a == 2.0 ? x * x : pow_signed(x, pc.a);
    else if (OP == 38) { float p = exp2(pc.a * 3.321928094887362); r = round_even(x * p) / p; }
    else if (OP == 39) r = x > 0.0 ? x : x * pc.a;
    else if (OP == 40) r = x * x;
#else
    if (OP == 0) r = -x;
    else if (OP == 1) r = abs(x);
    else if (OP == 2) r = C_1(sign(x));
    else if (OP == 3 || OP == 4 || OP == 5 || OP == 6 || OP == 36 || OP == 38) r = x;
    else if (OP == 21) r = max(x, C_1(0));
    else if (OP == 28) r = C_1(x == C_1(0));
    else if (OP == 29) r = IS_BOOL != 0 ? C_1(x == C_1(0)) : ~x;
    else if (OP == 30 || OP == 31 || OP == 33 || OP == 34) r = C_1(0);
    else if (OP == 32) r = C_1(1);
    else if (OP == 35) r = C_1(clamp(float(x), pc.a, pc.b));
    else if (OP == 40) r = x * x;
#endif
#if OUT_BOOL
    out_[idx(i, 0u)] = T_0(r != C_1(0) ? 1 : 0);
#else
    out_[idx(i, 0u)] = T_0(r);
#endif
  }
}
