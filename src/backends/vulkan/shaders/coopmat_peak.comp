#version 450
// The cooperative-matrix ceiling (vulkan_cooperative_matrix_peak): each subgroup multiplies register-
// resident float16 16x16x16 fragments, 2 A x 4 B into 8 independent float32 accumulators, `iters` times,
// with no memory traffic in the loop; the accumulators are stored at the end so nothing is elided. The A
// fragments are scaled by a push constant (1.0) every iteration so that the products are not loop-invariant
// (a compiler may otherwise hoist them and leave only additions in the loop).
// @build coopmat_peak - f16
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x = 128) in;
layout(std430, set = 0, binding = 1) writeonly buffer O_ { float o_[]; };
layout(push_constant) uniform Push { uint iters; float one; } pc;

void main() {
  const float16_t s = float16_t(1.0 / 1024.0);
  fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> a[2], b[4];
  for (int i = 0; i < 2; ++i) a[i] = fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>(s * float16_t(i + 1));
  for (int j = 0; j < 4; ++j) b[j] = fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>(s * float16_t(j + 1));
  fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> acc[2][4];
  for (int i = 0; i < 2; ++i) for (int j = 0; j < 4; ++j) acc[i][j] = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);
  const float16_t one = float16_t(pc.one);
  for (uint t = 0u; t < pc.iters; ++t) {
    for (int i = 0; i < 2; ++i) a[i] = a[i] * one;
    for (int i = 0; i < 2; ++i) for (int j = 0; j < 4; ++j) acc[i][j] = coopMatMulAddNV(a[i], b[j], acc[i][j]);
  }
  const uint base = (gl_WorkGroupID.x * 4u + gl_SubgroupID) * 8u * 256u;
  for (int i = 0; i < 2; ++i) for (int j = 0; j < 4; ++j) coopMatStoreNV(acc[i][j], o_, base + uint(i * 4 + j) * 256u, 16u, false);
}
