#version 450
// conv2d's three kernels as implicit GEMMs C (M x Ngemm) = A (M x K) B (K x Ngemm) per group, with no
// im2col buffer: the operand loads decode the GEMM indices into tensor coordinates (NCHW, contiguous).
//   MODE 0 forward          m = c_out, n = (b, oy, ox), k = (c_in, ky, kx); A = w, B = x gathered
//   MODE 1 input gradient   m = c_in,  n = (b, iy, ix), k = (c_out, ky, kx); A = w, B = gy gathered
//                           (oy = (iy + pad - ky * dil) / stride where that divides and lies inside)
//   MODE 2 weight gradient  m = c_out, n = (c_in, ky, kx), k = (b, oy, ox); A = gy, B = x gathered
// MODE 1 with PARITY (stride > 1, dilation 1): the input pixels split into stride_h * stride_w classes
// (iy % stride_h, ix % stride_w); within a class only the taps ky = ky0 + j * stride_h (ky0 = (py + pad_h)
// % stride_h) reach an output row, and likewise kx, so each class is its own GEMM with n = (b, qy, qx)
// (iy = py + qy * stride_h) and k = (c_out, j, i) over its taps alone: a quarter of the work of the plain
// gather at stride 2. The class is the outermost factor of the workgroup's z.
// The kernel size is the specialization constants KH, KW, so the index decodes divide by constants.
// A workgroup of 256 threads computes a TM x TN tile of C (specialization constants: 64x64, or 32x128 and
// 16x256 for GEMMs of few rows, i.e. few channels, where their shared memory fits the device); each thread
// owns a 4x4 micro-tile whose rows are strided by TM / 4 and columns by TN / 4 (consecutive threads read
// consecutive shared words). K is walked in steps of 16 through shared memory; each workgroup covers one
// K slice of a split-K (z), so every sum has a fixed order (deterministic). Arithmetic in C_0 (float for float16 / bfloat16, double for float64).
// Bindings: 1 out (T_0), 2 A source (T_1), 3 B source (T_1), 4 bias (T_1; a dummy when absent).
// With raw != 0 (split-K partials, the f32 variants of half inputs) the plain sum is stored at
// out[split * out_numel + index]; otherwise bias (forward) and SiLU (forward, silu != 0) are applied.
// meta: [N, C_in, H, W, C_out, kH, kW, H_out, W_out, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w,
//        cin_g, cout_g, off_out, off_a, off_b, off_bias, groups]
// push: M, Ngemm, K, k_slice (K per split, a multiple of 16), splits, m_tiles, flags (1 bias, 2 silu,
//       4 raw), out_numel.
// @build conv_igemm_fwd = float -DMODE=0
// @build conv_igemm_fwd f32 f16,bf16 -DMODE=0
// @build conv_igemm_bwd_input = float -DMODE=1
// @build conv_igemm_bwd_input f32 f16,bf16 -DMODE=1
// @build conv_igemm_bwd_weight = float -DMODE=2
// @build conv_igemm_bwd_weight f32 f16,bf16 -DMODE=2
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"
#include "double_math.glsl"
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 1) writeonly buffer Out { T_0 out_[]; };
layout(std430, set = 0, binding = 2) readonly buffer A_ { T_1 a_[]; };
layout(std430, set = 0, binding = 3) readonly buffer B_ { T_1 b_[]; };
layout(std430, set = 0, binding = 4) readonly buffer Bias { T_1 bias_[]; };
layout(push_constant) uniform Push {
  uint M; uint Ngemm; uint K; uint k_slice; uint splits; uint m_tiles; uint flags; uint out_numel;
} pc;

layout(constant_id = 0) const int KH = 3;
layout(constant_id = 1) const int KW = 3;
layout(constant_id = 2) const bool PARITY = false;

layout(constant_id = 3) const uint TM = 64u;
layout(constant_id = 4) const uint TN = 64u;
const uint TK = 16u;
shared C_1 As[TK][TM + 1u];
shared C_1 Bs[TK][TN];

int g_N() { return meta[0]; }
int g_Cin() { return meta[1]; }
int g_H() { return meta[2]; }
int g_W() { return meta[3]; }
int g_Cout() { return meta[4]; }
int g_kH() { return KH; }
int g_kW() { return KW; }
int g_Ho() { return meta[7]; }
int g_Wo() { return meta[8]; }
int g_cin_g() { return meta[15]; }
int g_cout_g() { return meta[16]; }

// x[b, c, iy, ix] with zero outside the image; c is the absolute channel.
C_1 load_x(int b, int c, int iy, int ix) {
  if (iy < 0 || ix < 0 || iy >= g_H() || ix >= g_W()) return C_1(0);
  return LOAD_1(b_[meta[19] + ((b * g_Cin() + c) * g_H() + iy) * g_W() + ix]);
}

