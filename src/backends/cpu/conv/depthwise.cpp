// Depthwise conv2d (groups == C_in, C_out = m * C_in; output channel o reads input channel o / m): direct
// loops per (sample, channel) plane. The innermost loop runs over a contiguous output row (and, for
// stride 1, a contiguous input row), so it vectorises; bounds are hoisted out of it.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "backends/cpu/conv/conv_cpu.h"

namespace adept::cpu::conv {
namespace {

// The valid output columns of every kernel column.
std::vector<ColRange> col_ranges(const ConvGeometry& g) {
  std::vector<ColRange> r(g.kW);
  for (int64_t j = 0; j < g.kW; ++j) r[j] = col_range(g, j);
  return r;
}

}  // namespace

template <class T>
void depthwise_forward(T* y, const T* x, const T* w, const T* bias, const ConvGeometry& g) {
  const int64_t m = g.C_out / g.C_in, HW = g.H * g.W, HWo = g.H_out * g.W_out, kk = g.kH * g.kW;
  const std::vector<ColRange> cols = col_ranges(g);
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads_for(g.N * g.C_out, HWo * kk))
  for (int64_t n = 0; n < g.N; ++n) {
    for (int64_t o = 0; o < g.C_out; ++o) {
      const T* in = x + (n * g.C_in + o / m) * HW;
      const T* wk = w + o * kk;
      T* out = y + (n * g.C_out + o) * HWo;
      const T b = bias ? bias[o] : T(0);
      for (int64_t oy = 0; oy < g.H_out; ++oy) {
        T* orow = out + oy * g.W_out;
        std::fill(orow, orow + g.W_out, b);
        for (int64_t i = 0; i < g.kH; ++i) {
          const int64_t iy = oy * g.stride_h - g.pad_h + i * g.dil_h;
          if (iy < 0 || iy >= g.H) continue;
          const T* irow = in + iy * g.W;
          for (int64_t j = 0; j < g.kW; ++j) {
            const T wv = wk[i * g.kW + j];
            const ColRange c = cols[j];
            if (g.stride_w == 1) {
              for (int64_t ox = c.ox0; ox < c.ox1; ++ox) orow[ox] += wv * irow[ox + c.off];
            } else {
              for (int64_t ox = c.ox0; ox < c.ox1; ++ox) orow[ox] += wv * irow[ox * g.stride_w + c.off];
            }
          }
        }
      }
    }
  }
}

template <class T>
void depthwise_backward_input(T* gx, const T* gy, const T* w, const ConvGeometry& g) {
  const int64_t m = g.C_out / g.C_in, HW = g.H * g.W, HWo = g.H_out * g.W_out, kk = g.kH * g.kW;
  const std::vector<ColRange> cols = col_ranges(g);
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads_for(g.N * g.C_in, m * HWo * kk))
  for (int64_t n = 0; n < g.N; ++n) {
    for (int64_t c = 0; c < g.C_in; ++c) {
      T* gin = gx + (n * g.C_in + c) * HW;
      std::fill(gin, gin + HW, T(0));
      for (int64_t o = c * m; o < (c + 1) * m; ++o) {
        const T* gout = gy + (n * g.C_out + o) * HWo;
        const T* wk = w + o * kk;
        for (int64_t oy = 0; oy < g.H_out; ++oy) {
          const T* grow = gout + oy * g.W_out;
          for (int64_t i = 0; i < g.kH; ++i) {
            const int64_t iy = oy * g.stride_h - g.pad_h + i * g.dil_h;
            if (iy < 0 || iy >= g.H) continue;
            T* irow = gin + iy * g.W;
            for (int64_t j = 0; j < g.kW; ++j) {
              const T wv = wk[i * g.kW + j];
              const ColRange cr = cols[j];
              if (g.stride_w == 1) {
                for (int64_t ox = cr.ox0; ox < cr.ox1; ++ox) irow[ox + cr.off] += wv * grow[ox];
              } else {
                for (int64_t ox = cr.ox0; ox < cr.ox1; ++ox) irow[ox * g.stride_w + cr.off] += wv * grow[ox];
              }
            }
          }
        }
      }
    }
  }
}

template <class T>
void depthwise_backward_weight(T* gw, const T* x, const T* gy, const ConvGeometry& g) {
  const int64_t m = g.C_out / g.C_in, HW = g.H * g.W, HWo = g.H_out * g.W_out, kk = g.kH * g.kW;
  const std::vector<ColRange> cols = col_ranges(g);
#pragma omp parallel for schedule(static) num_threads(threads_for(g.C_out, g.N * HWo * kk))
  for (int64_t o = 0; o < g.C_out; ++o) {
    std::vector<double> acc(kk, 0.0);
    for (int64_t n = 0; n < g.N; ++n) {
      const T* in = x + (n * g.C_in + o / m) * HW;
      const T* gout = gy + (n * g.C_out + o) * HWo;
      for (int64_t oy = 0; oy < g.H_out; ++oy) {
        const T* grow = gout + oy * g.W_out;
        for (int64_t i = 0; i < g.kH; ++i) {
          const int64_t iy = oy * g.stride_h - g.pad_h + i * g.dil_h;
          if (iy < 0 || iy >= g.H) continue;
          const T* irow = in + iy * g.W;
          for (int64_t j = 0; j < g.kW; ++j) {
            const ColRange cr = cols[j];
            T s = 0;
            if (g.stride_w == 1) {
#pragma omp simd reduction(+ : s)
              for (int64_t ox = cr.ox0; ox < cr.ox1; ++ox) s += grow[ox] * irow[ox + cr.off];
            } else {
#pragma omp simd reduction(+ : s)
              for (int64_t ox = cr.ox0; ox < cr.ox1; ++ox) s += grow[ox] * irow[ox * g.stride_w + cr.off];
            }
            acc[i * g.kW + j] += s;
          }
        }
      }
    }
    for (int64_t k = 0; k < kk; ++k) gw[o * kk + k] = static_cast<T>(acc[k]);
  }
}

ADEPT_CONV_ALGO_INSTANTIATE(depthwise)

}  // namespace adept::cpu::conv
