#version 450
// Row normalization of a contiguous (R, L) tensor (src/kernels/layer_norm.h): MODE 0 writes
// xhat = (x - mean) * rstd and rstd per row; MODE 1 the gradient rstd * (g - mean(g) - xhat * mean(g * xhat)).
// One workgroup per row, or one invocation per row for many short rows (PER_THREAD).
// Bindings: 1 xhat (MODE 0) / grad_x (MODE 1), 2 rstd (C_0 per row), 3 x (MODE 0) / grad_xhat (MODE 1),
// 4 xhat (MODE 1; MODE 0 binds x again). Push: rows, L, groups_x, eps (float bits, or a double's words).
// @build layer_norm - f32,f16,bf16,f64
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x = 256) in;
layout(constant_id = 0) const int MODE = 0;
layout(constant_id = 1) const bool PER_THREAD = false;
layout(std430, set = 0, binding = 1) buffer Out { T_0 out_[]; };
#if IS_DOUBLE
layout(std430, set = 0, binding = 2) buffer Rstd { double rstd_[]; };
#else
layout(std430, set = 0, binding = 2) buffer Rstd { float rstd_[]; };
#endif
layout(std430, set = 0, binding = 3) readonly buffer In { T_0 in_[]; };
layout(std430, set = 0, binding = 4) readonly buffer Xhat { T_0 xhat_[]; };
layout(push_constant) uniform Push { uint rows; uint n; uint groups_x; uint pad; uvec2 eps; } pc;
// meta: [out offset, rstd offset, in offset, xhat offset]
#include "row_reduce.glsl"

void main() {
  const uint group = gl_WorkGroupID.y * pc.groups_x + gl_WorkGroupID.x;
  const uint row = PER_THREAD ? group * 256u + gl_LocalInvocationID.x : group;
  if (row >= pc.rows) return;  // uniform per workgroup unless PER_THREAD (which has no barrier)
  const int base = int(row * pc.n);
  const uint first = PER_THREAD ? 0u : gl_LocalInvocationID.x, stride = PER_THREAD ? 1u : 256u;
  const int oo = meta[0] + base, io = meta[2] + base, xo = meta[3] + base;
  const C_0 inv_n = C_0(1) / C_0(pc.n);
  if (MODE == 0) {
    C_0 s = C_0(0);
    for (uint k = first; k < pc.n; k += stride) s += LOAD_0(in_[io + int(k)]);
    const C_0 mean = combine(s, false) * inv_n;
    C_0 q = C_0(0);
    for (uint k = first; k < pc.n; k += stride) {
      C_0 d = LOAD_0(in_[io + int(k)]) - mean;
      q += d * d;
    }
#if IS_DOUBLE
    const C_0 rstd = C_0(1) / sqrt(combine(q, false) * inv_n + packDouble2x32(pc.eps));
#else
    const C_0 rstd = inversesqrt(combine(q, false) * inv_n + uintBitsToFloat(pc.eps.x));
#endif
    for (uint k = first; k < pc.n; k += stride) out_[oo + int(k)] = STORE_0((LOAD_0(in_[io + int(k)]) - mean) * rstd);
    if (PER_THREAD || gl_LocalInvocationID.x == 0u) rstd_[meta[1] + int(row)] = rstd;
  } else {
    C_0 sg = C_0(0), sgx = C_0(0);
    for (uint k = first; k < pc.n; k += stride) {
      C_0 g = LOAD_0(in_[io + int(k)]);
      sg += g;
      sgx += g * LOAD_0(xhat_[xo + int(k)]);
    }
    const C_0 mg = combine(sg, false) * inv_n, mgx = combine(sgx, false) * inv_n;
    const C_0 rstd = C_0(rstd_[meta[1] + int(row)]);
    for (uint k = first; k < pc.n; k += stride) {
      out_[oo + int(k)] = STORE_0(rstd * (LOAD_0(in_[io + int(k)]) - mg - LOAD_0(xhat_[xo + int(k)]) * mgx));
    }
  }
}
