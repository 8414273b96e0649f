// Kernel family of random fills on a device. The op (src/ops/random.cpp) reserves `numel` counters of
// the generator; element i of `out` (row-major over its shape, any strides) is computed from the
// Philox4x32-10 block of counter (offset + i) under key `seed`, exactly as the op's host path does:
//   u01(a, b) = ((a << 21) ^ (b >> 11)) mod 2^53 / 2^53 (53 random bits, a double in [0, 1));
//   Uniform: a + (b - a) * u01(v0, v1);  Bernoulli: u01(v0, v1) < a ? 1 : 0;
//   Normal: a + b * sqrt(-2 log(1 - u01(v0, v1))) * cos(2 pi u01(v2, v3))  (Box-Muller),
//   Integer: low + ((v0 << 32 | v1) mod range) as int64 (randint),
// in float64 (Integer: int64), then converted to out's dtype; with `half_open` a value that rounds to 1 or more
// becomes 0 (rand's [0, 1)). So a seed gives the same numbers on every device (float64 transcendental
// functions may differ in the last bits between devices).
#pragma once
#include <cstdint>

#include "adept/tensor.h"
#include "kernels/registry.h"

namespace adept {

struct RandomDraw {
  enum class Kind : int { Uniform = 0, Normal = 1, Bernoulli = 2, Integer = 3 };
  Kind kind = Kind::Uniform;
  double a = 0, b = 1;  // Uniform: [a, b); Normal: mean a, std b; Bernoulli: probability a
  int64_t low = 0;      // Integer: [low, low + range)
  uint64_t range = 1;
  uint64_t seed = 0, offset = 0;
  bool half_open = false;
};

ADEPT_DECLARE_KERNEL(random_kernel, void(const Tensor& out, const RandomDraw& draw))

}  // namespace adept
