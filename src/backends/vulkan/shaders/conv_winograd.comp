#version 450
// Winograd F(WM x WM, 3x3) conv2d transforms (Lavin & Gray 2016), WM = 2 or 4, with alpha = WM + 2:
//   MODE 0 input transform   V[e][c][p] = (B^T d B)[e] for the alpha x alpha tile d of input channel c at
//                            tile p = (b, ty, tx), rows ty * WM - pad_h .., columns tx * WM - pad_w ..
//                            (zero outside the image)
//   MODE 1 weight transform  U[e][o][c] = (G g G^T)[e] for the 3x3 kernel g = w[o, c] (flip != 0: the
//                            input gradient's kernel w[grp * cog + c, o % cog, 2 - ky, 2 - kx] with
//                            grp = o / cog: flipped and with its channels swapped, read in place)
//   MODE 2 output transform  y[b, o, ty * WM + i, tx * WM + j] = (A^T M[.][o][p] A)[i][j] + bias[o], then
//                            silu (flags & 2); rows and columns past H_out / W_out are not written
// e = alpha * r + s runs over the alpha^2 positions of a transformed tile; V (alpha^2, C_in, P), U
// (alpha^2, C_out, cig) and M (alpha^2, C_out, P) are contiguous, so V, U and M of position e and group
// grp are the (cig x P), (cog x cig) and (cog x P) matrices of one batched GEMM M = U V in between.
// One invocation per (c, p), (o, c) or (o, p), in WT (float; double for float64): the transforms are
// fixed-order sums over the non-zero entries of the constant matrices (the loops unroll completely).
// Bindings: 1 out (T_0), 2 in (T_1), 3 bias (T_0; MODE 2, a dummy when absent).
// meta: [H, W, H_out, W_out, pad_h, pad_w, tH, tW, C_in, C_out, cig, cog, off_out, off_in, off_bias,
//        flags (1 bias, 2 silu, 4 flip), count (invocations), P (tiles: chunk batch * tH * tW)]
// Variants conv_wino<WM>_<in|weight|out>_<out dtype>_<in dtype>: V and U in float32 (float64 for
// float64), M read as float32 (float64) and y written in its dtype.
// @build conv_wino2_in f32 f32,f16,bf16 -DMODE=0 -DWM=2
// @build conv_wino2_in f64 f64 -DMODE=0 -DWM=2
// @build conv_wino4_in f32 f32,f16,bf16 -DMODE=0 -DWM=4
// @build conv_wino4_in f64 f64 -DMODE=0 -DWM=4
// @build conv_wino2_weight f32 f32,f16,bf16 -DMODE=1 -DWM=2
// @build conv_wino2_weight f64 f64 -DMODE=1 -DWM=2
// @build conv_wino4_weight f32 f32,f16,bf16 -DMODE=1 -DWM=4
// @build conv_wino4_weight f64 f64 -DMODE=1 -DWM=4
// @build conv_wino2_out f32,f16,bf16 f32 -DMODE=2 -DWM=2
// @build conv_wino2_out f64 f64 -DMODE=2 -DWM=2
// @build conv_wino4_out f32,f16,bf16 f32 -DMODE=2 -DWM=4
// @build conv_wino4_out f64 f64 -DMODE=2 -DWM=4
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"
#include "double_math.glsl"
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 1) writeonly buffer Out { T_0 out_[]; };
layout(std430, set = 0, binding = 2) readonly buffer In { T_1 in_[]; };
layout(std430, set = 0, binding = 3) readonly buffer Bias { T_0 bias_[]; };

#if IS_DOUBLE
#define WT double
#else
#define WT float
#endif

const int AL = WM + 2;  // alpha: the transformed tile's side
#if WM == 2
// Interpolation points 0, 1, -1 and infinity.
const int BT[16] = int[16](1, 0, -1, 0,
                           0, 1, 1, 0,
                           0, -1, 1, 0,
                           0, 1, 0, -1);
// G = GS / G_DEN (integers, so float64 keeps every digit of G).
const int GS[12] = int[12](2, 0, 0,
                           1, 1, 1,
                           1, -1, 1,
                           0, 0, 2);
const int G_DEN = 2;
const int AT[8] = int[8](1, 1, 1, 0,
                         0, 1, -1, -1);
#else
// Interpolation points 0, 1, -1, 2, -2 and infinity.
const int BT[36] = int[36](4, 0, -5, 0, 1, 0,
                           0, -4, -4, 1, 1, 0,
                           0, 4, -4, -1, 1, 0,
                           0, -2, -1, 2, 1, 0,
                           0, 2, -1, -2, 1, 0,
                           0, 4, 0, -5, 0, 1);
const int GS[18] = int[18](6, 0, 0,
                           -4, -4, -4,
                           -4, 4, -4,
                           1, 2, 4,
                           1, -2, 4,
                           0, 0, 24);
const int G_DEN = 24;
const int AT[24] = int[24](1, 1, 1, 1, 1, 0,
                           0, 1, -1, 2, -2, 0,
                           0, 1, 1, 4, 4, 0,
                           0, 1, -1, 8, -8, 1);
#endif

int m_H() { return meta[0]; }
int m_W() { return meta[1]; }
int m_Ho() { return meta[2]; }
int m_Wo() { return meta[3]; }
int m_Cin() { return meta[8]; }
int m_Cout() { return meta[9]; }
int m_cig() { return meta[10]; }
int m_cog() { return meta[11]; }
int m_P() { return meta[17]; }

