#version 450
// plane_scatter_kernel as a gather: one invocation per element (p, m) of out (P, M) walks the sources
// l = 0 .. L-1 of its plane in order and takes src[p, l] where index[p, l] == m: the last one (ADD false)
// or their sum in that order, in ACC (ADD true); elements no index names are 0. Deterministic, and the
// CPU kernel's order. O(L) per element: the host refuses planes whose L exceeds the driver's loop limit.
// Bindings: 1 out (T_0), 2 src (T_1, the same float type), 3 index (int64).
// meta: [M, L, element offsets of out, src, index]
// push: the element count, workgroups along x.
// @build pool_scatter - float
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x = 256) in;
layout(constant_id = 0) const bool ADD = false;
layout(push_constant) uniform Push { uint n; uint groups_x; } pc;
layout(std430, set = 0, binding = 1) writeonly buffer Out { T_0 out_[]; };
layout(std430, set = 0, binding = 2) readonly buffer Src { T_1 src_[]; };
layout(std430, set = 0, binding = 3) readonly buffer Idx { int64_t idx_[]; };

void main() {
  uint local = (gl_WorkGroupID.y * pc.groups_x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationID.x;
  if (local >= pc.n) return;
  int e = int(local), M = meta[0], L = meta[1];
  int p = e / M;
  int64_t m = int64_t(e % M);
  int s = meta[3] + p * L, ix = meta[4] + p * L;
  ACC acc = ACC(0);
  for (int l = 0; l < L; ++l) {
    if (idx_[ix + l] == m) {
      ACC v = ACC(LOAD_1(src_[s + l]));
      acc = ADD ? acc + v : v;
    }
  }
  out_[meta[2] + e] = STORE_0(acc);
}
