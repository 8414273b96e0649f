#version 450
// Offset read of gather and advanced indexing: out[i] = src[src_index(i) + offset[i] * MUL] over three
// same-shaped operands described by the elementwise metadata (operand 0 out, 1 src, 2 offset). src is
// viewed with out's shape (stride 0 along the indexed dims); offset is int64: an index along one dim
// scaled by that dim's stride (gather), or an element offset (advanced indexing, MUL = 1). MUL is the
// int32 in pc.a.x. Elements are moved as stored (no conversion).
// @build index_read - all
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "elementwise_pc.glsl"
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 1) writeonly buffer Out { T_0 out_[]; };
layout(std430, set = 0, binding = 2) readonly buffer In { T_1 in_[]; };
layout(std430, set = 0, binding = 3) readonly buffer Off { int64_t off_[]; };

void main() {
  uint stride = gl_NumWorkGroups.x * 256u;
  int mul = int(pc.a.x);
  for (uint i = gl_GlobalInvocationID.x; i < pc.numel; i += stride) {
    out_[idx(i, 0u)] = in_[idx(i, 1u) + int(off_[idx(i, 2u)]) * mul];
  }
}
