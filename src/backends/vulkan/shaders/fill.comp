#version 450
// dst[i] = value for any strides; the value's bits (in dst's dtype) come in push constant a.
// @build fill - all
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "elementwise_pc.glsl"
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 1) writeonly buffer Out { T_0 out_[]; };

void main() {
  uint lo = pc.a.x, hi = pc.a.y;
  T_0 v = FROM_BITS(lo, hi);
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint i = gl_GlobalInvocationID.x; i < pc.numel; i += stride) out_[idx(i, 0u)] = v;
}
