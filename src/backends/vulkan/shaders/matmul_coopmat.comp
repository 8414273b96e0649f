#version 450
// float16 GEMM C = A B on tensor cores through VK_NV_cooperative_matrix (16x16x16 fragments, float32
// accumulators). A workgroup of 8 subgroups (32 lanes) computes a BM x 128 tile of C (BM = 128 or 64, a
// specialization constant); the subgroups form a 2 x 4 grid, each owning a (BM / 2) x 32 block as
// (BM / 32) x 2 accumulator fragments. K is walked in steps of 32 through shared memory, double
// buffered: while the subgroups multiply the fragments of step t from one buffer, each thread has
// already issued its 16-byte global loads of step t + 1, which it writes to the other buffer after
// (one barrier per step). Shared rows are padded by 8 halves against bank conflicts.
// Preconditions (checked on the host): the device has the extension with subgroup size 32; M, N, K are
// multiples of 16; A and B are row- or column-major with 8-element aligned offsets, leading dimensions
// and batch strides; C is row-major likewise. Other cases use matmul.comp (the reference kernel).
// meta: [a_off, a_sb, a_ld, b_off, b_sb, b_ld, c_off, c_sb, c_ld] (elements)
// @build matmul_coopmat - f16
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 1) writeonly buffer C_ { float16_t c_[]; };
layout(std430, set = 0, binding = 2) readonly buffer A_ { uvec4 a_[]; };  // 8 halves per element
layout(std430, set = 0, binding = 3) readonly buffer B_ { uvec4 b_[]; };
// A_COL: A column-major (its m-stride is 1); B_COL: B column-major (its k-stride is 1).
layout(constant_id = 0) const bool A_COL = false;
layout(constant_id = 1) const bool B_COL = false;
layout(constant_id = 2) const uint BM = 128u;
layout(push_constant) uniform Push { uint M; uint N; uint K; uint pad; } pc;

const uint BN = 128u, BK = 32u;
const uint AP = BK + 8u, BP = BN + 8u;  // padded shared row lengths (halves)
const uint FM = BM / 32u;               // accumulator fragment rows per subgroup
shared float16_t sa[2][BM * AP];        // A tile as (m, k), k fastest
shared float16_t sb[2][BK * BP];        // B tile as (k, n), n fastest

uvec4 ra[2], rb[2];  // the next step's loads, in flight during the multiplies

// The (row, column) in its tile of the 8 halves that 16-byte load t covers, and whether they run down
// the row (false) or down the column (true) of the shared layout.
void a_slot(uint t, out uint m, out uint k) {
  if (A_COL) { k = t / (BM / 8u); m = (t % (BM / 8u)) * 8u; } else { m = t / (BK / 8u); k = (t % (BK / 8u)) * 8u; }
}
void b_slot(uint t, out uint k, out uint n) {
  if (B_COL) { n = t / (BK / 8u); k = (t % (BK / 8u)) * 8u; } else { k = t / (BN / 8u); n = (t % (BN / 8u)) * 8u; }
}

void load_step(uint k0, uint row0, uint col0, uint a_base, uint a_ld, uint b_base, uint b_ld) {
  const uint lid = gl_LocalInvocationID.x;
  for (uint i = 0u; i < BM / 64u; ++i) {
    uint m, k;
    a_slot(lid + i * 256u, m, k);
    const uint gm = row0 + m, gk = k0 + k;
    ra[i] = gm < pc.M && gk < pc.K ? a_[(a_base + (A_COL ? gk * a_ld + gm : gm * a_ld + gk)) / 8u] : uvec4(0u);
  }
  for (uint i = 0u; i < 2u; ++i) {
    uint k, n;
    b_slot(lid + i * 256u, k, n);
    const uint gk = k0 + k, gn = col0 + n;
    rb[i] = gk < pc.K && gn < pc.N ? b_[(b_base + (B_COL ? gn * b_ld + gk : gk * b_ld + gn)) / 8u] : uvec4(0u);
  }
}

void unpack8(uvec4 u, out float16_t h[8]) {
  for (uint w = 0u; w < 4u; ++w) {
    const f16vec2 p = unpackFloat2x16(u[w]);
    h[2u * w] = p.x;
    h[2u * w + 1u] = p.y;
  }
}

void store_step(uint buf) {
  const uint lid = gl_LocalInvocationID.x;
  float16_t h[8];
  for (uint i = 0u; i < BM / 64u; ++i) {
    uint m, k;
    a_slot(lid + i * 256u, m, k);
    unpack8(ra[i], h);
    for (uint j = 0u; j < 8u; ++j) sa[buf][A_COL ? (m + j) * AP + k : m * AP + k + j] = h[j];
  }
  for (uint i = 0u; i < 2u; ++i) {
    uint k, n;
    b_slot(lid + i * 256u, k, n);
    unpack8(rb[i], h);
    for (uint j = 0u; j < 8u; ++j) sb[buf][B_COL ? (k + j) * BP + n : k * BP + n + j] = h[j];
  }
}

void main() {
  const uint sg = gl_SubgroupID, wm = sg / 4u, wn = sg % 4u;
  const uint row0 = gl_WorkGroupID.y * BM, col0 = gl_WorkGroupID.x * BN, batch = gl_WorkGroupID.z;
  const uint a_base = uint(meta[0] + int(batch) * meta[1]), a_ld = uint(meta[2]);
  const uint b_base = uint(meta[3] + int(batch) * meta[4]), b_ld = uint(meta[5]);
  const uint c_base = uint(meta[6] + int(batch) * meta[7]), c_ld = uint(meta[8]);
  fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> acc[4][2];
  for (uint i = 0u; i < FM; ++i) for (uint j = 0u; j < 2u; ++j) acc[i][j] = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);
  const uint steps = (pc.K + BK - 1u) / BK;
  load_step(0u, row0, col0, a_base, a_ld, b_base, b_ld);
  store_step(0u);
  barrier();
  for (uint t = 0u; t < steps; ++t) {
    const uint cur = t & 1u;
    if (t + 1u < steps) load_step((t + 1u) * BK, row0, col0, a_base, a_ld, b_base, b_ld);
    for (uint kk = 0u; kk < BK; kk += 16u) {
      fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> af[4], bf[2];
      for (uint i = 0u; i < FM; ++i) coopMatLoadNV(af[i], sa[cur], (wm * (BM / 2u) + i * 16u) * AP + kk, AP, false);
      for (uint j = 0u; j < 2u; ++j) coopMatLoadNV(bf[j], sb[cur], kk * BP + wn * 32u + j * 16u, BP, false);
      for (uint i = 0u; i < FM; ++i) for (uint j = 0u; j < 2u; ++j) acc[i][j] = coopMatMulAddNV(af[i], bf[j], acc[i][j]);
    }
    if (t + 1u < steps) store_step(cur ^ 1u);
    barrier();
  }
  for (uint i = 0u; i < FM; ++i) {
    const uint m = row0 + wm * (BM / 2u) + i * 16u;
    if (m >= pc.M) continue;
    for (uint j = 0u; j < 2u; ++j) {
      const uint n = col0 + wn * 32u + j * 16u;
      if (n >= pc.N) continue;
      fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> o = fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>(acc[i][j]);
      coopMatStoreNV(o, c_, c_base + m * c_ld + n, c_ld, false);
    }
  }
}
