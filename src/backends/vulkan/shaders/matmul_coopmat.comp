#version 450
// float16 GEMM on tensor cores through VK_NV_cooperative_matrix (16x16x16 fragments, float
// accumulators). A workgroup of 4 subgroups (32 lanes each) computes a 128x128 tile of C, each
// subgroup a 64x64 quadrant as 4x4 fragments, loading A and B fragments straight from memory.
// Used only when the device reports the extension with subgroup size 32, M, N, K are multiples
// of 16 and A, B are row- or column-major with 8-element aligned offsets and strides; C is
// row-major. Other cases use matmul.comp.
// @build matmul_coopmat - f16
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x = 128) in;
layout(std430, set = 0, binding = 1) writeonly buffer C_ { float16_t c_[]; };
layout(std430, set = 0, binding = 2) readonly buffer A_ { float16_t a_[]; };
layout(std430, set = 0, binding = 3) readonly buffer B_ { float16_t b_[]; };
// A_COL: A column-major (its m-stride is 1); B_COL: B column-major (its k-stride is 1).
layout(constant_id = 0) const bool A_COL = false;
layout(constant_id = 1) const bool B_COL = false;
layout(push_constant) uniform Push { uint M; uint N; uint K; uint pad; } pc;
// meta: [a_off, a_sb, a_ld, b_off, b_sb, b_ld, c_off, c_sb, c_ld]

void main() {
  uint sg = gl_SubgroupID;
  uint row0 = gl_WorkGroupID.y * 128u + (sg / 2u) * 64u;
  uint col0 = gl_WorkGroupID.x * 128u + (sg % 2u) * 64u;
  if (row0 >= pc.M || col0 >= pc.N) return;
  uint batch = gl_WorkGroupID.z;
  uint a_base = uint(meta[0] + int(batch) * meta[1]), a_ld = uint(meta[2]);
  uint b_base = uint(meta[3] + int(batch) * meta[4]), b_ld = uint(meta[5]);
  uint c_base = uint(meta[6] + int(batch) * meta[7]), c_ld = uint(meta[8]);
  fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> acc[4][4];
  for (int i = 0; i < 4; ++i) for (int j = 0; j < 4; ++j) acc[i][j] = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);
  for (uint k = 0u; k < pc.K; k += 16u) {
    fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> af[4];
    fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> bf[4];
    for (int i = 0; i < 4; ++i) {
      uint m = row0 + uint(i) * 16u;
      if (m < pc.M) coopMatLoadNV(af[i], a_, a_base + (A_COL ? k * a_ld + m : m * a_ld + k), a_ld, A_COL);
    }
    for (int j = 0; j < 4; ++j) {
      uint n = col0 + uint(j) * 16u;
      if (n < pc.N) coopMatLoadNV(bf[j], b_, b_base + (B_COL ? n * b_ld + k : k * b_ld + n), b_ld, B_COL);
    }
    for (int i = 0; i < 4; ++i) for (int j = 0; j < 4; ++j) acc[i][j] = coopMatMulAddNV(af[i], bf[j], acc[i][j]);
  }
  for (int i = 0; i < 4; ++i) {
    uint m = row0 + uint(i) * 16u;
    if (m >= pc.M) continue;
    for (int j = 0; j < 4; ++j) {
      uint n = col0 + uint(j) * 16u;
      if (n >= pc.N) continue;
      fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> o = fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>(acc[i][j]);
      coopMatStoreNV(o, c_, c_base + m * c_ld + n, c_ld, false);
    }
  }
}
