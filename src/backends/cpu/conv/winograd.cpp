// Winograd F(2x2, 3x3) conv2d (Lavin & Gray 2016, "Fast Algorithms for Convolutional Neural Networks"):
// each 2x2 output tile is A^T [(G g G^T) . (B^T d B)] A for the 4x4 input tile d, so the channel sum
// becomes 16 independent GEMMs (one per position of the 4x4 transformed tile), 2.25x fewer multiplies
// than direct 3x3. Only for 3x3 kernels, stride 1, dilation 1. The input gradient is the same
// algorithm applied to gy with the flipped, in/out-swapped kernel and padding 2 - pad.
#include <omp.h>

#include <algorithm>

#include "backends/cpu/conv/conv_cpu.h"

namespace adept::cpu::conv {
namespace {

// U[((grp * 16 + e) * cog + o) * cig + c] = (G w[o, c] G^T)[e] for all groups.
template <class T>
void weight_transform(const T* w, T* U, const ConvGeometry& g) {
  const int64_t cig = g.cin_g(), cog = g.cout_g();
#pragma omp parallel for schedule(static) num_threads(threads_for(g.C_out, cig * 64))
  for (int64_t o = 0; o < g.C_out; ++o) {
    const int64_t grp = o / cog, ol = o % cog;
    for (int64_t c = 0; c < cig; ++c) {
      const T* k = w + (o * cig + c) * 9;
      T t[4][3];
      for (int s = 0; s < 3; ++s) {
        t[0][s] = k[s];
        t[1][s] = T(0.5) * (k[s] + k[3 + s] + k[6 + s]);
        t[2][s] = T(0.5) * (k[s] - k[3 + s] + k[6 + s]);
        t[3][s] = k[6 + s];
      }
      for (int r = 0; r < 4; ++r) {
        const T u[4] = {t[r][0], T(0.5) * (t[r][0] + t[r][1] + t[r][2]), T(0.5) * (t[r][0] - t[r][1] + t[r][2]), t[r][2]};
        for (int s = 0; s < 4; ++s) U[((grp * 16 + r * 4 + s) * cog + ol) * cig + c] = u[s];
      }
    }
  }
}

// V[(e * C + c) * Tn + t] = (B^T d B)[e] for the 4x4 input tile d of tile t of channel c of src (C, H, W).
template <class T>
void input_transform(const T* src, T* V, int64_t C, const ConvGeometry& g, int64_t tH, int64_t tW) {
  const int64_t Tn = tH * tW;
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads_for(C * tH, tW * 16))
  for (int64_t c = 0; c < C; ++c) {
    for (int64_t ty = 0; ty < tH; ++ty) {
      const T* plane = src + c * g.H * g.W;
      const int64_t y0 = 2 * ty - g.pad_h;
      const bool rows_inside = y0 >= 0 && y0 + 4 <= g.H;
      for (int64_t tx = 0; tx < tW; ++tx) {
        const int64_t x0 = 2 * tx - g.pad_w;
        T d[4][4];
        if (rows_inside && x0 >= 0 && x0 + 4 <= g.W) {
          for (int r = 0; r < 4; ++r)
            for (int s = 0; s < 4; ++s) d[r][s] = plane[(y0 + r) * g.W + x0 + s];
        } else {
          for (int r = 0; r < 4; ++r) {
            for (int s = 0; s < 4; ++s) {
              const int64_t iy = y0 + r, ix = x0 + s;
              d[r][s] = (iy >= 0 && iy < g.H && ix >= 0 && ix < g.W) ? plane[iy * g.W + ix] : T(0);
            }
          }
        }
        T t[4][4];
        for (int s = 0; s < 4; ++s) {
          t[0][s] = d[0][s] - d[2][s];
          t[1][s] = d[1][s] + d[2][s];
          t[2][s] = d[2][s] - d[1][s];
          t[3][s] = d[1][s] - d[3][s];
        }
        T* v = V + c * Tn + ty * tW + tx;
        const int64_t es = C * Tn;  // stride between transformed positions e
        for (int r = 0; r < 4; ++r) {
          v[(r * 4 + 0) * es] = t[r][0] - t[r][2];
          v[(r * 4 + 1) * es] = t[r][1] + t[r][2];
          v[(r * 4 + 2) * es] = t[r][2] - t[r][1];
          v[(r * 4 + 3) * es] = t[r][1] - t[r][3];
        }
      }
    }
  }
}

// dst (C, H_out, W_out) <- A^T M A per tile, plus bias (may be null).
template <class T>
void output_transform(const T* M, T* dst, const T* bias, int64_t C, const ConvGeometry& g, int64_t tH, int64_t tW) {
  const int64_t Tn = tH * tW, es = C * Tn;
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads_for(C * tH, tW * 16))
  for (int64_t c = 0; c < C; ++c) {
    for (int64_t ty = 0; ty < tH; ++ty) {
      T* plane = dst + c * g.H_out * g.W_out;
      const T b = bias ? bias[c] : T(0);
      for (int64_t tx = 0; tx < tW; ++tx) {
        const T* m = M + c * Tn + ty * tW + tx;
        T s[2][4];
        for (int q = 0; q < 4; ++q) {
          const T m0 = m[q * es], m1 = m[(4 + q) * es], m2 = m[(8 + q) * es], m3 = m[(12 + q) * es];
          s[0][q] = m0 + m1 + m2;
          s[1][q] = m1 - m2 - m3;
        }
        const int64_t oy = 2 * ty, ox = 2 * tx;
        for (int r = 0; r < 2 && oy + r < g.H_out; ++r) {
          T* row = plane + (oy + r) * g.W_out + ox;
          row[0] = s[r][0] + s[r][1] + s[r][2] + b;
          if (ox + 1 < g.W_out) row[1] = s[r][1] - s[r][2] - s[r][3] + b;
        }
      }
    }
  }
}

}  // namespace

