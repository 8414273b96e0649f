// Highway SIMD kernels for contiguous float32 runs. The unary ones (simd_unary.cpp) are built for
// every x86 target and dispatched at run time (AVX-512 where the CPU has it, whatever -march says);
// the sum uses the build's baseline target (e.g. SSE4 under -march=x86-64-v2). The scalar loops in
// unary.cpp, silu_backward.cpp and reduce.cpp stay the reference; tests/cpp/test_simd.cpp and
// test_silu_backward.cpp compare the two.
#pragma once
#include <cstdint>

#include "kernels/kernels.h"

namespace adept::cpu::simd {

/// out[i] = op(in[i]) for i < n on contiguous float32 (out may alias in); `a` and `b` are the op's
/// UnaryParams a and b (Softplus: beta and threshold), ignored by ops without parameters.
using UnaryRunF32 = void (*)(float* out, const float* in, int64_t n, float a, float b);

/// The SIMD kernel of `op` for contiguous float32 runs (for this CPU's best target: safe to keep for
/// the process's life), or nullptr when there is none. Covered:
/// Exp, Sigmoid, Silu, Tanh, Softplus, LogSigmoid; results are within a few float32 ulp of the
/// scalar reference, with the same NaN/inf/overflow/underflow results.
UnaryRunF32 unary_run_f32(UnaryOp op);

/// SiLU's gradient on n contiguous float32: out[i] = g[i] * s * (1 + x[i] * (1 - s)), s = sigmoid(x[i])
/// (out may alias g or x); the scalar formula of silu_backward.cpp up to float32 rounding of its
/// terms, no NaN from exp overflow.
void silu_backward_f32(float* out, const float* g, const float* x, int64_t n);

/// Sum of n contiguous float32 values: float lanes within blocks of 1024 values, blocks added in
/// double (as accurate as the scalar 4-lane double loop for n up to millions, much faster).
double sum_f32(const float* p, int64_t n);

}  // namespace adept::cpu::simd
