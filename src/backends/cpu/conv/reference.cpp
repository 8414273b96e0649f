// conv2d reference: the definition written as direct loops (accumulating in double). Slow and
// obviously correct; every other algorithm is tested against it.
#include "backends/cpu/conv/conv_cpu.h"

namespace adept::cpu::conv {

template <class T>
void reference_forward(T* y, const T* x, const T* w, const T* bias, const ConvGeometry& g) {
  const int64_t cig = g.cin_g(), cog = g.cout_g();
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t n = 0; n < g.N; ++n) {
    for (int64_t o = 0; o < g.C_out; ++o) {
      const int64_t grp = o / cog;
      for (int64_t oy = 0; oy < g.H_out; ++oy) {
        for (int64_t ox = 0; ox < g.W_out; ++ox) {
          double acc = bias ? static_cast<double>(bias[o]) : 0.0;
          for (int64_t c = 0; c < cig; ++c) {
            for (int64_t i = 0; i < g.kH; ++i) {
              const int64_t iy = oy * g.stride_h - g.pad_h + i * g.dil_h;
              if (iy < 0 || iy >= g.H) continue;
              for (int64_t j = 0; j < g.kW; ++j) {
                const int64_t ix = ox * g.stride_w - g.pad_w + j * g.dil_w;
                if (ix < 0 || ix >= g.W) continue;
                acc += static_cast<double>(x[((n * g.C_in + grp * cig + c) * g.H + iy) * g.W + ix]) *
                       static_cast<double>(w[((o * cig + c) * g.kH + i) * g.kW + j]);
              }
            }
          }
          y[((n * g.C_out + o) * g.H_out + oy) * g.W_out + ox] = static_cast<T>(acc);
        }
      }
    }
  }
}

// Gathers, for each input element, the outputs it contributed to (no write conflicts).
template <class T>
void reference_backward_input(T* gx, const T* gy, const T* w, const ConvGeometry& g) {
  const int64_t cig = g.cin_g(), cog = g.cout_g();
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t n = 0; n < g.N; ++n) {
    for (int64_t c = 0; c < g.C_in; ++c) {
      const int64_t grp = c / cig, cl = c % cig;
      for (int64_t iy = 0; iy < g.H; ++iy) {
        for (int64_t ix = 0; ix < g.W; ++ix) {
          double acc = 0;
          for (int64_t o = grp * cog; o < (grp + 1) * cog; ++o) {
            for (int64_t i = 0; i < g.kH; ++i) {
              const int64_t ty = iy + g.pad_h - i * g.dil_h;
              if (ty < 0 || ty % g.stride_h != 0 || ty / g.stride_h >= g.H_out) continue;
              for (int64_t j = 0; j < g.kW; ++j) {
                const int64_t tx = ix + g.pad_w - j * g.dil_w;
                if (tx < 0 || tx % g.stride_w != 0 || tx / g.stride_w >= g.W_out) continue;
                acc += static_cast<double>(gy[((n * g.C_out + o) * g.H_out + ty / g.stride_h) * g.W_out + tx / g.stride_w]) *
                       static_cast<double>(w[((o * cig + cl) * g.kH + i) * g.kW + j]);
              }
            }
          }
          gx[((n * g.C_in + c) * g.H + iy) * g.W + ix] = static_cast<T>(acc);
        }
      }
    }
  }
}

template <class T>
void reference_backward_weight(T* gw, const T* x, const T* gy, const ConvGeometry& g) {
  const int64_t cig = g.cin_g(), cog = g.cout_g();
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t o = 0; o < g.C_out; ++o) {
    for (int64_t c = 0; c < cig; ++c) {
      const int64_t grp = o / cog;
      for (int64_t i = 0; i < g.kH; ++i) {
        for (int64_t j = 0; j < g.kW; ++j) {
          double acc = 0;
          for (int64_t n = 0; n < g.N; ++n) {
            for (int64_t oy = 0; oy < g.H_out; ++oy) {
              const int64_t iy = oy * g.stride_h - g.pad_h + i * g.dil_h;
              if (iy < 0 || iy >= g.H) continue;
              for (int64_t ox = 0; ox < g.W_out; ++ox) {
                const int64_t ix = ox * g.stride_w - g.pad_w + j * g.dil_w;
                if (ix < 0 || ix >= g.W) continue;
                acc += static_cast<double>(x[((n * g.C_in + grp * cig + c) * g.H + iy) * g.W + ix]) *
                       static_cast<double>(gy[((n * g.C_out + o) * g.H_out + oy) * g.W_out + ox]);
              }
            }
          }
          gw[((o * cig + c) * g.kH + i) * g.kW + j] = static_cast<T>(acc);
        }
      }
    }
  }
}

ADEPT_CONV_ALGO_INSTANTIATE(reference)

}  // namespace adept::cpu::conv
