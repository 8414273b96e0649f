// conv2d by im2col + GEMM (per sample and group): the input patches of one sample-group become the
// columns of a (C_in/g * kH * kW, H_out * W_out) matrix, written row by row (contiguous runs), so the
// convolution is one GEMM with the (C_out/g, C_in/g * kH * kW) weight. The input gradient is the
// transposed GEMM followed by col2im; the weight gradient a GEMM with the transposed columns.
// 1x1 stride-1 unpadded convs use the input itself as the column matrix.
#include <omp.h>

#include <algorithm>
#include <cstring>

#include "backends/cpu/conv/conv_cpu.h"

namespace adept::cpu::conv {
namespace {

bool is_pointwise(const ConvGeometry& g) {
  return g.kH == 1 && g.kW == 1 && g.stride_h == 1 && g.stride_w == 1 && g.pad_h == 0 && g.pad_w == 0 &&
         g.H_out == g.H && g.W_out == g.W;
}

// im2col's loops are cheap per element: they go parallel from this much work on.
constexpr int64_t kMinParallelWork = 32768;

// col (C*kH*kW, H_out*W_out) <- patches of src (C, H, W).
template <class T>
void im2col(const T* src, T* col, int64_t C, const ConvGeometry& g) {
  const int64_t HWo = g.H_out * g.W_out, rows = C * g.kH * g.kW;
#pragma omp parallel for schedule(static) num_threads(threads_for(rows, HWo, kMinParallelWork))
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t j = r % g.kW, i = (r / g.kW) % g.kH, c = r / (g.kH * g.kW);
    const T* plane = src + c * g.H * g.W;
    T* dst = col + r * HWo;
    const auto [off, ox0, ox1] = col_range(g, j);
    for (int64_t oy = 0; oy < g.H_out; ++oy, dst += g.W_out) {
      const int64_t iy = oy * g.stride_h - g.pad_h + i * g.dil_h;
      if (iy < 0 || iy >= g.H) {
        std::fill(dst, dst + g.W_out, T(0));
        continue;
      }
      const T* srow = plane + iy * g.W;
      std::fill(dst, dst + ox0, T(0));
      if (g.stride_w == 1) {
        std::memcpy(dst + ox0, srow + ox0 + off, (ox1 - ox0) * sizeof(T));
      } else {
        for (int64_t ox = ox0; ox < ox1; ++ox) dst[ox] = srow[ox * g.stride_w + off];
      }
      std::fill(dst + ox1, dst + g.W_out, T(0));
    }
  }
}

// dst (C, H, W) <- sum of the columns of col (C*kH*kW, H_out*W_out) at their input positions.
template <class T>
void col2im(const T* col, T* dst, int64_t C, const ConvGeometry& g) {
  const int64_t HWo = g.H_out * g.W_out;
#pragma omp parallel for schedule(static) num_threads(threads_for(C, g.kH * g.kW * HWo, kMinParallelWork))
  for (int64_t c = 0; c < C; ++c) {
    T* plane = dst + c * g.H * g.W;
    std::fill(plane, plane + g.H * g.W, T(0));
    for (int64_t i = 0; i < g.kH; ++i) {
      for (int64_t j = 0; j < g.kW; ++j) {
        const T* src = col + ((c * g.kH + i) * g.kW + j) * HWo;
        const auto [off, ox0, ox1] = col_range(g, j);
        for (int64_t oy = 0; oy < g.H_out; ++oy) {
          const int64_t iy = oy * g.stride_h - g.pad_h + i * g.dil_h;
          if (iy < 0 || iy >= g.H) continue;
          T* drow = plane + iy * g.W;
          const T* srow = src + oy * g.W_out;
          if (g.stride_w == 1) {
            for (int64_t ox = ox0; ox < ox1; ++ox) drow[ox + off] += srow[ox];
          } else {
            for (int64_t ox = ox0; ox < ox1; ++ox) drow[ox * g.stride_w + off] += srow[ox];
          }
        }
      }
    }
  }
}

// Runs sample(n) for every sample: in parallel (one GEMM thread each) when there are at least as many
// samples as threads; otherwise in turn, and OpenBLAS threads each GEMM.
template <class F>
void for_each_sample(const ConvGeometry& g, F sample) {
  if (g.N >= omp_get_max_threads() && omp_get_max_threads() > 1) {
#pragma omp parallel for schedule(static)
    for (int64_t n = 0; n < g.N; ++n) sample(n);
  } else {
    for (int64_t n = 0; n < g.N; ++n) sample(n);
  }
}

}  // namespace

template <class T>
void im2col_forward(T* y, const T* x, const T* w, const T* bias, const ConvGeometry& g) {
  const int64_t cig = g.cin_g(), cog = g.cout_g(), K = cig * g.kH * g.kW, HW = g.H * g.W, HWo = g.H_out * g.W_out;
  const bool direct = is_pointwise(g);
  auto sample = [&](int64_t n) {
    T* col = direct ? nullptr : scratch<T>(0, K * HWo);
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const T* src = x + (n * g.C_in + grp * cig) * HW;
      if (!direct) im2col(src, col, cig, g);
      T* dst = y + (n * g.C_out + grp * cog) * HWo;
      if (bias) {
        for (int64_t o = 0; o < cog; ++o) std::fill(dst + o * HWo, dst + (o + 1) * HWo, bias[grp * cog + o]);
      }
      gemm<T>(false, false, cog, HWo, K, T(1), w + grp * cog * K, K, direct ? src : col, HWo, bias ? T(1) : T(0), dst,
              HWo);
    }
  };
  for_each_sample(g, sample);
}

template <class T>
void im2col_backward_input(T* gx, const T* gy, const T* w, const ConvGeometry& g) {
  const int64_t cig = g.cin_g(), cog = g.cout_g(), K = cig * g.kH * g.kW, HW = g.H * g.W, HWo = g.H_out * g.W_out;
  const bool direct = is_pointwise(g);
  auto sample = [&](int64_t n) {
    T* col = direct ? nullptr : scratch<T>(0, K * HWo);
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const T* src = gy + (n * g.C_out + grp * cog) * HWo;
      T* dst = gx + (n * g.C_in + grp * cig) * HW;
      gemm<T>(true, false, K, HWo, cog, T(1), w + grp * cog * K, K, src, HWo, T(0), direct ? dst : col, HWo);
      if (!direct) col2im(col, dst, cig, g);
    }
  };
  for_each_sample(g, sample);
}

template <class T>
void im2col_backward_weight(T* gw, const T* x, const T* gy, const ConvGeometry& g) {
  const int64_t cig = g.cin_g(), cog = g.cout_g(), K = cig * g.kH * g.kW, HW = g.H * g.W, HWo = g.H_out * g.W_out;
  const bool direct = is_pointwise(g);
  T* col = direct ? nullptr : scratch<T>(0, K * HWo);
  for (int64_t n = 0; n < g.N; ++n) {
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const T* src = x + (n * g.C_in + grp * cig) * HW;
      if (!direct) im2col(src, col, cig, g);
      gemm<T>(false, true, cog, K, HWo, T(1), gy + (n * g.C_out + grp * cog) * HWo, HWo, direct ? src : col, HWo,
              n == 0 ? T(0) : T(1), gw + grp * cog * K, K);
    }
  }
}

ADEPT_CONV_ALGO_INSTANTIATE(im2col)

}  // namespace adept::cpu::conv
