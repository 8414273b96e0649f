#version 450
// Fused softmax / log_softmax over one dim of a contiguous tensor viewed as (outer, n, inner), and their
// gradients (src/kernels/reduce.h). Row r = (o, i) holds elements o * n * inner + k * inner + i, k < n.
// One workgroup per row folds max and sum in shared memory; PER_THREAD rows (short rows, many of them)
// take one invocation each. Accumulation in float (double for float64).
// MODE: 0 softmax, 1 log_softmax, 2 softmax backward, 3 log_softmax backward.
// Bindings: 1 out (or grad_in), 2 in (or grad_out), 3 the forward output (backward only).
// @build softmax - f32,f16,bf16,f64
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "double_math.glsl"
layout(local_size_x = 256) in;
layout(constant_id = 0) const int MODE = 0;
layout(constant_id = 1) const bool PER_THREAD = false;
layout(std430, set = 0, binding = 1) writeonly buffer Out { T_0 out_[]; };
layout(std430, set = 0, binding = 2) readonly buffer In { T_0 in_[]; };
layout(std430, set = 0, binding = 3) readonly buffer Y { T_0 y_[]; };
layout(push_constant) uniform Push { uint rows; uint n; uint inner; uint groups_x; } pc;
// meta: [out offset, in offset, y offset]

#if IS_DOUBLE
#define EXP(v) d_exp(v)
#define LOG(v) d_log(v)
#else
#define EXP(v) exp(v)
#define LOG(v) log(v)
#endif

#include "row_reduce.glsl"

void main() {
  const uint group = gl_WorkGroupID.y * pc.groups_x + gl_WorkGroupID.x;
  const uint row = PER_THREAD ? group * 256u + gl_LocalInvocationID.x : group;
  if (row >= pc.rows) return;  // uniform per workgroup unless PER_THREAD (which has no barrier)
  const uint o = row / pc.inner, i = row % pc.inner;
  const int base = int(o * pc.n * pc.inner + i), step = int(pc.inner);
  const uint first = PER_THREAD ? 0u : gl_LocalInvocationID.x, stride = PER_THREAD ? 1u : 256u;
  const int oo = meta[0] + base, io = meta[1] + base, yo = meta[2] + base;
  if (MODE <= 1) {
    C_0 m = C_0(-1.0 / 0.0);
    bool nan_seen = false;
    for (uint k = first; k < pc.n; k += stride) {
      C_0 x = LOAD_0(in_[io + int(k) * step]);
      nan_seen = nan_seen || isnan(x);
      m = max(m, x);
    }
    m = combine(nan_seen ? C_0(0.0 / 0.0) : m, true);  // max() may drop NaN: carry it explicitly
    if (isinf(m) && m < C_0(0)) m = C_0(0);  // a row of -inf: exp(x - 0) = 0 gives NaN as the composite does
    C_0 s = C_0(0);
    for (uint k = first; k < pc.n; k += stride) s += EXP(LOAD_0(in_[io + int(k) * step]) - m);
    s = combine(s, false);
    const C_0 ls = LOG(s);
    for (uint k = first; k < pc.n; k += stride) {
      C_0 x = LOAD_0(in_[io + int(k) * step]) - m;
      out_[oo + int(k) * step] = STORE_0(MODE == 0 ? EXP(x) / s : x - ls);
    }
  } else {
    C_0 s = C_0(0);
    for (uint k = first; k < pc.n; k += stride) {
      C_0 g = LOAD_0(in_[io + int(k) * step]);
      s += MODE == 2 ? g * LOAD_0(y_[yo + int(k) * step]) : g;
    }
    s = combine(s, false);
    for (uint k = first; k < pc.n; k += stride) {
      C_0 g = LOAD_0(in_[io + int(k) * step]), y = LOAD_0(y_[yo + int(k) * step]);
      out_[oo + int(k) * step] = STORE_0(MODE == 2 ? y * (g - s) : g - EXP(y) * s);
    }
  }
}
