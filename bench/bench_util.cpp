// Helpers shared by the op benchmarks (see bench_util.h).
#include "bench_util.h"

#include <omp.h>

#include <cstring>
#include <set>
#include <vector>

#include "adept/ops/random.h"

namespace adept::bench {

Tensor randn_seeded(const Shape& shape, Dtype dtype) {
  Generator g(1234);
  return randn(shape, TensorOptions(dtype), &g);
}

void parallel_memcpy(void* dst, const void* src, int64_t bytes) {
  const int nt = omp_get_max_threads();
#pragma omp parallel num_threads(nt)
  {
    const int t = omp_get_thread_num(), n = omp_get_num_threads();
    const int64_t chunk = (bytes / n + 63) / 64 * 64;
    const int64_t b = std::min<int64_t>(bytes, t * chunk), e = std::min<int64_t>(bytes, b + chunk);
    if (b < e) std::memcpy(static_cast<char*>(dst) + b, static_cast<const char*>(src) + b, e - b);
  }
}

void register_memcpy(int64_t bytes) {
  static std::set<int64_t> done;
  if (!done.insert(bytes).second) return;
  benchmark::RegisterBenchmark(("memcpy/" + std::to_string(bytes)).c_str(), [bytes](benchmark::State& st) {
    std::vector<char> src(bytes, 1), dst(bytes, 0);
    for (auto _ : st) {
      parallel_memcpy(dst.data(), src.data(), bytes);
      benchmark::DoNotOptimize(dst.data());
      benchmark::ClobberMemory();
    }
    st.SetBytesProcessed(st.iterations() * 2 * bytes);
    st.counters["traffic_bytes"] = static_cast<double>(2 * bytes);
  })->UseRealTime()->Unit(benchmark::kMicrosecond);
}

std::string shape_name(const Shape& s) {
  std::string r;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) r += 'x';
    r += std::to_string(s[i]);
  }
  return r;
}

}  // namespace adept::bench
