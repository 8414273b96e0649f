// CPU copy (with dtype conversion, any strides), fill and host transfers.
#include <cstring>

#include "backends/cpu/convert.h"
#include "backends/cpu/loops.h"
#include "kernels/kernels.h"

namespace adept::cpu {
namespace {

void copy_cpu(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  if (dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous()) {
    std::memmove(dst.data_ptr(), src.data_ptr(), dst.numel() * dst.element_size());
    return;
  }
  ADEPT_DISPATCH_ALL(dst.dtype(), "copy", [&] {
    using out_t = scalar_t;
    ADEPT_DISPATCH_ALL(src.dtype(), "copy", [&] {
      unary_loop<out_t, scalar_t>(dst, src, [](scalar_t v) { return convert<out_t>(v); });
    });
  });
}

void fill_cpu(const Tensor& dst, const Scalar& value) {
  if (dst.numel() == 0) return;
  ADEPT_DISPATCH_ALL(dst.dtype(), "fill", [&] {
    const scalar_t v = value.to<scalar_t>();
    auto it = make_iter<1>({&dst});
    for_each_run(it, [&](std::array<char*, 1> p, std::array<int64_t, 1> s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) *reinterpret_cast<scalar_t*>(p[0] + i * s[0]) = v;
    });
  });
}

void to_host_cpu(void* host_dst, const Tensor& src) {
  std::memcpy(host_dst, src.data_ptr(), src.numel() * src.element_size());
}
void from_host_cpu(const Tensor& dst, const void* host_src) {
  std::memcpy(dst.data_ptr(), host_src, dst.numel() * dst.element_size());
}

}  // namespace

ADEPT_REGISTER_KERNEL(copy_kernel, CPU, copy_cpu)
ADEPT_REGISTER_KERNEL(fill_kernel, CPU, fill_cpu)
ADEPT_REGISTER_KERNEL(to_host_kernel, CPU, to_host_cpu)
ADEPT_REGISTER_KERNEL(from_host_kernel, CPU, from_host_cpu)

}  // namespace adept::cpu
