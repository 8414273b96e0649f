#version 450
// nonzero in three dispatches over a contiguous input cut into blocks of pc.block elements: COUNT
// writes each block's number of non-zero elements (NaN counts) to counts; index_scan.comp turns the
// counts into exclusive prefix sums; WRITE stores, from row counts[block] on, the row-major coordinates
// of the block's non-zero elements into out (int64, rows of ndim coordinates, at most pc.rows rows).
// Bindings: 1 out (int64) or counts (COUNT), 2 in, 3 counts (WRITE).
// meta: [ndim, in offset, out offset, sizes (ndim)]
// @build nonzero_count - all -DWRITE=0
// @build nonzero_write - all -DWRITE=1
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x = 256) in;
#if WRITE
layout(std430, set = 0, binding = 1) writeonly buffer Out { int64_t out_[]; };
layout(std430, set = 0, binding = 3) readonly buffer Counts { int counts_[]; };
#else
layout(std430, set = 0, binding = 1) writeonly buffer Counts { int counts_[]; };
#endif
layout(std430, set = 0, binding = 2) readonly buffer In { T_1 in_[]; };
layout(push_constant) uniform Push { uint numel; uint block; uint blocks; uint groups_x; uint rows; } pc;

void main() {
  uint g = (gl_WorkGroupID.y * pc.groups_x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationID.x;
  if (g >= pc.blocks) return;
  int ndim = meta[0], base = meta[1];
  uint begin = g * pc.block, end = min(begin + pc.block, pc.numel);
#if WRITE
  uint row = uint(counts_[g]);
  for (uint i = begin; i < end && row < pc.rows; ++i) {
    if (LOAD_1(in_[base + int(i)]) == C_1(0)) continue;
    int o = meta[2] + int(row) * ndim;
    uint rem = i;
    for (int d = ndim - 1; d >= 0; --d) {
      uint s = uint(meta[3 + d]);
      out_[o + d] = int64_t(rem % s);
      rem /= s;
    }
    ++row;
  }
#else
  int c = 0;
  for (uint i = begin; i < end; ++i) c += LOAD_1(in_[base + int(i)]) != C_1(0) ? 1 : 0;
  counts_[g] = c;
#endif
}
