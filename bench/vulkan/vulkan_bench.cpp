// Vulkan backend benchmark: the cooperative-matrix ceiling (vulkan_cooperative_matrix_peak, where the device
// has them), matmul GFLOP/s (float32, float16) at square sizes, elementwise add GB/s
// next to a device copy of the same bytes, and the cost of one dispatch (a 64-element in-place add
// recorded 2000 times, with and without a host wait after each). Writes JSON to stdout (or argv[1]).
// Usage: adept_vulkan_bench [out.json] [--quick] [--gemm float32|float16]
// --gemm DTYPE times only that dtype's GEMMs (tile sweeps with ADEPT_VK_SHADER_DIR: bench/vulkan/h200_gemm_sweep.sh).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "adept/adept.h"
#include "adept/vulkan.h"

using namespace adept;
using Clock = std::chrono::steady_clock;

namespace {

template <class F>
double time_per_iter(F f, int iters) {
  f();  // warm-up (pipelines, allocations)
  vulkan_synchronize();
  auto t0 = Clock::now();
  for (int i = 0; i < iters; ++i) f();
  vulkan_synchronize();
  return std::chrono::duration<double>(Clock::now() - t0).count() / iters;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out_path;
  bool quick = false;
  std::string gemm_only;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) quick = true;
    else if (std::strcmp(argv[i], "--gemm") == 0 && i + 1 < argc) gemm_only = argv[++i];
    else out_path = argv[i];
  }
  if (!vulkan_is_available()) {
    std::fprintf(stderr, "no Vulkan device\n");
    return 1;
  }
  const Device vk("vulkan");
  auto info = vulkan_devices().at(0);
  std::string json = "{\n  \"device\": \"" + info.str() + "\",\n";
  if (info.cooperative_matrix && gemm_only.empty()) {
    const double peak = vulkan_cooperative_matrix_peak();
    std::printf("cooperative-matrix ceiling (float16, registers only): %.1f TFLOP/s\n", peak);
    json += "  \"cooperative_matrix_peak_tflops\": " + std::to_string(peak) + ",\n";
  }
  json += "  \"matmul\": [\n";
  std::vector<int64_t> sizes = quick ? std::vector<int64_t>{256, 512} : std::vector<int64_t>{1024, 2048, 4096, 8192};
  bool first = true;
  for (Dtype dt : {kFloat32, kFloat16}) {
    if (!gemm_only.empty() && gemm_only != dtype_name(dt)) continue;
    for (int64_t n : sizes) {
      Tensor a = randn({n, n}).to(vk).to(dt), b = randn({n, n}).to(vk).to(dt);
      int iters = n >= 8192 ? 3 : n >= 4096 ? 5 : 20;
      double t = time_per_iter([&] { (void)matmul(a, b); }, iters);
      double gflops = 2.0 * n * n * n / t / 1e9;
      // The GEMM kernel alone: its GPU time between timestamps, and which shader variant ran.
      vulkan_profiler_start();
      (void)matmul(a, b);
      const VulkanProfile prof = vulkan_profiler_stop();
      std::string kernel;
      double kernel_ms = 0;
      for (const VulkanProfileRow& r : prof.rows) {
        if (r.kernel.rfind("matmul", 0) != 0) continue;
        kernel = r.kernel;
        kernel_ms += r.device_ms;
      }
      const double kernel_gflops = kernel_ms > 0 ? 2.0 * n * n * n / (kernel_ms * 1e-3) / 1e9 : 0;
      std::printf("matmul %-8s %5ld: %9.1f GFLOP/s (kernel %s alone %.1f)\n", dtype_name(dt), static_cast<long>(n),
                  gflops, kernel.c_str(), kernel_gflops);
      json += std::string(first ? "" : ",\n") + "    {\"dtype\": \"" + dtype_name(dt) + "\", \"n\": " + std::to_string(n) +
              ", \"seconds\": " + std::to_string(t) + ", \"gflops\": " + std::to_string(gflops) +
              ", \"kernel\": \"" + kernel + "\", \"kernel_gflops\": " + std::to_string(kernel_gflops) + "}";
      first = false;
    }
  }
  auto write = [&] {
    if (out_path.empty()) {
      std::fputs(json.c_str(), stdout);
    } else {
      std::ofstream(out_path) << json;
    }
    return 0;
  };
  if (!gemm_only.empty()) {
    json += "\n  ]\n}\n";
    return write();
  }
  json += "\n  ],\n  \"elementwise\": [\n";
  first = true;
  for (int64_t n : quick ? std::vector<int64_t>{1 << 20} : std::vector<int64_t>{1 << 24, 1 << 26}) {
    Tensor x = randn({n}).to(vk), y = randn({n}).to(vk);
    Tensor out = empty({n}, TensorOptions(kFloat32).set_device(vk));
    double t_add = time_per_iter([&] { (void)add(x, y); }, 20);
    double t_copy = time_per_iter([&] { out.copy_(x); }, 20);
    double gb_add = 3.0 * n * 4 / t_add / 1e9, gb_copy = 2.0 * n * 4 / t_copy / 1e9;
    std::printf("add %ld floats: %.1f GB/s; copy: %.1f GB/s; ratio %.2f\n", static_cast<long>(n), gb_add, gb_copy,
                gb_add / gb_copy);
    json += std::string(first ? "" : ",\n") + "    {\"numel\": " + std::to_string(n) + ", \"add_gbps\": " +
            std::to_string(gb_add) + ", \"copy_gbps\": " + std::to_string(gb_copy) + ", \"add_over_copy\": " +
            std::to_string(gb_add / gb_copy) + "}";
    first = false;
  }
  // Per-dispatch cost: queued (recorded, submitted in batches) and round trip (a host wait after each).
  Tensor tiny = zeros({64}, TensorOptions(kFloat32).set_device(vk));
  const double us_queued = 1e6 * time_per_iter([&] { tiny.add_(1.0); }, 2000);
  const double us_round_trip = 1e6 * time_per_iter([&] { tiny.add_(1.0); vulkan_synchronize(); }, 200);
  std::printf("tiny add_: %.1f us per dispatch queued, %.1f us with a host wait\n", us_queued, us_round_trip);
  json += "\n  ],\n  \"dispatch_us\": {\"queued\": " + std::to_string(us_queued) + ", \"round_trip\": " +
          std::to_string(us_round_trip) + "}\n}\n";
  return write();
}
