#version 450
// One axis of a separable resampling, as a gather (interpolate and its gradient, kernels/interpolate.h).
// For contiguous out (outer, len_out, inner) and in (outer, len_in, inner):
//   out[o, j, i] = sum_k weight[k] * in[o, src[k], i],  k from offset[j] + first while k < offset[j + 1],
//                                                        at most `count` of them,
// summed in list order by the invocation of that output element, starting from 0 or, with
// `accumulate`, from out's previous value (a long list taken in several dispatches, for the driver's
// loop limit). ACC (float, or double for float64) is the arithmetic type and the weights' type.
// Bindings: 0 metadata (the storage offsets of out and in), 1 out, 2 in, 3 offset (int, len_out + 1), 4 src (int),
// 5 weight (ACC).
// @build resample = float
// @build resample f32 f16,bf16
// @build resample f16,bf16 f32
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 1) buffer Out { T_0 out_[]; };
layout(std430, set = 0, binding = 2) readonly buffer In { T_1 in_[]; };
layout(std430, set = 0, binding = 3) readonly buffer Offset { int offset_[]; };
layout(std430, set = 0, binding = 4) readonly buffer Src { int src_[]; };
layout(std430, set = 0, binding = 5) readonly buffer Weight { ACC weight_[]; };
layout(push_constant) uniform Push {
  uint n;  // out's element count
  uint inner;
  uint len_in;
  uint len_out;
  uint first;  // the first list entry this dispatch takes
  uint count;  // how many entries (at most) it takes
  uint accumulate;
  uint groups_x;  // workgroups along x (the grid is 2-d)
} pc;

void main() {
  uint e = (gl_WorkGroupID.y * pc.groups_x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationID.x;
  if (e >= pc.n) return;
  uint i = e % pc.inner, row = e / pc.inner;
  uint j = row % pc.len_out, o = row / pc.len_out;
  uint base = uint(meta[1]) + o * pc.len_in * pc.inner + i;
  uint dst = uint(meta[0]) + e;
  int begin = offset_[j] + int(pc.first);
  int end = min(offset_[j + 1u], begin + int(pc.count));
  ACC s = pc.accumulate != 0u ? ACC(LOAD_0(out_[dst])) : ACC(0);
  for (int k = begin; k < end; ++k) s += weight_[k] * ACC(LOAD_1(in_[base + uint(src_[k]) * pc.inner]));
  out_[dst] = STORE_0(C_0(s));
}