void main() {
  const uint gid = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u + gl_LocalInvocationID.x;
  if (gid >= uint(meta[16])) return;
  const int i = int(gid);
#if MODE == 1
  const int o = i / m_cig(), c = i % m_cig();
  WT g[9];
  [[unroll]] for (int k = 0; k < 9; ++k) {
    int src = (o * m_cig() + c) * 9 + k;
    if ((meta[15] & 4) != 0) src = (((o / m_cog()) * m_cig() + c) * m_cog() + o % m_cog()) * 9 + 8 - k;
    g[k] = WT(LOAD_1(in_[meta[13] + src]));
  }
  // t = GS g (alpha x 3), then u = t GS^T / G_DEN^2.
  WT t[AL * 3];
  [[unroll]] for (int r = 0; r < AL; ++r) {
    [[unroll]] for (int s = 0; s < 3; ++s) {
      WT acc = WT(0);
      [[unroll]] for (int k = 0; k < 3; ++k) {
        if (GS[r * 3 + k] != 0) acc += WT(GS[r * 3 + k]) * g[k * 3 + s];
      }
      t[r * 3 + s] = acc;
    }
  }
  const int es = m_Cout() * m_cig();
  [[unroll]] for (int r = 0; r < AL; ++r) {
    [[unroll]] for (int s = 0; s < AL; ++s) {
      WT acc = WT(0);
      [[unroll]] for (int k = 0; k < 3; ++k) {
        if (GS[s * 3 + k] != 0) acc += t[r * 3 + k] * WT(GS[s * 3 + k]);
      }
      out_[meta[12] + (r * AL + s) * es + i] = T_0(acc / WT(G_DEN * G_DEN));
    }
  }
#else
  const int tiles = meta[6] * meta[7];
  const int C = MODE == 0 ? m_Cin() : m_Cout();
  const int ch = i / m_P(), p = i % m_P();
  const int b = p / tiles, ty = (p % tiles) / meta[7], tx = p % meta[7];
  const int es = C * m_P();  // stride between transformed positions e
#if MODE == 0
  const int y0 = ty * WM - meta[4], x0 = tx * WM - meta[5];
  const int plane = meta[13] + (b * C + ch) * m_H() * m_W();
  WT d[AL * AL];
  [[unroll]] for (int r = 0; r < AL; ++r) {
    [[unroll]] for (int s = 0; s < AL; ++s) {
      const int iy = y0 + r, ix = x0 + s;
      const bool inside = iy >= 0 && iy < m_H() && ix >= 0 && ix < m_W();
      d[r * AL + s] = inside ? WT(LOAD_1(in_[plane + iy * m_W() + ix])) : WT(0);
    }
  }
  // t = B^T d, then v = t B.
  WT t[AL * AL];
  [[unroll]] for (int r = 0; r < AL; ++r) {
    [[unroll]] for (int s = 0; s < AL; ++s) {
      WT acc = WT(0);
      [[unroll]] for (int k = 0; k < AL; ++k) {
        if (BT[r * AL + k] != 0) acc += WT(BT[r * AL + k]) * d[k * AL + s];
      }
      t[r * AL + s] = acc;
    }
  }
  [[unroll]] for (int r = 0; r < AL; ++r) {
    [[unroll]] for (int s = 0; s < AL; ++s) {
      WT acc = WT(0);
      [[unroll]] for (int k = 0; k < AL; ++k) {
        if (BT[s * AL + k] != 0) acc += t[r * AL + k] * WT(BT[s * AL + k]);
      }
      out_[meta[12] + (r * AL + s) * es + i] = T_0(acc);
    }
  }
#else
  WT mv[AL * AL];
  [[unroll]] for (int e = 0; e < AL * AL; ++e) mv[e] = WT(in_[meta[13] + e * es + i]);
  // t = A^T M (WM x alpha), then y = t A.
  WT t[WM * AL];
  [[unroll]] for (int r = 0; r < WM; ++r) {
    [[unroll]] for (int s = 0; s < AL; ++s) {
      WT acc = WT(0);
      [[unroll]] for (int k = 0; k < AL; ++k) {
        if (AT[r * AL + k] != 0) acc += WT(AT[r * AL + k]) * mv[k * AL + s];
      }
      t[r * AL + s] = acc;
    }
  }
  const WT bias = (meta[15] & 1) != 0 ? WT(LOAD_0(bias_[meta[14] + ch])) : WT(0);
  const int oy0 = ty * WM, ox0 = tx * WM;
  const int plane = meta[12] + (b * C + ch) * m_Ho() * m_Wo();
  [[unroll]] for (int r = 0; r < WM; ++r) {
    [[unroll]] for (int s = 0; s < WM; ++s) {
      if (oy0 + r >= m_Ho() || ox0 + s >= m_Wo()) continue;
      WT acc = WT(0);
      [[unroll]] for (int k = 0; k < AL; ++k) {
        if (AT[s * AL + k] != 0) acc += t[r * AL + k] * WT(AT[s * AL + k]);
      }
      acc += bias;
      if ((meta[15] & 2) != 0) {
#if IS_DOUBLE
        acc = acc / (1.0LF + d_exp(-acc));
#else
        acc = acc / (1.0 + exp(-acc));
#endif
      }
      out_[plane + (oy0 + r) * m_Wo() + ox0 + s] = STORE_0(acc);
    }
  }
#endif
#endif
}
