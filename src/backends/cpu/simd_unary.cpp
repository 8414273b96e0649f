// Highway float32 kernels for exp, sigmoid, silu (and its gradient), tanh, softplus and logsigmoid on contiguous runs (see
// simd.h), compiled for every x86 target Highway supports and picked at run time for the CPU.
// Highway's Exp is valid only for x <= 104 and maps NaN to 0, Tanh's NaN result is unspecified:
// the wrappers below restore libm's results for overflow and NaN.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/simd_unary.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>

#include <array>
#include <utility>

#include "backends/cpu/simd.h"

HWY_BEFORE_NAMESPACE();
namespace adept::cpu::simd {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;
using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

// Above this, expf overflows to inf (ln(FLT_MAX) = 88.7228391...).
constexpr float kExpOverflow = 88.72283935546875f;

inline V exp_v(D d, V x) {
  V y = hn::Exp(d, hn::Min(x, hn::Set(d, 100.0f)));  // keep inside Highway's valid range
  y = hn::IfThenElse(hn::Gt(x, hn::Set(d, kExpOverflow)), hn::Inf(d), y);
  return hn::IfThenElse(hn::IsNaN(x), x, y);
}

inline V sigmoid_v(D d, V x) {  // 1 / (1 + exp(-x)), as the scalar path
  const V one = hn::Set(d, 1.0f);
  return hn::Div(one, hn::Add(one, exp_v(d, hn::Neg(x))));
}

struct ExpOp {
  V operator()(D d, V x) const { return exp_v(d, x); }
};
struct SigmoidOp {
  V operator()(D d, V x) const { return sigmoid_v(d, x); }
};
struct SiluOp {  // x / (1 + exp(-x)), as the scalar path (NaN at -inf, like torch)
  V operator()(D d, V x) const { return hn::Div(x, hn::Add(hn::Set(d, 1.0f), exp_v(d, hn::Neg(x)))); }
};
struct TanhOp {
  V operator()(D d, V x) const { return hn::IfThenElse(hn::IsNaN(x), x, hn::Tanh(d, x)); }
};
// log1p(exp(x * beta)) / beta, or x where x * beta > threshold, as the scalar path: exp's overflow
// gives +-inf (Highway's Log1p has no infinite input), NaN stays NaN.
struct SoftplusOp {
  V beta, threshold;
  V operator()(D d, V x) const {
    const V t = hn::Mul(x, beta);
    const V e = exp_v(d, t);
    const V y = hn::IfThenElse(hn::Eq(e, hn::Inf(d)), hn::Div(e, beta), hn::Div(hn::Log1p(d, e), beta));
    return hn::IfThenElse(hn::Or(hn::Gt(t, threshold), hn::IsNaN(x)), x, y);
  }
};
// min(x, 0) - log1p(exp(-|x|)) (exp's argument is <= 0: no overflow); NaN stays NaN.
struct LogSigmoidOp {
  V operator()(D d, V x) const {
    const V y = hn::Sub(hn::Min(x, hn::Zero(d)), hn::Log1p(d, exp_v(d, hn::Neg(hn::Abs(x)))));
    return hn::IfThenElse(hn::IsNaN(x), x, y);
  }
};
struct SiluGradOp {  // g * s * (1 + x * (1 - s)), s = sigmoid(x), as the scalar path
  V operator()(D d, V g, V x) const {
    const V one = hn::Set(d, 1.0f);
    const V s = sigmoid_v(d, x);
    return hn::Mul(hn::Mul(g, s), hn::Add(one, hn::Mul(x, hn::Sub(one, s))));
  }
};

// out[i] = op(in[0][i], ..., in[K-1][i]) for i < n (out may alias an input).
template <class Op, size_t K, size_t... I>
void run_k(const Op& op, float* out, int64_t n, const std::array<const float*, K>& in, std::index_sequence<I...>) {
  const D d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(op(d, hn::LoadU(d, in[I] + i)...), d, out + i);
  if (i < n) {  // tail through zero-padded buffers: one code path for every element
    alignas(64) float buf[K][HWY_MAX_BYTES / sizeof(float)] = {};
    for (size_t k = 0; k < K; ++k) {
      for (int64_t j = i; j < n; ++j) buf[k][j - i] = in[k][j];
    }
    hn::Store(op(d, hn::Load(d, buf[I])...), d, buf[0]);
    for (int64_t j = i; j < n; ++j) out[j] = buf[0][j - i];
  }
}

template <class Op, class... In>
void run(const Op& op, float* out, int64_t n, const In*... in) {
  run_k(op, out, n, std::array<const float*, sizeof...(In)>{in...}, std::index_sequence_for<In...>{});
}

void ExpRun(float* out, const float* in, int64_t n, float, float) { run(ExpOp{}, out, n, in); }
void SigmoidRun(float* out, const float* in, int64_t n, float, float) { run(SigmoidOp{}, out, n, in); }
void SiluRun(float* out, const float* in, int64_t n, float, float) { run(SiluOp{}, out, n, in); }
void TanhRun(float* out, const float* in, int64_t n, float, float) { run(TanhOp{}, out, n, in); }
void SoftplusRun(float* out, const float* in, int64_t n, float beta, float threshold) {
  const D d;
  run(SoftplusOp{hn::Set(d, beta), hn::Set(d, threshold)}, out, n, in);
}
void LogSigmoidRun(float* out, const float* in, int64_t n, float, float) { run(LogSigmoidOp{}, out, n, in); }
void SiluGradRun(float* out, const float* g, const float* x, int64_t n) { run(SiluGradOp{}, out, n, g, x); }

}  // namespace HWY_NAMESPACE
}  // namespace adept::cpu::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace adept::cpu::simd {

HWY_EXPORT(ExpRun);
HWY_EXPORT(SigmoidRun);
HWY_EXPORT(SiluRun);
HWY_EXPORT(TanhRun);
HWY_EXPORT(SoftplusRun);
HWY_EXPORT(LogSigmoidRun);
HWY_EXPORT(SiluGradRun);

// Until Highway has chosen its target, HWY_DYNAMIC_DISPATCH yields the table's first entry: a trampoline
// that detects the CPU (cpuid, costly) on every call before forwarding. Choosing first makes the returned
// pointer the kernel itself, which callers keep for a whole kernel (or longer).
void choose_target_once() {
  static const bool chosen = [] {
    if (!hwy::GetChosenTarget().IsInitialized()) hwy::GetChosenTarget().Update(hwy::SupportedTargets());
    return true;
  }();
  (void)chosen;
}

UnaryRunF32 unary_run_f32(UnaryOp op) {
  choose_target_once();
  switch (op) {
    case UnaryOp::Exp: return HWY_DYNAMIC_DISPATCH(ExpRun);
    case UnaryOp::Sigmoid: return HWY_DYNAMIC_DISPATCH(SigmoidRun);
    case UnaryOp::Silu: return HWY_DYNAMIC_DISPATCH(SiluRun);
    case UnaryOp::Tanh: return HWY_DYNAMIC_DISPATCH(TanhRun);
    case UnaryOp::Softplus: return HWY_DYNAMIC_DISPATCH(SoftplusRun);
    case UnaryOp::LogSigmoid: return HWY_DYNAMIC_DISPATCH(LogSigmoidRun);
    default: return nullptr;
  }
}

void silu_backward_f32(float* out, const float* g, const float* x, int64_t n) {
  HWY_DYNAMIC_DISPATCH(SiluGradRun)(out, g, x, n);
}

}  // namespace adept::cpu::simd
#endif  // HWY_ONCE