template <class T>
void winograd_forward(T* y, const T* x, const T* w, const T* bias, const ConvGeometry& g) {
  const int64_t cig = g.cin_g(), cog = g.cout_g(), tH = ceil_div(g.H_out, 2), tW = ceil_div(g.W_out, 2), Tn = tH * tW;
  // Transformed weights, input and product buffers: allocated once, reused by every sample and group.
  T* U = scratch<T>(1, static_cast<size_t>(g.groups * 16 * cog * cig));
  T* V = scratch<T>(2, static_cast<size_t>(16 * cig * Tn));
  T* M = scratch<T>(3, static_cast<size_t>(16 * cog * Tn));
  weight_transform(w, U, g);
  const int gemm_threads = threads_for(16, cog * cig * Tn / 16);
  for (int64_t n = 0; n < g.N; ++n) {
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      input_transform(x + (n * g.C_in + grp * cig) * g.H * g.W, V, cig, g, tH, tW);
      // The 16 GEMMs (C_out/g x C_in/g) @ (C_in/g x tiles) as a batch spread over threads.
#pragma omp parallel for schedule(static) num_threads(gemm_threads)
      for (int e = 0; e < 16; ++e) {
        gemm<T>(false, false, cog, Tn, cig, T(1), U + (grp * 16 + e) * cog * cig, cig, V + e * cig * Tn, Tn, T(0),
                M + e * cog * Tn, Tn);
      }
      output_transform(M, y + (n * g.C_out + grp * cog) * g.H_out * g.W_out, bias ? bias + grp * cog : nullptr, cog,
                       g, tH, tW);
    }
  }
}

template <class T>
void winograd_backward_input(T* gx, const T* gy, const T* w, const ConvGeometry& g) {
  const int64_t cig = g.cin_g(), cog = g.cout_g();
  // wt (C_in, C_out/g, 3, 3): wt[grp*cig + c, o, i, j] = w[grp*cog + o, c, 2 - i, 2 - j].
  T* wt = scratch<T>(0, static_cast<size_t>(g.C_in * cog * 9));
  for (int64_t grp = 0; grp < g.groups; ++grp)
    for (int64_t o = 0; o < cog; ++o)
      for (int64_t c = 0; c < cig; ++c)
        for (int k = 0; k < 9; ++k) wt[((grp * cig + c) * cog + o) * 9 + k] = w[((grp * cog + o) * cig + c) * 9 + 8 - k];
  ConvGeometry t = g;
  t.C_in = g.C_out;
  t.H = g.H_out;
  t.W = g.W_out;
  t.C_out = g.C_in;
  t.H_out = g.H;
  t.W_out = g.W;
  t.pad_h = 2 - g.pad_h;
  t.pad_w = 2 - g.pad_w;
  winograd_forward(gx, gy, wt, static_cast<const T*>(nullptr), t);
}

#define ADEPT_INSTANTIATE(T)                                                                  \
  template void winograd_forward<T>(T*, const T*, const T*, const T*, const ConvGeometry&);   \
  template void winograd_backward_input<T>(T*, const T*, const T*, const ConvGeometry&);
ADEPT_INSTANTIATE(float)
ADEPT_INSTANTIATE(double)
#undef ADEPT_INSTANTIATE

}  // namespace adept::cpu::conv
