#version 450
// Per-channel float64 sums of batch norm (kernels/batch_norm.h) over x, dy (N, C, S), contiguous, with
// M = N * S elements per channel:
//   STATS:    s0 = sum d, s1 = sum d * d with d = x - x[0, c, 0] (shifted by the channel's first value);
//             res0 = mean = shift + s0 / M, res1 = biased var = max(s1 / M - (s0 / M)^2, 0).
//   BACKWARD: s0 = sum g, s1 = sum g * (x - mean[c]); res0 = sum_dy = s0, res1 = sum_dy_xhat = s1 * invstd[c],
//             where g = dy, or with SILU (the fused BN+SiLU) g = dy * silu'(z), z recomputed from x exactly as
//             batch_norm_apply.comp computes it: ((x - hi) - lo) * (invstd weight)[c] + shift[c] in the compute type.
// PHASE 0: workgroup (g, c) sums elements [g * chunk, (g + 1) * chunk) of channel c (each invocation a
// strided part, then a tree in shared memory) into partial[c, g] = (s0, s1), or, with one group per
// channel, straight into res0/res1. PHASE 1: workgroup c adds its `groups` partials the same way and writes
// res0/res1. Fixed orders throughout: deterministic.
// Bindings: 0 metadata (the storage offsets of bindings 1..7, elements), 1 partial (double, (C, groups, 2)),
// 2 x, 3 dy, 4 mean, 5 invstd (double, read by BACKWARD), 6 res0, 7 res1 (double, C), 8 weight, 9 shift
// (double, C, read with SILU).
// @build batch_norm_sums - float
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "sigmoid.glsl"
layout(local_size_x = 256) in;
layout(constant_id = 0) const bool BACKWARD = false;
layout(constant_id = 1) const int PHASE = 0;
layout(constant_id = 2) const bool SILU = false;
layout(std430, set = 0, binding = 1) buffer Partial { double partial[]; };
layout(std430, set = 0, binding = 2) readonly buffer X { T_1 x_[]; };
layout(std430, set = 0, binding = 3) readonly buffer Dy { T_1 dy_[]; };
layout(std430, set = 0, binding = 4) readonly buffer Mean { double mean_[]; };
layout(std430, set = 0, binding = 5) readonly buffer Invstd { double invstd_[]; };
layout(std430, set = 0, binding = 6) writeonly buffer Res0 { double res0[]; };
layout(std430, set = 0, binding = 7) writeonly buffer Res1 { double res1[]; };
layout(std430, set = 0, binding = 8) readonly buffer Weight { double weight_[]; };
layout(std430, set = 0, binding = 9) readonly buffer Shift { double shift_[]; };
layout(push_constant) uniform Push { uint C; uint S; uint M; uint chunk; uint groups; } pc;

shared double s_0[256];
shared double s_1[256];

// Sums (a, b) over the workgroup into s_0[0], s_1[0].
void workgroup_sum(double a, double b) {
  uint lid = gl_LocalInvocationID.x;
  s_0[lid] = a;
  s_1[lid] = b;
  barrier();
  for (uint w = 128u; w > 0u; w >>= 1u) {
    if (lid < w) {
      s_0[lid] += s_0[lid + w];
      s_1[lid] += s_1[lid + w];
    }
    barrier();
  }
}

// Element i of binding b (its storage offset added).
uint at(uint b, uint i) { return uint(meta[b - 1u]) + i; }

double shift_of(uint c) { return double(LOAD_1(x_[at(2u, c * pc.S)])); }

void finish(uint c, double s0, double s1) {
  if (BACKWARD) {
    res0[at(6u, c)] = s0;
    res1[at(7u, c)] = s1 * invstd_[at(5u, c)];
  } else {
    double m = double(pc.M), dm = s0 / m;
    res0[at(6u, c)] = shift_of(c) + dm;
    res1[at(7u, c)] = max(s1 / m - dm * dm, 0.0);
  }
}

void main() {
  uint lid = gl_LocalInvocationID.x;
  double a = 0.0, b = 0.0;
  if (PHASE == 0) {
    uint g = gl_WorkGroupID.x, c = gl_WorkGroupID.y;
    double centre = BACKWARD ? mean_[at(4u, c)] : shift_of(c);
    C_1 hi = C_1(centre), lo = C_1(centre - double(hi)), k = C_1(0), r = C_1(0);
    if (SILU) {
      k = C_1(invstd_[at(5u, c)] * weight_[at(8u, c)]);
      r = C_1(shift_[at(9u, c)]);
    }
    uint end = min(pc.M, (g + 1u) * pc.chunk);
    for (uint e = g * pc.chunk + lid; e < end; e += 256u) {
      uint i = (e / pc.S * pc.C + c) * pc.S + e % pc.S;
      double d = double(LOAD_1(x_[at(2u, i)])) - centre;
      if (BACKWARD) {
        C_1 g = LOAD_1(dy_[at(3u, i)]);
        if (SILU) {
          C_1 z = ((LOAD_1(x_[at(2u, i)]) - hi) - lo) * k + r;
          C_1 s = sigmoid_c(z);
          g = g * s * (C_1(1) + z * (C_1(1) - s));
        }
        double gy = double(g);
        a += gy;
        b += gy * d;
      } else {
        a += d;
        b += d * d;
      }
    }
    workgroup_sum(a, b);
    if (lid != 0u) return;
    if (pc.groups == 1u) {
      finish(c, s_0[0], s_1[0]);
    } else {
      partial[at(1u, (c * pc.groups + g) * 2u)] = s_0[0];
      partial[at(1u, (c * pc.groups + g) * 2u + 1u)] = s_1[0];
    }
  } else {
    uint c = gl_WorkGroupID.x;
    for (uint g = lid; g < pc.groups; g += 256u) {
      a += partial[at(1u, (c * pc.groups + g) * 2u)];
      b += partial[at(1u, (c * pc.groups + g) * 2u + 1u)];
    }
    workgroup_sum(a, b);
    if (lid == 0u) finish(c, s_0[0], s_1[0]);
  }
}
