#version 450
// Batched GEMM C(b) = A(b) @ B(b). A workgroup of 256 threads computes a 128x128 tile of C;
// each thread owns an 8x8 micro-tile whose rows and columns are strided by 16, so threads of a
// subgroup read consecutive shared-memory words (no bank conflicts). K is walked in steps of 16
// through shared memory. Operands may have any strides (transposed views need no copy);
// accumulation is in float (bfloat16 is stored 16-bit, computed in float32).
// float64 uses 64x64 tiles (4x4 micro-tiles) so that its double tiles fit 32 KiB of shared memory; the
// other dtypes have them too (matmul_t64), for products whose 128x128 tiles would leave most of a large
// GPU idle (the host's rule in kernels/linalg.cpp).
// @build matmul - f32,f16,bf16,f64
// @build matmul_t64 - f32,f16,bf16 -DMT=4
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 1) writeonly buffer C_ { T_0 c_[]; };
layout(std430, set = 0, binding = 2) readonly buffer A_ { T_0 a_[]; };
layout(std430, set = 0, binding = 3) readonly buffer B_ { T_0 b_[]; };
layout(push_constant) uniform Push { uint M; uint N; uint K; uint a_k_major; } pc;
// meta: [a_off, a_sb, a_sm, a_sk, b_off, b_sb, b_sk, b_sn, c_off, c_sb, c_sm, c_sn]

#ifndef MT
#if IS_DOUBLE
#define MT 4
#else
#define MT 8
#endif
#endif
const uint TM = 16u * MT, TN = 16u * MT, TK = 16u;
shared C_0 As[TK][TM + 1u];  // +1: column writes along k hit distinct banks
shared C_0 Bs[TK][TN];

void main() {
  uint batch = gl_WorkGroupID.z;
  uint row0 = gl_WorkGroupID.y * TM, col0 = gl_WorkGroupID.x * TN;
  uint lid = gl_LocalInvocationID.x;
  uint tr = lid / 16u, tc = lid % 16u;
  int a_base = meta[0] + int(batch) * meta[1], b_base = meta[4] + int(batch) * meta[5];
  int a_sm = meta[2], a_sk = meta[3], b_sk = meta[6], b_sn = meta[7];
  C_0 acc[MT][MT];
  [[unroll]] for (int i = 0; i < MT; ++i) [[unroll]] for (int j = 0; j < MT; ++j) acc[i][j] = C_0(0);
  for (uint k0 = 0u; k0 < pc.K; k0 += TK) {
    // TMx16 elements of A and 16xTN of B: 8 (float64: 4) of each per thread.
    [[unroll]] for (uint e = lid; e < TM * TK; e += 256u) {
      // Neighbouring threads read neighbouring addresses: along k when A is row-major.
      uint k = pc.a_k_major != 0u ? e % TK : e / TM, m = pc.a_k_major != 0u ? e / TK : e % TM;
      uint gm = row0 + m, gk = k0 + k;
      As[k][m] = (gm < pc.M && gk < pc.K) ? LOAD_0(a_[a_base + int(gm) * a_sm + int(gk) * a_sk]) : C_0(0);
      uint kb = e / TN, n = e % TN;
      uint gn = col0 + n, gkb = k0 + kb;
      Bs[kb][n] = (gn < pc.N && gkb < pc.K) ? LOAD_0(b_[b_base + int(gkb) * b_sk + int(gn) * b_sn]) : C_0(0);
    }
    barrier();
    [[unroll]] for (uint k = 0u; k < TK; ++k) {
      C_0 av[MT], bv[MT];
      [[unroll]] for (int i = 0; i < MT; ++i) av[i] = As[k][tr + uint(i) * 16u];
      [[unroll]] for (int j = 0; j < MT; ++j) bv[j] = Bs[k][tc + uint(j) * 16u];
      [[unroll]] for (int i = 0; i < MT; ++i) [[unroll]] for (int j = 0; j < MT; ++j) acc[i][j] += av[i] * bv[j];
    }
    barrier();
  }
  int c_base = meta[8] + int(batch) * meta[9];
  [[unroll]] for (int i = 0; i < MT; ++i) {
    uint gm = row0 + tr + uint(i) * 16u;
    [[unroll]] for (int j = 0; j < MT; ++j) {  // no early `continue`: it would keep the loop from unrolling
      uint gn = col0 + tc + uint(j) * 16u;
      if (gm < pc.M && gn < pc.N) c_[c_base + int(gm) * meta[10] + int(gn) * meta[11]] = STORE_0(acc[i][j]);
    }
  }
}
