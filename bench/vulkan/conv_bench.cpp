// Vulkan conv2d benchmark: for each layer of conv_shapes.txt, the forward, the input gradient and the
// weight gradient (each alone, through autograd with only that operand requiring grad) under every
// algorithm that can compute it (the input gradient of a forced algorithm that cannot falls back to the rule) (ADEPT_CONV_ALGO) and the default rule ("auto"), float32 and float16;
// plus the eval-mode epilogue: conv2d + bias then silu, against conv2d_silu (fused). Median of the
// timed calls, in milliseconds. JSON to argv[2] (argv[1]: the shapes file).
// With --gpu-time the time is the GPU's alone (timestamps around each dispatch, vulkan_profiler_start/stop).
// Usage: adept_vulkan_conv_bench bench/vulkan/conv_shapes.txt out.json [--quick] [--gpu-time]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "adept/adept.h"
#include "adept/vulkan.h"

using namespace adept;
using Clock = std::chrono::steady_clock;

namespace {

struct Layer {
  int64_t n, c_in, h, w, c_out, k, stride, pad, groups;
};

std::vector<Layer> read_layers(const char* path) {
  std::ifstream in(path);
  std::vector<Layer> r;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    Layer l{};
    s >> l.n >> l.c_in >> l.h >> l.w >> l.c_out >> l.k >> l.stride >> l.pad >> l.groups;
    r.push_back(l);
  }
  return r;
}

// Median milliseconds per call of f (after a warm-up call), `reps` timed calls each synchronised.
template <class F>
double wall_ms(F f, int reps) {
  f();
  vulkan_synchronize();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = Clock::now();
    f();
    vulkan_synchronize();
    t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Median GPU milliseconds per call of f: the summed timestamps of the dispatches it records
// (vulkan_profiler_start/stop), without the host's recording and round trip.
template <class F>
double median_gpu_ms(F f, int reps) {
  f();
  vulkan_synchronize();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    vulkan_profiler_start();
    f();
    t.push_back(vulkan_profiler_stop().device_ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: adept_vulkan_conv_bench SHAPES OUT.json [--quick] [--gpu-time]\n");
    return 2;
  }
  bool quick = false, gpu_time = false;
  for (int i = 3; i < argc; ++i) {
    quick |= std::strcmp(argv[i], "--quick") == 0;
    gpu_time |= std::strcmp(argv[i], "--gpu-time") == 0;
  }
  const auto median_ms = [&](auto f, int reps) { return gpu_time ? median_gpu_ms(f, reps) : wall_ms(f, reps); };
  if (!vulkan_is_available()) {
    std::fprintf(stderr, "no Vulkan device\n");
    return 1;
  }
  const Device vk("vulkan");
  const int reps = quick ? 2 : 7;
  std::string json = "{\n  \"device\": \"" + vulkan_devices().at(0).str() + "\",\n  \"rows\": [\n";
  bool first = true;
  const auto emit = [&](const Layer& l, const char* dtype, const char* dir, const char* algo, double ms) {
    std::printf("%ld %ld %ldx%ld -> %ld k%ld s%ld g%ld  %-8s %-15s %-14s %9.3f ms\n", static_cast<long>(l.n),
                static_cast<long>(l.c_in), static_cast<long>(l.h), static_cast<long>(l.w), static_cast<long>(l.c_out),
                static_cast<long>(l.k), static_cast<long>(l.stride), static_cast<long>(l.groups), dtype, dir, algo, ms);
    char buf[512];
    std::snprintf(buf, sizeof(buf),
                  "%s    {\"layer\": [%ld, %ld, %ld, %ld, %ld, %ld, %ld, %ld, %ld], \"dtype\": \"%s\", \"direction\": "
                  "\"%s\", \"algo\": \"%s\", \"ms\": %.4f}",
                  first ? "" : ",\n", static_cast<long>(l.n), static_cast<long>(l.c_in), static_cast<long>(l.h),
                  static_cast<long>(l.w), static_cast<long>(l.c_out), static_cast<long>(l.k), static_cast<long>(l.stride),
                  static_cast<long>(l.pad), static_cast<long>(l.groups), dtype, dir, algo, ms);
    json += buf;
    first = false;
    std::fflush(stdout);
  };
  for (const Layer& l : read_layers(argv[1])) {
    for (Dtype dt : {kFloat32, kFloat16}) {
      const auto on_device = [&](const Shape& s) { return randn(s).to(vk).to(dt); };
      const Tensor x = on_device({l.n, l.c_in, l.h, l.w}), w = on_device({l.c_out, l.c_in / l.groups, l.k, l.k});
      const Tensor b = on_device({l.c_out});
      const Tensor y0 = conv2d(x, w, {}, l.stride, l.pad, 1, l.groups);
      const Tensor gy = on_device(y0.sizes());
      Tensor xg = x.detach().requires_grad_(true), wg = w.detach().requires_grad_(true);
      for (const char* algo : {"auto", "implicit_gemm", "pointwise", "depthwise", "winograd", "winograd_f4"}) {
        setenv("ADEPT_CONV_ALGO", algo, 1);
        try {
          emit(l, dtype_name(dt), "forward", algo,
               median_ms([&] { NoGradGuard ng; (void)conv2d(x, w, {}, l.stride, l.pad, 1, l.groups); }, reps));
          emit(l, dtype_name(dt), "input_grad", algo, median_ms([&] {
                 autograd::backward({conv2d(xg, w, {}, l.stride, l.pad, 1, l.groups)}, {gy});
                 xg.set_grad(Tensor());
               }, reps));
          // Weight gradients: only implicit_gemm and depthwise compute them (others would time the fallback).
          if (std::strcmp(algo, "pointwise") == 0 || std::strncmp(algo, "winograd", 8) == 0) continue;
          emit(l, dtype_name(dt), "weight_grad", algo, median_ms([&] {
                 autograd::backward({conv2d(x, wg, {}, l.stride, l.pad, 1, l.groups)}, {gy});
                 wg.set_grad(Tensor());
               }, reps));
        } catch (const std::exception&) {  // the forced algorithm cannot compute this layer
        }
      }
      unsetenv("ADEPT_CONV_ALGO");
      NoGradGuard ng;
      emit(l, dtype_name(dt), "eval_bias_silu", "unfused",
           median_ms([&] { (void)silu(conv2d(x, w, b, l.stride, l.pad, 1, l.groups)); }, reps));
      emit(l, dtype_name(dt), "eval_bias_silu", "fused",
           median_ms([&] { (void)conv2d_silu(x, w, b, l.stride, l.pad, 1, l.groups); }, reps));
    }
  }
  json += "\n  ]\n}\n";
  std::ofstream(argv[2]) << json;
  return 0;
}
