#version 450
// out = cond ? a : b elementwise (cond is bool stored as uint8); values are moved as stored bits.
// @build where - all
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "elementwise_pc.glsl"
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 1) writeonly buffer Out { T_0 out_[]; };
layout(std430, set = 0, binding = 2) readonly buffer Cond { uint8_t cond_[]; };
layout(std430, set = 0, binding = 3) readonly buffer A { T_0 a_[]; };
layout(std430, set = 0, binding = 4) readonly buffer B { T_0 b_[]; };

void main() {
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint i = gl_GlobalInvocationID.x; i < pc.numel; i += stride) {
    bool c = cond_[idx(i, 1u)] != uint8_t(0);
    out_[idx(i, 0u)] = c ? a_[idx(i, 2u)] : b_[idx(i, 3u)];
  }
}
