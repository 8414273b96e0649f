// CPU gather and scatter along one dim. The data operand is viewed with index's shape and a
// zero stride along `dim`, so one strided walk yields the base pointer and the index for every
// position. Scatter runs on one thread: duplicate indices would race.
#include <cstring>

#include "backends/cpu/convert.h"
#include "backends/cpu/loops.h"
#include "kernels/kernels.h"

namespace adept::cpu {
namespace {

// `t` restrided to `shape` (index's shape) with stride 0 along dim: points at coordinate 0 of dim.
Tensor along_dim_view(const Tensor& t, const Shape& shape, int64_t dim) {
  Shape strides = t.strides();
  strides[dim] = 0;
  return restrided(t, shape, strides, t.storage_offset());
}

void gather_cpu(const Tensor& out, const Tensor& x, int64_t dim, const Tensor& index) {
  if (out.numel() == 0) return;
  if (x.dim() == 0) {
    copy_kernel().get(kCPU)(out, restrided(x, out.sizes(), Shape(out.dim(), 0), x.storage_offset()));
    return;
  }
  Tensor xv = along_dim_view(x, out.sizes(), dim);
  const int64_t xs = x.stride(dim) * static_cast<int64_t>(x.element_size());
  const size_t es = x.element_size();
  auto it = make_iter<3>({&out, &xv, &index});
  for_each_run(it, [&](std::array<char*, 3> p, std::array<int64_t, 3> s, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      int64_t k = *reinterpret_cast<const int64_t*>(p[2] + i * s[2]);
      std::memcpy(p[0] + i * s[0], p[1] + i * s[1] + k * xs, es);
    }
  });
}

void scatter_cpu(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, bool add) {
  if (index.numel() == 0) return;
  if (self.dim() == 0) {
    const Tensor src0 = restrided(src, {}, {}, src.storage_offset());  // src has one element
    if (add) binary_kernel().get(kCPU)(BinaryOp::Add, self, self, src0);
    else copy_kernel().get(kCPU)(self, src0);
    return;
  }
  Tensor sv = along_dim_view(self, index.sizes(), dim);
  const int64_t ss = self.stride(dim) * static_cast<int64_t>(self.element_size());
  ADEPT_DISPATCH_ALL(self.dtype(), "scatter", [&] {
    auto it = make_iter<3>({&sv, &src, &index});
    auto body = [&](std::array<char*, 3> p, std::array<int64_t, 3> s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        int64_t k = *reinterpret_cast<const int64_t*>(p[2] + i * s[2]);
        auto* dst = reinterpret_cast<scalar_t*>(p[0] + i * s[0] + k * ss);
        scalar_t v = *reinterpret_cast<const scalar_t*>(p[1] + i * s[1]);
        if (add) {
          if constexpr (std::is_same_v<scalar_t, bool>) *dst = *dst || v;
          else *dst = convert<scalar_t>(static_cast<compute_t<scalar_t>>(*dst) + static_cast<compute_t<scalar_t>>(v));
        } else {
          *dst = v;
        }
      }
    };
    walk_range(it, 0, it.numel, body);
  });
}

}  // namespace

ADEPT_REGISTER_KERNEL(gather_kernel, CPU, gather_cpu)
ADEPT_REGISTER_KERNEL(scatter_kernel, CPU, scatter_cpu)

}  // namespace adept::cpu
