#version 450
// float16 GEMM C = A B on tensor cores through VK_NV_cooperative_matrix (16x16x16 fragments, float32
// accumulators). A workgroup of WM x WN subgroups (32 lanes each) computes a BM x BN tile of C; subgroup
// (wm, wn) owns a (BM / WM) x (BN / WN) block of it as FM x FN accumulator fragments. K is walked in
// steps of BK through shared memory. STAGES = 2: double-buffered shared tiles; while the subgroups
// multiply the fragments of step t from one buffer, each thread has already issued its 16-byte global
// loads of step t + 1, which it writes (as 16-byte stores) to the other buffer after (one barrier per
// step). STAGES = 1: one shared buffer (room for deeper steps), the loads of step t + 1 still in flight
// during step t's multiplies, two barriers per step. GROUP_M > 1 walks the tiles in bands of GROUP_M tile
// rows (each band column by column), so that the workgroups running together share their A rows and B
// columns in L2.
// Preconditions (checked on the host): the device has the extension with subgroup size 32; M, N, K are
// multiples of 16; A and B are row- or column-major with 8-element aligned offsets, leading dimensions
// and batch strides; C is row-major likewise. Other cases use matmul.comp (the reference kernel).
// meta: [a_off, a_sb, a_ld, b_off, b_sb, b_ld, c_off, c_sb, c_ld] (elements)
// The tile shape is compile-time, so that every loop over fragments has a literal trip count (the driver
// keeps the fragment arrays in registers). The host's table of these builds (kernels/linalg.cpp) must
// match the -D values below; bench/vulkan/gemm_variants.py compiles others for tuning sweeps.
// Three builds: 128 x 256 tiles of 1 x 8 subgroups (the fastest on the H200 at n >= 2048 in the sweeps of
// bench/README.md), 128 x 128 of 2 x 4, 64 x 128 of 2 x 4.
// @build matmul_coopmat_wide - f16 -DBM=128u -DBN=256u -DBK=16u -DWM=1u -DWN=8u -DGROUP_M=8u
// @build matmul_coopmat_m128 - f16 -DBM=128u -DBN=128u -DBK=32u -DWM=2u -DWN=4u
// @build matmul_coopmat_m64 - f16 -DBM=64u -DBN=128u -DBK=32u -DWM=2u -DWN=4u
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"
#ifndef STAGES
#define STAGES 2u
#endif
#ifndef GROUP_M
#define GROUP_M 1u
#endif
#define NT (32u * WM * WN)
layout(local_size_x = NT) in;
layout(std430, set = 0, binding = 1) writeonly buffer C_ { float16_t c_[]; };
layout(std430, set = 0, binding = 2) readonly buffer A_ { uvec4 a_[]; };  // 8 halves per element
layout(std430, set = 0, binding = 3) readonly buffer B_ { uvec4 b_[]; };
// A_COL: A column-major (its m-stride is 1); B_COL: B column-major (its k-stride is 1).
layout(constant_id = 0) const bool A_COL = false;
layout(constant_id = 1) const bool B_COL = false;
layout(push_constant) uniform Push { uint M; uint N; uint K; uint pad; } pc;

const uint FM = BM / WM / 16u, FN = BN / WN / 16u;  // accumulator fragments per subgroup
const uint QA = BM * BK / 8u, QB = BK * BN / 8u;     // 16-byte words of one step's A and B tiles
const uint LA = (QA + NT - 1u) / NT, LB = (QB + NT - 1u) / NT;  // of them per thread
// Shared tiles keep the operands' global orientation, so every thread stores whole 16-byte loads (uvec4 =
// 8 halves) and the fragments load with the operand's major order. Rows are padded by 8 halves (one uvec4)
// so that the 8 rows a fragment load touches fall in different banks. Sizes and offsets in uvec4 units.
const uint AR = A_COL ? BM / 8u + 1u : BK / 8u + 1u;  // A row: (k, m) with m fastest, or (m, k) with k fastest
const uint BR = B_COL ? BK / 8u + 1u : BN / 8u + 1u;  // B row: (n, k) with k fastest, or (k, n) with n fastest
const uint SA = (A_COL ? BK : BM) * AR, SB = (B_COL ? BN : BK) * BR;
shared uvec4 sa[STAGES * SA];
shared uvec4 sb[STAGES * SB];

uvec4 ra[LA], rb[LB];  // the next step's loads, in flight during the multiplies

// Tile row and 8-half column chunk of 16-byte word t (rows run along the operand's global major order).
void a_slot(uint t, out uint row, out uint chunk) {
  const uint per_row = A_COL ? BM / 8u : BK / 8u;
  row = t / per_row;
  chunk = t % per_row;
}
void b_slot(uint t, out uint row, out uint chunk) {
  const uint per_row = B_COL ? BK / 8u : BN / 8u;
  row = t / per_row;
  chunk = t % per_row;
}