void main() {
  const uint lid = gl_LocalInvocationID.x;
  const uint RS = TM / 4u, CS = TN / 4u;  // micro-tile strides
  const uint tr = lid / CS, tc = lid % CS;
  uint z = gl_WorkGroupID.z;
  const uint m_tile = z % pc.m_tiles;
  z /= pc.m_tiles;
  const uint split = z % pc.splits;
  z /= pc.splits;
  const int kHW = g_kH() * g_kW();
  const int sh = meta[9], sw = meta[10], ph = meta[11], pw = meta[12], dh = meta[13], dw = meta[14];
  const int HWo = g_Ho() * g_Wo(), HW = g_H() * g_W();
  // The parity class (MODE 1 with PARITY): its pixel grid Hq x Wq and its taps nky x nkx from (ky0, kx0).
  int py = 0, px = 0, Hq = g_H(), Wq = g_W(), ky0 = 0, kx0 = 0, nky = KH, nkx = KW;
  uint Ngemm = pc.Ngemm, K = pc.K;
  uint group = z;
  if (PARITY) {
    const int cls = int(z) / meta[21];
    group = z % uint(meta[21]);
    py = cls / sw;
    px = cls % sw;
    Hq = (g_H() - py + sh - 1) / sh;
    Wq = (g_W() - px + sw - 1) / sw;
    ky0 = (py + ph) % sh;
    kx0 = (px + pw) % sw;
    nky = max(0, (KH - ky0 + sh - 1) / sh);
    nkx = max(0, (KW - kx0 + sw - 1) / sw);
    Ngemm = uint(g_N() * max(Hq, 0) * max(Wq, 0));
    K = uint(g_cout_g() * nky * nkx);
  }
  const int ntaps = nky * nkx;
  const uint n_tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  const uint row0 = m_tile * TM, col0 = n_tile * TN;
  if (col0 >= Ngemm) return;
  const uint k_begin = split * pc.k_slice, k_end = min(K, k_begin + pc.k_slice);
  const int cg_in = int(group) * g_cin_g(), cg_out = int(group) * g_cout_g();

  // The column each thread loads B for (modes 0, 1: one fixed n; mode 2: TN / 16 fixed n).
#if MODE == 2
  // Mode 2's A and B loads share the thread's k (lid % 16 within the tile): its (b, oy, ox) is decoded
  // once and then advanced by 16 per tile, dividing only when a row wraps.
  const uint kb_fixed = lid % 16u;
  const int k_first = int(k_begin + kb_fixed);
  int kimg = k_first / HWo, koy = (k_first % HWo) / g_Wo(), kox = k_first % g_Wo();
  int n_ci[16], n_ky[16], n_kx[16];
  bool n_ok[16];
  for (uint i = 0u; i < TN / 16u; ++i) {
    const uint n = col0 + lid / 16u + i * 16u;
    n_ok[i] = n < pc.Ngemm;
    const int nn = int(min(n, pc.Ngemm - 1u));
    n_ci[i] = nn / kHW;
    n_ky[i] = (nn % kHW) / g_kW();
    n_kx[i] = nn % g_kW();
  }
#else
  const uint n_fixed = col0 + lid % TN;
  const bool n_ok = n_fixed < Ngemm;
  const int nn = int(min(n_fixed, Ngemm - 1u));
#if MODE == 0
  const int nb = nn / HWo, ny = (nn % HWo) / g_Wo(), nx = nn % g_Wo();
#else
  // PARITY: (qy, qx) in the class grid, and the output row and column its first taps reach.
  const int nb = nn / (Hq * Wq), ny = (nn % (Hq * Wq)) / Wq, nx = nn % Wq;
  const int oy0 = ny + (py + ph - ky0) / sh, ox0 = nx + (px + pw - kx0) / sw;
#endif
#endif

  C_1 acc[4][4];
  [[unroll]] for (int i = 0; i < 4; ++i) [[unroll]] for (int j = 0; j < 4; ++j) acc[i][j] = C_1(0);
  for (uint k0 = k_begin; k0 < k_end; k0 += TK) {
    // A: TM x 16, k fastest across threads.
    for (uint i = 0u; i < TM / 16u; ++i) {
      const uint m = lid / 16u + i * 16u, k = lid % 16u;
      const uint gm = row0 + m, gk = k0 + k;
      C_1 v = C_1(0);
      if (gm < pc.M && gk < k_end) {
#if MODE == 0
        v = LOAD_1(a_[meta[18] + (cg_out + int(gm)) * int(pc.K) + int(gk)]);
#elif MODE == 1
        int co, r;
        if (PARITY) {
          co = int(gk) / ntaps;
          const int t = int(gk) - co * ntaps;
          r = (ky0 + (t / nkx) * sh) * KW + kx0 + (t % nkx) * sw;
        } else {
          co = int(gk) / kHW;
          r = int(gk) % kHW;
        }
        v = LOAD_1(a_[meta[18] + ((cg_out + co) * g_cin_g() + int(gm)) * kHW + r]);
#else
        v = LOAD_1(a_[meta[18] + (kimg * g_Cout() + cg_out + int(gm)) * HWo + koy * g_Wo() + kox]);
#endif
      }
      As[k][m] = v;
    }
    // B: 16 x TN gathered.
    for (uint i = 0u; i < TN / 16u; ++i) {
#if MODE == 2
      const uint kb = kb_fixed, n = lid / 16u + i * 16u;
      const uint gk = k0 + kb;
      C_1 v = C_1(0);
      if (n_ok[i] && gk < k_end) {
        v = load_x(kimg, cg_in + n_ci[i], koy * sh - ph + n_ky[i] * dh, kox * sw - pw + n_kx[i] * dw);
      }
      Bs[kb][n] = v;
#else
      const uint kb = lid / TN + i * (256u / TN), n = lid % TN;
      const uint gk = k0 + kb;
      C_1 v = C_1(0);
      if (n_ok && gk < k_end) {
        const int c = int(gk) / kHW, r = int(gk) % kHW, ky = r / g_kW(), kx = r % g_kW();
#if MODE == 0
        v = load_x(nb, cg_in + c, ny * sh - ph + ky * dh, nx * sw - pw + kx * dw);
#else
        if (PARITY) {
          const int ci = int(gk) / ntaps, t = int(gk) - ci * ntaps;
          const int oy = oy0 - t / nkx, ox = ox0 - t % nkx;
          if (oy >= 0 && ox >= 0 && oy < g_Ho() && ox < g_Wo()) {
            v = LOAD_1(b_[meta[19] + ((nb * g_Cout() + cg_out + ci) * g_Ho() + oy) * g_Wo() + ox]);
          }
        } else {
          const int ty = ny + ph - ky * dh, tx = nx + pw - kx * dw;
          if (ty >= 0 && tx >= 0 && ty % sh == 0 && tx % sw == 0 && ty / sh < g_Ho() && tx / sw < g_Wo()) {
            v = LOAD_1(b_[meta[19] + ((nb * g_Cout() + cg_out + c) * g_Ho() + ty / sh) * g_Wo() + tx / sw]);
          }
        }
#endif
      }
      Bs[kb][n] = v;
#endif
    }
    barrier();
    for (uint k = 0u; k < TK; ++k) {
      C_1 av[4], bv[4];
      [[unroll]] for (int i = 0; i < 4; ++i) av[i] = As[k][tr + uint(i) * RS];
      [[unroll]] for (int j = 0; j < 4; ++j) bv[j] = Bs[k][tc + uint(j) * CS];
      [[unroll]] for (int i = 0; i < 4; ++i) [[unroll]] for (int j = 0; j < 4; ++j) acc[i][j] += av[i] * bv[j];
    }
    barrier();
#if MODE == 2
    kox += int(TK);
    if (kox >= g_Wo()) {
      const int rows = kox / g_Wo();
      kox -= rows * g_Wo();
      koy += rows;
      if (koy >= g_Ho()) {
        const int images = koy / g_Ho();
        koy -= images * g_Ho();
        kimg += images;
      }
    }
#endif
  }

  const bool raw = (pc.flags & 4u) != 0u;
  // Bounds are tested as a block around each store, not with `continue` (a loop that may exit early is not
  // unrolled, and the accumulators it indexes would then live in local memory).
  [[unroll]] for (int i = 0; i < 4; ++i) {
    const uint gm = row0 + tr + uint(i) * RS;
    [[unroll]] for (int j = 0; j < 4; ++j) {
      const uint gn = col0 + tc + uint(j) * CS;
      if (gm < pc.M && gn < Ngemm) {
        C_1 v = acc[i][j];
#if MODE == 0
        const int b = int(gn) / HWo, r = int(gn) % HWo;
        const int idx = (b * g_Cout() + cg_out + int(gm)) * HWo + r;
        if (!raw) {
          if ((pc.flags & 1u) != 0u) v += LOAD_1(bias_[meta[20] + cg_out + int(gm)]);
          if ((pc.flags & 2u) != 0u) {
#if IS_DOUBLE
            v = v / (1.0LF + d_exp(-v));
#else
            v = v / (1.0 + exp(-v));
#endif
          }
        }
#elif MODE == 1
        const int b = int(gn) / (Hq * Wq), q = int(gn) % (Hq * Wq);
        const int r = PARITY ? (py + (q / Wq) * sh) * g_W() + px + (q % Wq) * sw : q;
        const int idx = (b * g_Cin() + cg_in + int(gm)) * HW + r;
#else
        const int idx = (cg_out + int(gm)) * int(pc.Ngemm) + int(gn);
#endif
        if (raw) out_[meta[17] + int(split * pc.out_numel) + idx] = T_0(v);
        else out_[meta[17] + idx] = STORE_0(v);
      }
    }
  }
}
