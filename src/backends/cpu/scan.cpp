// CPU inclusive scans (cumsum, cumprod) along one dim; floats accumulate in double.
#include "backends/cpu/convert.h"
#include "backends/cpu/loops.h"
#include "kernels/kernels.h"

namespace adept::cpu {
namespace {

void scan_cpu(const Tensor& out, const Tensor& in, int64_t dim, bool is_prod) {
  if (out.numel() == 0) return;
  // Iterate over all positions with the scanned dim collapsed to 1.
  Tensor out0 = narrow_view(out, dim, 0, 1), in0 = narrow_view(in, dim, 0, 1);
  const int64_t n = in.size(dim);
  const int64_t so = out.stride(dim) * static_cast<int64_t>(out.element_size());
  const int64_t si = in.stride(dim) * static_cast<int64_t>(in.element_size());
  ADEPT_DISPATCH_ALL(in.dtype(), "scan", [&] {
    using acc_t = std::conditional_t<std::is_floating_point_v<compute_t<scalar_t>>, double, int64_t>;
    auto it = make_iter<2>({&out0, &in0});
    for_each_run(it, [&](std::array<char*, 2> p, std::array<int64_t, 2> s, int64_t cnt) {
      for (int64_t j = 0; j < cnt; ++j) {
        acc_t acc = is_prod ? 1 : 0;
        for (int64_t i = 0; i < n; ++i) {
          auto v = static_cast<acc_t>(static_cast<compute_t<scalar_t>>(*reinterpret_cast<const scalar_t*>(p[1] + j * s[1] + i * si)));
          acc = is_prod ? acc * v : acc + v;
          *reinterpret_cast<scalar_t*>(p[0] + j * s[0] + i * so) = convert<scalar_t>(acc);
        }
      }
    }, kParallelGrain / std::max<int64_t>(n, 1) + 1);
  });
}

}  // namespace

ADEPT_REGISTER_KERNEL(scan_kernel, CPU, scan_cpu)

}  // namespace adept::cpu
