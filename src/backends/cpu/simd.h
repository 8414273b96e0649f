// Highway SIMD kernels for contiguous float32 runs (static dispatch: the build's baseline target,
// e.g. SSE4 under -march=x86-64-v2, AVX2 under -march=x86-64-v3). The scalar loops in unary.cpp and
// reduce.cpp stay the reference; tests/cpp/test_simd.cpp compares the two.
#pragma once
#include <cstdint>

#include "ops/kernels.h"

namespace adept::cpu::simd {

/// out[i] = op(in[i]) for i < n on contiguous float32 (out may alias in).
using UnaryRunF32 = void (*)(float* out, const float* in, int64_t n);

/// The SIMD kernel of `op` for contiguous float32 runs, or nullptr when there is none. Covered:
/// Exp, Sigmoid, Silu, Tanh; results are within a few float32 ulp of the libm reference, with the
/// same NaN/inf/overflow/underflow results.
UnaryRunF32 unary_run_f32(UnaryOp op);

/// Sum of n contiguous float32 values: float lanes within blocks of 1024 values, blocks added in
/// double (as accurate as the scalar 4-lane double loop for n up to millions, much faster).
double sum_f32(const float* p, int64_t n);

}  // namespace adept::cpu::simd
