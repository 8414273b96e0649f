// GEMM benchmarks: "matmul/<dtype>/<M>x<K>x<N>" (adept::matmul, allocating its output as the op does)
// next to "blas/<dtype>/<M>x<K>x<N>" (cblas_sgemm/dgemm on the same buffers), flop_per_second = 2MNK/s.
#include <cblas.h>

#include <array>
#include <vector>

#include "bench_util.h"

namespace adept::bench {
namespace {

template <class T>
void blas_gemm(const Tensor& a, const Tensor& b, Tensor& c) {
  const int64_t M = a.size(0), K = a.size(1), N = b.size(1);
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, a.data_ptr<float>(), K,
                b.data_ptr<float>(), N, 0.0f, c.data_ptr<float>(), N);
  } else {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0, a.data_ptr<double>(), K,
                b.data_ptr<double>(), N, 0.0, c.data_ptr<double>(), N);
  }
}

template <class T>
void register_shape(int64_t M, int64_t K, int64_t N) {
  const Dtype dt = std::is_same_v<T, float> ? kFloat32 : kFloat64;
  const std::string tag = std::string(std::is_same_v<T, float> ? "f32/" : "f64/") + std::to_string(M) + "x" +
                          std::to_string(K) + "x" + std::to_string(N);
  const double flop = 2.0 * M * N * K;
  benchmark::RegisterBenchmark(("matmul/" + tag).c_str(), [=](benchmark::State& st) {
    Tensor a = randn_seeded({M, K}, dt), b = randn_seeded({K, N}, dt);
    for (auto _ : st) {
      Tensor c = matmul(a, b);
      benchmark::DoNotOptimize(c.data_ptr());
    }
    st.counters[kFlopRate] = benchmark::Counter(flop, benchmark::Counter::kIsIterationInvariantRate);
  })->UseRealTime()->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark(("blas/" + tag).c_str(), [=](benchmark::State& st) {
    Tensor a = randn_seeded({M, K}, dt), b = randn_seeded({K, N}, dt), c = empty({M, N}, TensorOptions(dt));
    for (auto _ : st) {
      blas_gemm<T>(a, b, c);
      benchmark::DoNotOptimize(c.data_ptr());
    }
    st.counters[kFlopRate] = benchmark::Counter(flop, benchmark::Counter::kIsIterationInvariantRate);
  })->UseRealTime()->Unit(benchmark::kMicrosecond);
}

void register_matmul() {
  // Square sizes, then YOLO-like shapes: a 1x1 conv as GEMM at 80x80 (6400 pixels) and 40x40.
  const std::vector<std::array<int64_t, 3>> shapes = {
      {256, 256, 256}, {512, 512, 512}, {1024, 1024, 1024}, {2048, 2048, 2048},
      {6400, 144, 64}, {1600, 256, 128}, {6400, 64, 64}};
  for (const auto& s : shapes) register_shape<float>(s[0], s[1], s[2]);
  for (const auto& s : shapes) register_shape<double>(s[0], s[1], s[2]);
}

const bool registered = (register_matmul(), true);

}  // namespace
}  // namespace adept::bench
