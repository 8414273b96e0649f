#version 450
// dst[i] = convert(src[i]) for any strides and any pair of dtypes; conversion to bool is (value != 0).
// @build copy all all
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "elementwise_pc.glsl"
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 1) writeonly buffer Out { T_0 out_[]; };
layout(std430, set = 0, binding = 2) readonly buffer In { T_1 in_[]; };

void main() {
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint i = gl_GlobalInvocationID.x; i < pc.numel; i += stride) {
    C_1 x = LOAD_1(in_[idx(i, 1u)]);
#if OUT_BOOL
    out_[idx(i, 0u)] = STORE_0(x != C_1(0));
#else
    out_[idx(i, 0u)] = STORE_0(C_0(x));
#endif
  }
}
