// CPU batch-norm training kernels: one OpenMP task per channel, float64 accumulation, contiguous
// inner loops over the spatial positions of each (sample, channel) plane. The per-channel sums run on
// kChains interleaved accumulators: one float64 chain is bound by the adder's latency (~4 cycles per
// element); independent chains let several additions run at once. The chains are folded in a fixed
// order, so the result depends only on the shape, not on the thread count.
#include <cmath>
#include <type_traits>
#include <vector>

#include "backends/cpu/simd.h"
#include "kernels/batch_norm.h"

namespace adept::cpu {
namespace {

template <class F>
void dispatch_float(Dtype dt, const char* op, F f) {
  if (dt == kFloat32) f(float{});
  else if (dt == kFloat64) f(double{});
  else throw DtypeError(fmt::format("{}: the fused CPU kernel takes float32 or float64, got '{}'", op, dtype_name(dt)));
}

struct Geometry {
  int64_t n, c, s;
  explicit Geometry(const Tensor& x) : n(x.size(0)), c(x.size(1)), s(x.size(2)) {}
  int64_t offset(int64_t i, int64_t ch) const { return (i * c + ch) * s; }
};

constexpr int kChains = 8;

// s += sum of a(j), t += sum of b(j) for j < n, on kChains chains each.
template <class A, class B>
inline void sum_pairs(int64_t n, A a, B b, double& s, double& t) {
  double sa[kChains] = {}, sb[kChains] = {};
  int64_t j = 0;
  for (; j + kChains <= n; j += kChains) {
    for (int l = 0; l < kChains; ++l) {
      sa[l] += a(j + l);
      sb[l] += b(j + l);
    }
  }
  for (int l = 0; j < n; ++j, ++l) {
    sa[l] += a(j);
    sb[l] += b(j);
  }
  for (int l = 0; l < kChains; ++l) {
    s += sa[l];
    t += sb[l];
  }
}

void stats_cpu(const Tensor& x, const Tensor& mean, const Tensor& var) {
  const Geometry g(x);
  double* pm = mean.data_ptr<double>();
  double* pv = var.data_ptr<double>();
  dispatch_float(x.dtype(), "batch_norm", [&](auto tag) {
    using T = decltype(tag);
    const T* px = static_cast<const T*>(x.data_ptr());
    const double m = static_cast<double>(g.n * g.s);
#pragma omp parallel for schedule(static) if (g.c > 1 && g.n * g.c * g.s > 32768)
    for (int64_t ch = 0; ch < g.c; ++ch) {
      const double shift = m > 0 ? static_cast<double>(px[g.offset(0, ch)]) : 0.0;
      double sum = 0, sumsq = 0;
      for (int64_t i = 0; i < g.n; ++i) {
        const T* row = px + g.offset(i, ch);
        auto d = [&](int64_t j) { return static_cast<double>(row[j]) - shift; };
        sum_pairs(g.s, d, [&](int64_t j) { return d(j) * d(j); }, sum, sumsq);
      }
      const double dm = sum / m;
      pm[ch] = shift + dm;
      pv[ch] = std::max(sumsq / m - dm * dm, 0.0);
    }
  });
}

// The channel mean as hi + lo in T: (x - hi) is exact for x near the mean (Sterbenz), so a mean
// far from zero costs no precision in float32.
template <class T>
struct SplitMean {
  T hi, lo;
  explicit SplitMean(double m) : hi(static_cast<T>(m)), lo(static_cast<T>(m - static_cast<double>(hi))) {}
  T centre(T x) const { return (x - hi) - lo; }
};

// The SiLU of n contiguous T in place: the Highway kernel for float32, the scalar formula for float64.
template <class T>
void silu_inplace(T* p, int64_t n) {
  if constexpr (std::is_same_v<T, float>) {
    static const simd::UnaryRunF32 run = simd::unary_run_f32(UnaryOp::Silu);  // the resolved kernel (simd.h)
    run(p, p, n, 0.f, 0.f);
  } else {
    for (int64_t j = 0; j < n; ++j) p[j] = p[j] / (T(1) + std::exp(-p[j]));
  }
}

// out[j] = g[j] * silu'(z[j]) for n contiguous T (out may alias g or z): the Highway kernel for float32.
template <class T>
void silu_grad(T* out, const T* g, const T* z, int64_t n) {
  if constexpr (std::is_same_v<T, float>) {
    simd::silu_backward_f32(out, g, z, n);
  } else {
    for (int64_t j = 0; j < n; ++j) {
      const T sg = T(1) / (T(1) + std::exp(-z[j]));
      out[j] = g[j] * sg * (T(1) + z[j] * (T(1) - sg));
    }
  }
}

void apply_cpu(const Tensor& out, const Tensor& x, const Tensor& mean, const Tensor& scale, const Tensor& shift,
               bool silu) {
  const Geometry g(x);
  const double* pm = mean.data_ptr<double>();
  const double* ps = scale.data_ptr<double>();
  const double* pb = shift.data_ptr<double>();
  dispatch_float(x.dtype(), "batch_norm", [&](auto tag) {
    using T = decltype(tag);
    const T* px = static_cast<const T*>(x.data_ptr());
    T* po = static_cast<T*>(out.data_ptr());
#pragma omp parallel for collapse(2) schedule(static) if (g.n * g.c * g.s > 32768)
    for (int64_t i = 0; i < g.n; ++i) {
      for (int64_t ch = 0; ch < g.c; ++ch) {
        const SplitMean<T> mu(pm[ch]);
        const T a = static_cast<T>(ps[ch]), b = static_cast<T>(pb[ch]);
        const T* src = px + g.offset(i, ch);
        T* dst = po + g.offset(i, ch);
        for (int64_t j = 0; j < g.s; ++j) dst[j] = mu.centre(src[j]) * a + b;
        if (silu) silu_inplace(dst, g.s);
      }
    }
  });
}

// With a defined `shift` (the fused BN+SiLU) the gradient g = dy * silu'(z) of each (sample, channel) row
// is written into dx's row (or a scratch row) by the sums pass, and the dx pass turns it into dx in place.
void backward_cpu(const Tensor& dx, const Tensor& dy, const Tensor& x, const Tensor& mean, const Tensor& invstd,
                  const Tensor& weight, const Tensor& shift, const Tensor& sum_dy, const Tensor& sum_dy_xhat) {
  const Geometry g(x);
  const double* pm = mean.data_ptr<double>();
  const double* pi = invstd.data_ptr<double>();
  const double* pw = weight.data_ptr<double>();
  const double* pb = shift.defined() ? shift.data_ptr<double>() : nullptr;
  double* psd = sum_dy.data_ptr<double>();
  double* psx = sum_dy_xhat.data_ptr<double>();
  dispatch_float(x.dtype(), "batch_norm backward", [&](auto tag) {
    using T = decltype(tag);
    const T* px = static_cast<const T*>(x.data_ptr());
    const T* pdy = static_cast<const T*>(dy.data_ptr());
    T* pdx = dx.defined() ? static_cast<T*>(dx.data_ptr()) : nullptr;
    const double m = static_cast<double>(g.n * g.s);
#pragma omp parallel for schedule(static) if (g.c > 1 && g.n * g.c * g.s > 32768)
    for (int64_t ch = 0; ch < g.c; ++ch) {
      const double mu = pm[ch], is = pi[ch];
      const SplitMean<T> smu(mu);
      std::vector<T> scratch(pb && !pdx ? static_cast<size_t>(g.s) : 0);
      double sdy = 0, sdyx = 0;
      for (int64_t i = 0; i < g.n; ++i) {
        const T* xr = px + g.offset(i, ch);
        const T* gr = pdy + g.offset(i, ch);
        if (pb) {
          // z as apply_cpu computes it, then g = dy * silu'(z) over it
          T* zr = pdx ? pdx + g.offset(i, ch) : scratch.data();
          const T a = static_cast<T>(pw[ch] * is), b = static_cast<T>(pb[ch]);
          for (int64_t j = 0; j < g.s; ++j) zr[j] = smu.centre(xr[j]) * a + b;
          silu_grad(zr, gr, zr, g.s);
          gr = zr;
        }
        sum_pairs(g.s, [&](int64_t j) { return static_cast<double>(gr[j]); },
                  [&](int64_t j) { return static_cast<double>(gr[j]) * (static_cast<double>(xr[j]) - mu); }, sdy, sdyx);
      }
      psd[ch] = sdy;
      psx[ch] = sdyx * is;
      if (!pdx) continue;
      // dx = k * (g - mean_g - (x - mu) * c2), computed in T on the contiguous rows.
      const T k = static_cast<T>(pw[ch] * is), mean_dy = static_cast<T>(sdy / m);
      const T c2 = static_cast<T>(sdyx * is * is / m);
      for (int64_t i = 0; i < g.n; ++i) {
        const T* xr = px + g.offset(i, ch);
        T* out = pdx + g.offset(i, ch);
        const T* gr = pb ? out : pdy + g.offset(i, ch);
        for (int64_t j = 0; j < g.s; ++j) out[j] = k * (gr[j] - mean_dy - smu.centre(xr[j]) * c2);
      }
    }
  });
}

void finalize_cpu(const Tensor& invstd, const Tensor& weight64, const Tensor& scale, const Tensor& shift,
                  const Tensor& mean, const Tensor& var, const Tensor& weight, const Tensor& bias,
                  const Tensor& running_mean, const Tensor& running_var, double eps, double factor, double var_factor) {
  const int64_t C = mean.numel();
  const double* pm = mean.data_ptr<double>();
  const double* pv = var.data_ptr<double>();
  double* pi = invstd.data_ptr<double>();
  double* pw = weight64.data_ptr<double>();
  double* ps = scale.data_ptr<double>();
  double* pb = shift.data_ptr<double>();
  const Dtype dt = weight.defined() ? weight.dtype() : bias.defined() ? bias.dtype()
                 : running_mean.defined() ? running_mean.dtype() : kFloat32;
  dispatch_float(dt, "batch_norm", [&](auto tag) {
    using P = decltype(tag);
    const P* w = weight.defined() ? static_cast<const P*>(weight.data_ptr()) : nullptr;
    const P* b = bias.defined() ? static_cast<const P*>(bias.data_ptr()) : nullptr;
    P* rm = running_mean.defined() ? static_cast<P*>(running_mean.data_ptr()) : nullptr;
    P* rv = running_var.defined() ? static_cast<P*>(running_var.data_ptr()) : nullptr;
    const P keep = static_cast<P>(1 - factor);
    for (int64_t c = 0; c < C; ++c) {
      pi[c] = 1.0 / std::sqrt(pv[c] + eps);
      pw[c] = w ? static_cast<double>(w[c]) : 1.0;
      ps[c] = pw[c] * pi[c];
      pb[c] = b ? static_cast<double>(b[c]) : 0.0;
      if (rm) rm[c] = rm[c] * keep + static_cast<P>(pm[c] * factor);
      if (rv) rv[c] = rv[c] * keep + static_cast<P>(pv[c] * var_factor);
    }
  });
}

// The dtypes dispatch_float takes (batch_norm composes the others from ops).
bool fused_dtype(int, Dtype d) { return d == kFloat32 || d == kFloat64; }

}  // namespace

ADEPT_REGISTER_KERNEL_SUPPORTING(batch_norm_stats_kernel, CPU, stats_cpu, fused_dtype)
ADEPT_REGISTER_KERNEL_SUPPORTING(batch_norm_finalize_kernel, CPU, finalize_cpu, fused_dtype)
ADEPT_REGISTER_KERNEL_SUPPORTING(batch_norm_apply_kernel, CPU, apply_cpu, fused_dtype)
ADEPT_REGISTER_KERNEL_SUPPORTING(batch_norm_backward_kernel, CPU, backward_cpu, fused_dtype)

}  // namespace adept::cpu
