// vulkan_cooperative_matrix_peak (include/adept/vulkan.h): times shaders/coopmat_peak.comp, fragments
// multiplied in registers with no memory traffic, to give the ceiling the GEMM and convolution kernels
// that use cooperative matrices are measured against.
#include <algorithm>
#include <chrono>

#include "adept/vulkan.h"
#include "backends/vulkan/launch.h"
#include "kernels/tensor_view.h"

namespace adept {

double vulkan_cooperative_matrix_peak(int index) {
  vk::Context& ctx = vk::Context::get(index);
  ADEPT_CHECK(ctx.info().cooperative_matrix, NotImplementedForDevice,
              "vulkan_cooperative_matrix_peak: vulkan:{} ({}) has no cooperative matrices in use", ctx.index(),
              ctx.info().name);
  constexpr uint32_t kGroups = 4096, kSubgroups = 4, kFragments = 8, kIters = 4096;
  const Tensor out = kernel_buffer({int64_t{kGroups} * kSubgroups * kFragments * 256}, kFloat32,
                                   Device(DeviceType::Vulkan, ctx.index()));
  auto run = [&](uint32_t iters) {
    struct Push { uint32_t iters; float one; } push{iters, 1.0f};
    vk::launch(ctx, "vulkan_cooperative_matrix_peak", "coopmat_peak_f16", {}, {0}, {&out}, &push, sizeof(push), kGroups);
    vulkan_synchronize(ctx.index());
  };
  run(1);  // pipeline creation
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    run(kIters);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double flops = 2.0 * 16 * 16 * 16 * kFragments * kSubgroups * double(kGroups) * kIters;
    best = std::max(best, flops / s / 1e12);
  }
  return best;
}

}  // namespace adept
