#version 450
// The per-channel float64 step of batch norm's training forward (batch_norm_finalize_kernel in
// kernels/batch_norm.h), one invocation per channel: invstd, weight64, scale, shift (double, C) from the
// batch mean and variance, and the running statistics updated in place in their dtype T_0 (float32 or
// float64) with the roundings of the unfused ops: r * T_0(1 - factor) + T_0(statistic * factor).
// Bindings: 0 metadata (storage offsets of bindings 1..10, elements), 1 invstd, 2 weight64, 3 scale,
// 4 shift, 5 mean, 6 var (double, C), 7 weight, 8 bias, 9 running_mean, 10 running_var (T_0, C; read or
// written only where the flags say they are defined).
// @build batch_norm_finalize - f32,f64
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 1) writeonly buffer Invstd { double invstd_[]; };
layout(std430, set = 0, binding = 2) writeonly buffer W64 { double w64_[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Scale { double scale_[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Shift { double shift_[]; };
layout(std430, set = 0, binding = 5) readonly buffer Mean { double mean_[]; };
layout(std430, set = 0, binding = 6) readonly buffer Var { double var_[]; };
layout(std430, set = 0, binding = 7) readonly buffer W { T_0 w_[]; };
layout(std430, set = 0, binding = 8) readonly buffer B { T_0 b_[]; };
layout(std430, set = 0, binding = 9) buffer RM { T_0 rm_[]; };
layout(std430, set = 0, binding = 10) buffer RV { T_0 rv_[]; };
// flags: 1 weight, 2 bias, 4 running statistics; the doubles as (lo, hi) words.
layout(push_constant) uniform Push { uint C; uint flags; uvec2 eps; uvec2 factor; uvec2 var_factor; } pc;

uint at(uint b, uint i) { return uint(meta[b - 1u]) + i; }

void main() {
  const uint c = gl_GlobalInvocationID.x;
  if (c >= pc.C) return;
  const double eps = packDouble2x32(pc.eps), factor = packDouble2x32(pc.factor);
  const double mu = mean_[at(5u, c)], v = var_[at(6u, c)];
  const double is = 1.0LF / sqrt(v + eps);
  const double w = (pc.flags & 1u) != 0u ? double(w_[at(7u, c)]) : 1.0LF;
  invstd_[at(1u, c)] = is;
  w64_[at(2u, c)] = w;
  scale_[at(3u, c)] = w * is;
  shift_[at(4u, c)] = (pc.flags & 2u) != 0u ? double(b_[at(8u, c)]) : 0.0LF;
  if ((pc.flags & 4u) != 0u) {
    const T_0 keep = T_0(1.0LF - factor);
    precise T_0 m = rm_[at(9u, c)] * keep + T_0(mu * factor);  // precise: two roundings, no fused multiply-add
    precise T_0 r = rv_[at(10u, c)] * keep + T_0(v * packDouble2x32(pc.var_factor));
    rm_[at(9u, c)] = m;
    rv_[at(10u, c)] = r;
  }
}
