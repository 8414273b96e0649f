// CPU separable resampling (interpolate's nearest, bilinear and bicubic modes) and its gradient. Planes
// are independent and spread over OpenMP threads; the weighted sums follow PyTorch's order (width taps
// inside, height taps outside), so float32 results round the same way.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "backends/cpu/convert.h"
#include "backends/cpu/loops.h"
#include "kernels/interpolate.h"

namespace adept::cpu {
namespace {

template <class acc_t>
std::vector<acc_t> weights_as(const InterpTaps& t) {
  return std::vector<acc_t>(t.weight.begin(), t.weight.end());
}

// Calls f with the tap counts of both axes as compile-time constants (so the tap loops unroll).
template <class F>
void with_taps(const InterpTaps& h, const InterpTaps& w, F f) {
  auto both = [&](auto th, auto tw) { return h.taps == th.value && w.taps == tw.value; };
  using I1 = std::integral_constant<int, 1>;
  using I2 = std::integral_constant<int, 2>;
  using I4 = std::integral_constant<int, 4>;
  if (both(I1{}, I1{})) f(I1{}, I1{});
  else if (both(I2{}, I2{})) f(I2{}, I2{});
  else if (both(I4{}, I4{})) f(I4{}, I4{});
  else if (both(I1{}, I2{})) f(I1{}, I2{});
  else if (both(I1{}, I4{})) f(I1{}, I4{});
  else throw Error(fmt::format("interpolate: unsupported tap counts {} x {}", h.taps, w.taps));
}

void interpolate_cpu(const Tensor& out, const Tensor& in, const InterpTaps& h, const InterpTaps& w) {
  const int64_t P = in.size(0), H = in.size(1), W = in.size(2), Ho = out.size(1), Wo = out.size(2);
  ADEPT_DISPATCH_FLOATING(in.dtype(), "interpolate", [&] {
    using acc_t = compute_t<scalar_t>;
    const std::vector<acc_t> wh = weights_as<acc_t>(h), ww = weights_as<acc_t>(w);
    const scalar_t* x = in.data_ptr<scalar_t>();
    scalar_t* y = out.data_ptr<scalar_t>();
    with_taps(h, w, [&](auto th_c, auto tw_c) {
      constexpr int TH = decltype(th_c)::value, TW = decltype(tw_c)::value;
      for_each_plane(P, Ho * Wo * TH * TW, [&](int64_t p) {
        const scalar_t* xp = x + p * H * W;
        scalar_t* yp = y + p * Ho * Wo;
        for (int64_t oh = 0; oh < Ho; ++oh) {
          const int64_t* hi = h.index.data() + oh * TH;
          const acc_t* hw = wh.data() + oh * TH;
          scalar_t* yrow = yp + oh * Wo;
          if constexpr (TH == 1 && TW == 1) {  // nearest: a gather
            const scalar_t* row = xp + hi[0] * W;
            for (int64_t ow = 0; ow < Wo; ++ow) yrow[ow] = row[w.index[ow]];
            continue;
          }
          for (int64_t ow = 0; ow < Wo; ++ow) {
            const int64_t* wi = w.index.data() + ow * TW;
            const acc_t* wwp = ww.data() + ow * TW;
            acc_t r = 0;
            for (int a = 0; a < TH; ++a) {
              const scalar_t* row = xp + hi[a] * W;
              acc_t t = static_cast<acc_t>(row[wi[0]]) * wwp[0];
              for (int b = 1; b < TW; ++b) t += static_cast<acc_t>(row[wi[b]]) * wwp[b];
              r = a == 0 ? t * hw[0] : r + t * hw[a];
            }
            yrow[ow] = convert<scalar_t>(r);
          }
        }
      });
    });
  });
}

void interpolate_backward_cpu(const Tensor& grad_in, const Tensor& grad_out, const InterpTaps& h,
                              const InterpTaps& w) {
  const int64_t P = grad_in.size(0), H = grad_in.size(1), W = grad_in.size(2);
  const int64_t Ho = grad_out.size(1), Wo = grad_out.size(2);
  ADEPT_DISPATCH_FLOATING(grad_in.dtype(), "interpolate_backward", [&] {
    using acc_t = compute_t<scalar_t>;
    constexpr bool direct = std::is_same_v<acc_t, scalar_t>;  // 16-bit floats accumulate in a float buffer
    const std::vector<acc_t> wh = weights_as<acc_t>(h), ww = weights_as<acc_t>(w);
    scalar_t* gx = grad_in.data_ptr<scalar_t>();
    const scalar_t* gy = grad_out.data_ptr<scalar_t>();
    with_taps(h, w, [&](auto th_c, auto tw_c) {
      constexpr int TH = decltype(th_c)::value, TW = decltype(tw_c)::value;
      for_each_plane(P, H * W + Ho * Wo * TH * TW, [&](int64_t p) {
        std::vector<acc_t> buffer(direct ? 0 : H * W);
        acc_t* acc = direct ? reinterpret_cast<acc_t*>(gx + p * H * W) : buffer.data();
        std::fill(acc, acc + H * W, acc_t(0));
        const scalar_t* gp = gy + p * Ho * Wo;
        for (int64_t oh = 0; oh < Ho; ++oh) {
          const int64_t* hi = h.index.data() + oh * TH;
          const acc_t* hw = wh.data() + oh * TH;
          for (int64_t ow = 0; ow < Wo; ++ow) {
            const int64_t* wi = w.index.data() + ow * TW;
            const acc_t* wwp = ww.data() + ow * TW;
            const acc_t g = static_cast<acc_t>(gp[oh * Wo + ow]);
            for (int a = 0; a < TH; ++a) {
              acc_t* row = acc + hi[a] * W;
              for (int b = 0; b < TW; ++b) row[wi[b]] += hw[a] * wwp[b] * g;
            }
          }
        }
        if constexpr (!direct) {
          for (int64_t i = 0; i < H * W; ++i) gx[p * H * W + i] = convert<scalar_t>(acc[i]);
        }
      });
    });
  });
}

}  // namespace

ADEPT_REGISTER_KERNEL(interpolate_kernel, CPU, interpolate_cpu)
ADEPT_REGISTER_KERNEL(interpolate_backward_kernel, CPU, interpolate_backward_cpu)

}  // namespace adept::cpu
