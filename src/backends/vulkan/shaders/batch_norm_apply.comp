#version 450
// Elementwise passes of batch norm (kernels/batch_norm.h) over contiguous x, dy, out (N, C, S), with
// per-channel float64 vectors; arithmetic in the compute type (float for float16/bfloat16). The channel
// mean is split into hi + lo in that type, so that x - hi is exact near the mean.
//   forward (BACKWARD false): z = ((x - hi) - lo) * a[c] + b[c]  (a = scale, b = shift);
//                             out = z, or silu(z) with SILU (the fused BN+SiLU)
//   BACKWARD:                 out = k * (g - mean_dy - ((x - hi) - lo) * c2), with
//                             k = b[c] * a[c], mean_dy = p[c] / M, c2 = q[c] * a[c] / M
//                             (a = invstd, b = weight, p = sum_dy, q = sum_dy_xhat, M = N * S);
//                             g = dy, or with SILU g = dy * silu'(z), z = ((x - hi) - lo) * (a b)[c] + r[c]
//                             (r = shift), as the forward computes z.
// Bindings: 0 metadata (the storage offsets of bindings 1..9, elements), 1 out, 2 x, 3 dy (read by BACKWARD),
// 4 mean, 5 a, 6 b, 7 p, 8 q, 9 r (double, C).
// @build batch_norm_apply - float
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "sigmoid.glsl"
layout(local_size_x = 256) in;
layout(constant_id = 0) const bool BACKWARD = false;
layout(constant_id = 1) const bool SILU = false;
layout(std430, set = 0, binding = 1) writeonly buffer Out { T_0 out_[]; };
layout(std430, set = 0, binding = 2) readonly buffer X { T_1 x_[]; };
layout(std430, set = 0, binding = 3) readonly buffer Dy { T_1 dy_[]; };
layout(std430, set = 0, binding = 4) readonly buffer Mean { double mean_[]; };
layout(std430, set = 0, binding = 5) readonly buffer A { double a_[]; };
layout(std430, set = 0, binding = 6) readonly buffer B { double b_[]; };
layout(std430, set = 0, binding = 7) readonly buffer P { double p_[]; };
layout(std430, set = 0, binding = 8) readonly buffer Q { double q_[]; };
layout(std430, set = 0, binding = 9) readonly buffer R { double r_[]; };
layout(push_constant) uniform Push { uint n; uint C; uint S; uint M; uint groups_x; } pc;

// Element i of binding b (its storage offset added).
uint at(uint b, uint i) { return uint(meta[b - 1u]) + i; }

void main() {
  uint e = (gl_WorkGroupID.y * pc.groups_x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationID.x;
  if (e >= pc.n) return;
  uint c = e / pc.S % pc.C;
  double mu = mean_[at(4u, c)];
  C_1 hi = C_1(mu), lo = C_1(mu - double(hi));
  C_1 centred = (LOAD_1(x_[at(2u, e)]) - hi) - lo;
  if (BACKWARD) {
    double m = double(pc.M), is = a_[at(5u, c)];
    C_1 k = C_1(b_[at(6u, c)] * is), mean_dy = C_1(p_[at(7u, c)] / m), c2 = C_1(q_[at(8u, c)] * is / m);
    C_1 g = LOAD_1(dy_[at(3u, e)]);
    if (SILU) {
      C_1 z = centred * k + C_1(r_[at(9u, c)]), s = sigmoid_c(z);
      g = g * s * (C_1(1) + z * (C_1(1) - s));
    }
    out_[at(1u, e)] = STORE_0(k * (g - mean_dy - centred * c2));
  } else {
    C_1 z = centred * C_1(a_[at(5u, c)]) + C_1(b_[at(6u, c)]);
    out_[at(1u, e)] = STORE_0(SILU ? z * sigmoid_c(z) : z);
  }
}
