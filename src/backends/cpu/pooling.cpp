// CPU 2-d pooling: max / average windows (fixed or adaptive), average pooling's gradient and the per-plane
// scatter behind max pooling's gradient and max_unpool2d. Planes are independent and spread over OpenMP
// threads; within a plane the loops run in PyTorch's order, so sums round the same way.
#include <cmath>
#include <limits>

#include "backends/cpu/convert.h"
#include "backends/cpu/loops.h"
#include "kernels/pooling.h"

namespace adept::cpu {
namespace {

// The rows (or columns, axis 1) one output position reads: start, end (exclusive) and step; for fixed
// windows also the window's extent counting padding (for count_include_pad).
struct Span {
  int64_t begin, end, step, padded;
};

Span max_span(const Pool2dGeometry& g, int axis, int64_t i) {
  const int64_t in = axis == 0 ? g.H : g.W, out = axis == 0 ? g.H_out : g.W_out;
  if (g.adaptive) {
    const int64_t b = adaptive_start(i, out, in), e = adaptive_end(i, out, in);
    return {b, e, 1, e - b};
  }
  const int64_t d = g.dilation[axis];
  int64_t b = i * g.stride[axis] - g.padding[axis];
  const int64_t e = std::min(b + (g.kernel[axis] - 1) * d + 1, in);
  while (b < 0) b += d;
  return {b, e, d, 0};
}

Span avg_span(const Pool2dGeometry& g, int axis, int64_t i) {
  const int64_t in = axis == 0 ? g.H : g.W;
  if (g.adaptive) return max_span(g, axis, i);
  int64_t b = i * g.stride[axis] - g.padding[axis];
  int64_t e = std::min(b + g.kernel[axis], in + g.padding[axis]);
  const int64_t padded = e - b;
  b = std::max<int64_t>(b, 0);
  e = std::min(e, in);
  return {b, e, 1, padded};
}

// The value each element of a window contributes to the mean: sum / divisor, PyTorch's order of division.
template <class acc_t>
acc_t avg_divide(acc_t sum, const Pool2dGeometry& g, const Span& h, const Span& w) {
  if (g.adaptive) return sum / static_cast<acc_t>(h.end - h.begin) / static_cast<acc_t>(w.end - w.begin);
  int64_t div;
  if (g.divisor_override > 0) div = g.divisor_override;
  else if (g.count_include_pad) div = h.padded * w.padded;
  else div = (h.end - h.begin) * (w.end - w.begin);
  return sum / static_cast<acc_t>(div);
}

void max_pool2d_cpu(const Tensor& out, const Tensor& indices, const Tensor& in, const Pool2dGeometry& g) {
  const int64_t P = in.size(0), plane = g.H * g.W, oplane = g.H_out * g.W_out;
  ADEPT_DISPATCH_FLOATING(in.dtype(), "max_pool2d", [&] {
    using acc_t = compute_t<scalar_t>;
    const scalar_t* x = in.data_ptr<scalar_t>();
    scalar_t* y = out.data_ptr<scalar_t>();
    int64_t* ind = indices.data_ptr<int64_t>();
    for_each_plane(P, oplane * g.kernel[0] * g.kernel[1], [&](int64_t p) {
      const scalar_t* xp = x + p * plane;
      for (int64_t oh = 0; oh < g.H_out; ++oh) {
        const Span h = max_span(g, 0, oh);
        for (int64_t ow = 0; ow < g.W_out; ++ow) {
          const Span w = max_span(g, 1, ow);
          // A window of dilated taps may miss the input entirely (PyTorch then reports a position outside
          // the plane); its index is -1, which the gradient scatter skips.
          int64_t best = h.begin < h.end && w.begin < w.end ? h.begin * g.W + w.begin : -1;
          acc_t m = -std::numeric_limits<acc_t>::infinity();
          for (int64_t ih = h.begin; ih < h.end; ih += h.step) {
            for (int64_t iw = w.begin; iw < w.end; iw += w.step) {
              const acc_t v = static_cast<acc_t>(xp[ih * g.W + iw]);
              if (v > m || std::isnan(v)) {
                m = v;
                best = ih * g.W + iw;
              }
            }
          }
          const int64_t o = p * oplane + oh * g.W_out + ow;
          y[o] = convert<scalar_t>(m);
          ind[o] = best;
        }
      }
    });
  });
}

void avg_pool2d_cpu(const Tensor& out, const Tensor& in, const Pool2dGeometry& g) {
  const int64_t P = in.size(0), plane = g.H * g.W, oplane = g.H_out * g.W_out;
  ADEPT_DISPATCH_FLOATING(in.dtype(), "avg_pool2d", [&] {
    using acc_t = compute_t<scalar_t>;
    const scalar_t* x = in.data_ptr<scalar_t>();
    scalar_t* y = out.data_ptr<scalar_t>();
    for_each_plane(P, oplane * g.kernel[0] * g.kernel[1], [&](int64_t p) {
      const scalar_t* xp = x + p * plane;
      for (int64_t oh = 0; oh < g.H_out; ++oh) {
        const Span h = avg_span(g, 0, oh);
        for (int64_t ow = 0; ow < g.W_out; ++ow) {
          const Span w = avg_span(g, 1, ow);
          acc_t r = 0;
          if (h.begin < h.end && w.begin < w.end) {
            acc_t sum = 0;
            for (int64_t ih = h.begin; ih < h.end; ++ih) {
              for (int64_t iw = w.begin; iw < w.end; ++iw) sum += static_cast<acc_t>(xp[ih * g.W + iw]);
            }
            r = avg_divide(sum, g, h, w);
          }
          y[p * oplane + oh * g.W_out + ow] = convert<scalar_t>(r);
        }
      }
    });
  });
}

void avg_pool2d_backward_cpu(const Tensor& grad_in, const Tensor& grad_out, const Pool2dGeometry& g) {
  const int64_t P = grad_in.size(0), plane = g.H * g.W, oplane = g.H_out * g.W_out;
  ADEPT_DISPATCH_FLOATING(grad_in.dtype(), "avg_pool2d_backward", [&] {
    using acc_t = compute_t<scalar_t>;
    scalar_t* gx = grad_in.data_ptr<scalar_t>();
    const scalar_t* gy = grad_out.data_ptr<scalar_t>();
    for_each_plane(P, plane + oplane * g.kernel[0] * g.kernel[1], [&](int64_t p) {
      // Accumulate in the compute type (float for 16-bit floats), then round once.
      std::vector<acc_t> acc(plane, acc_t(0));
      for (int64_t oh = 0; oh < g.H_out; ++oh) {
        const Span h = avg_span(g, 0, oh);
        for (int64_t ow = 0; ow < g.W_out; ++ow) {
          const Span w = avg_span(g, 1, ow);
          if (h.begin >= h.end || w.begin >= w.end) continue;
          const acc_t d = avg_divide(static_cast<acc_t>(gy[p * oplane + oh * g.W_out + ow]), g, h, w);
          for (int64_t ih = h.begin; ih < h.end; ++ih) {
            for (int64_t iw = w.begin; iw < w.end; ++iw) acc[ih * g.W + iw] += d;
          }
        }
      }
      for (int64_t i = 0; i < plane; ++i) gx[p * plane + i] = convert<scalar_t>(acc[i]);
    });
  });
}

// out (P, M) = zeros with out[p, index[p, l]] = (or +=) src[p, l] for src/index (P, L), l in order.
void scatter_planes(const Tensor& out, const Tensor& src, const Tensor& index, int64_t P, int64_t M, int64_t L,
                    bool add) {
  ADEPT_DISPATCH_FLOATING(out.dtype(), "plane_scatter", [&] {
    using acc_t = compute_t<scalar_t>;
    scalar_t* o = out.data_ptr<scalar_t>();
    const scalar_t* s = src.data_ptr<scalar_t>();
    const int64_t* ind = index.data_ptr<int64_t>();
    for_each_plane(P, M + L, [&](int64_t p) {
      std::vector<acc_t> acc(M, acc_t(0));
      for (int64_t l = 0; l < L; ++l) {
        const int64_t i = ind[p * L + l];
        if (i < 0) continue;  // an empty max-pooling window
        const acc_t v = static_cast<acc_t>(s[p * L + l]);
        acc[i] = add ? acc[i] + v : v;
      }
      for (int64_t m = 0; m < M; ++m) o[p * M + m] = convert<scalar_t>(acc[m]);
    });
  });
}

void plane_scatter_cpu(const Tensor& out, const Tensor& src, const Tensor& index, bool add) {
  scatter_planes(out, src, index, out.size(0), out.size(1), src.size(1), add);
}

void max_pool2d_backward_cpu(const Tensor& grad_in, const Tensor& grad_out, const Tensor& indices,
                             const Pool2dGeometry& g) {
  scatter_planes(grad_in, grad_out, indices, grad_in.size(0), g.H * g.W, g.H_out * g.W_out, true);
}

}  // namespace

ADEPT_REGISTER_KERNEL(max_pool2d_kernel, CPU, max_pool2d_cpu)
ADEPT_REGISTER_KERNEL(max_pool2d_backward_kernel, CPU, max_pool2d_backward_cpu)
ADEPT_REGISTER_KERNEL(avg_pool2d_kernel, CPU, avg_pool2d_cpu)
ADEPT_REGISTER_KERNEL(avg_pool2d_backward_kernel, CPU, avg_pool2d_backward_cpu)
ADEPT_REGISTER_KERNEL(plane_scatter_kernel, CPU, plane_scatter_cpu)

}  // namespace adept::cpu