void load_step(uint k0, uint row0, uint col0, uint a_base, uint a_ld, uint b_base, uint b_ld) {
  const uint lid = gl_LocalInvocationID.x;
  [[unroll]] for (uint i = 0u; i < LA; ++i) {
    uint r, q;
    const uint t = lid + i * NT;
    a_slot(t, r, q);
    const uint gm = row0 + (A_COL ? q * 8u : r), gk = k0 + (A_COL ? r : q * 8u);
    ra[i] = t < QA && gm < pc.M && gk < pc.K ? a_[(a_base + (A_COL ? gk * a_ld + gm : gm * a_ld + gk)) / 8u]
                                            : uvec4(0u);
  }
  [[unroll]] for (uint i = 0u; i < LB; ++i) {
    uint r, q;
    const uint t = lid + i * NT;
    b_slot(t, r, q);
    const uint gk = k0 + (B_COL ? q * 8u : r), gn = col0 + (B_COL ? r : q * 8u);
    rb[i] = t < QB && gk < pc.K && gn < pc.N ? b_[(b_base + (B_COL ? gn * b_ld + gk : gk * b_ld + gn)) / 8u]
                                            : uvec4(0u);
  }
}

void store_step(uint buf) {
  const uint lid = gl_LocalInvocationID.x;
  [[unroll]] for (uint i = 0u; i < LA; ++i) {
    uint r, q;
    const uint t = lid + i * NT;
    a_slot(t, r, q);
    if (t < QA) sa[buf * SA + r * AR + q] = ra[i];
  }
  [[unroll]] for (uint i = 0u; i < LB; ++i) {
    uint r, q;
    const uint t = lid + i * NT;
    b_slot(t, r, q);
    if (t < QB) sb[buf * SB + r * BR + q] = rb[i];
  }
}

// Offsets (uvec4) of the fragment at tile rows m / k and columns k / n.
uint a_frag(uint m, uint k) { return A_COL ? k * AR + m / 8u : m * AR + k / 8u; }
uint b_frag(uint k, uint n) { return B_COL ? n * BR + k / 8u : k * BR + n / 8u; }

void main() {
  const uint sg = gl_SubgroupID, wm = sg / WN, wn = sg % WN;
  // Tile (tm, tn) of this workgroup: bands of GROUP_M tile rows, each walked column by column.
  const uint tiles_n = gl_NumWorkGroups.x, id = gl_WorkGroupID.y * tiles_n + gl_WorkGroupID.x;
  const uint band = id / (GROUP_M * tiles_n), first = band * GROUP_M;
  const uint rows = min(gl_NumWorkGroups.y - first, GROUP_M), in_band = id % (GROUP_M * tiles_n);
  const uint tm = first + in_band % rows, tn = in_band / rows;
  const uint row0 = tm * BM, col0 = tn * BN, batch = gl_WorkGroupID.z;
  const uint a_base = uint(meta[0] + int(batch) * meta[1]), a_ld = uint(meta[2]);
  const uint b_base = uint(meta[3] + int(batch) * meta[4]), b_ld = uint(meta[5]);
  const uint c_base = uint(meta[6] + int(batch) * meta[7]), c_ld = uint(meta[8]);
  fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> acc[FM][FN];
  [[unroll]] for (uint i = 0u; i < FM; ++i) [[unroll]] for (uint j = 0u; j < FN; ++j) acc[i][j] = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);
  const uint steps = (pc.K + BK - 1u) / BK;
  load_step(0u, row0, col0, a_base, a_ld, b_base, b_ld);
  if (STAGES == 2u) {
    store_step(0u);
    barrier();
  }
  for (uint t = 0u; t < steps; ++t) {
    const uint cur = STAGES == 2u ? t & 1u : 0u;
    if (STAGES == 1u) {
      store_step(0u);
      barrier();
    }
    if (t + 1u < steps) load_step((t + 1u) * BK, row0, col0, a_base, a_ld, b_base, b_ld);
    [[unroll]] for (uint kk = 0u; kk < BK; kk += 16u) {
      fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> af[FM], bf[FN];
      [[unroll]] for (uint i = 0u; i < FM; ++i) coopMatLoadNV(af[i], sa, cur * SA + a_frag(wm * (BM / WM) + i * 16u, kk), AR, A_COL);
      [[unroll]] for (uint j = 0u; j < FN; ++j) coopMatLoadNV(bf[j], sb, cur * SB + b_frag(kk, wn * (BN / WN) + j * 16u), BR, B_COL);
      [[unroll]] for (uint i = 0u; i < FM; ++i)
        [[unroll]] for (uint j = 0u; j < FN; ++j) acc[i][j] = coopMatMulAddNV(af[i], bf[j], acc[i][j]);
    }
    if (STAGES == 2u && t + 1u < steps) store_step(cur ^ 1u);
    barrier();
  }
  // The bounds are tested around each store, not with `continue`: a loop that may exit early is not unrolled,
  // and the accumulators it indexes then live in local memory for the whole kernel (4x slower on the H200).
  [[unroll]] for (uint i = 0u; i < FM; ++i) {
    const uint m = row0 + wm * (BM / WM) + i * 16u;
    [[unroll]] for (uint j = 0u; j < FN; ++j) {
      const uint n = col0 + wn * (BN / WN) + j * 16u;
      fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> o = fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>(acc[i][j]);
      if (m < pc.M && n < pc.N) coopMatStoreNV(o, c_, c_base + m * c_ld + n, c_ld, false);
    }
  }
}
