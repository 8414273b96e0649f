// Highway float32 kernels for exp, sigmoid, silu and tanh on contiguous runs (see simd.h).
// Highway's Exp is valid only for x <= 104 and maps NaN to 0, Tanh's NaN result is unspecified:
// the wrappers below restore libm's results for overflow and NaN.
#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>

#include "backends/cpu/simd.h"

namespace adept::cpu::simd {
namespace {

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

struct ExpOp {
  V operator()(D d, V x) const { return exp_v(d, x); }
};
struct SigmoidOp {  // 1 / (1 + exp(-x)), as the scalar path
  V operator()(D d, V x) const {
    const V one = hn::Set(d, 1.0f);
    return hn::Div(one, hn::Add(one, exp_v(d, hn::Neg(x))));
  }
};
struct SiluOp {  // x / (1 + exp(-x)), as the scalar path (NaN at -inf, like torch)
  V operator()(D d, V x) const { return hn::Div(x, hn::Add(hn::Set(d, 1.0f), exp_v(d, hn::Neg(x)))); }
};
struct TanhOp {
  V operator()(D d, V x) const { return hn::IfThenElse(hn::IsNaN(x), x, hn::Tanh(d, x)); }
};

template <class Op>
void run(float* out, const float* in, int64_t n) {
  const D d;
  const Op op;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(op(d, hn::LoadU(d, in + i)), d, out + i);
  if (i < n) {  // tail through a padded buffer: one code path for every element
    alignas(64) float buf[HWY_MAX_BYTES / sizeof(float)] = {};
    for (int64_t j = i; j < n; ++j) buf[j - i] = in[j];
    hn::Store(op(d, hn::Load(d, buf)), d, buf);
    for (int64_t j = i; j < n; ++j) out[j] = buf[j - i];
  }
}

}  // namespace

UnaryRunF32 unary_run_f32(UnaryOp op) {
  switch (op) {
    case UnaryOp::Exp: return &run<ExpOp>;
    case UnaryOp::Sigmoid: return &run<SigmoidOp>;
    case UnaryOp::Silu: return &run<SiluOp>;
    case UnaryOp::Tanh: return &run<TanhOp>;
    default: return nullptr;
  }
}

}  // namespace adept::cpu::simd
