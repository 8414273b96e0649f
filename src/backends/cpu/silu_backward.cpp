// CPU kernel of SiLU's gradient in one pass over grad_out and x (silu_backward_kernel, kernels.h).
#include <cmath>

#include "backends/cpu/convert.h"
#include "backends/cpu/loops.h"
#include "backends/cpu/simd.h"
#include "kernels/kernels.h"

namespace adept::cpu {
namespace {

// The scalar reference: g * s * (1 + x * (1 - s)), s = 1 / (1 + exp(-x)), in compute_t<T>.
template <class T>
T silu_grad(T gv, T xv) {
  using C = compute_t<T>;
  const C g = static_cast<C>(gv), x = static_cast<C>(xv);
  const C s = C(1) / (C(1) + std::exp(-x));
  return T(g * s * (C(1) + x * (C(1) - s)));
}

void silu_backward_cpu(const Tensor& grad_in, const Tensor& grad_out, const Tensor& x) {
  if (grad_in.numel() == 0) return;
  ADEPT_DISPATCH_FLOATING(x.dtype(), "silu_backward", [&] {
    if constexpr (std::is_same_v<scalar_t, float>) {
      // contiguous runs take the SIMD kernel, strided runs the scalar reference
      auto it = make_iter<3>({&grad_in, &grad_out, &x});
      for_each_run(it, [](std::array<char*, 3> p, std::array<int64_t, 3> s, int64_t n) {
        constexpr int64_t f = sizeof(float);
        if (s[0] == f && s[1] == f && s[2] == f) {
          simd::silu_backward_f32(reinterpret_cast<float*>(p[0]), reinterpret_cast<const float*>(p[1]),
                                  reinterpret_cast<const float*>(p[2]), n);
        } else {
          for (int64_t i = 0; i < n; ++i) {
            *reinterpret_cast<float*>(p[0] + i * s[0]) = silu_grad(*reinterpret_cast<const float*>(p[1] + i * s[1]),
                                                                   *reinterpret_cast<const float*>(p[2] + i * s[2]));
          }
        }
      });
    } else {
      binary_loop<scalar_t, scalar_t>(grad_in, grad_out, x, silu_grad<scalar_t>);
    }
  });
}

}  // namespace

ADEPT_REGISTER_KERNEL(silu_backward_kernel, CPU, silu_backward_cpu)

}  // namespace adept::cpu
