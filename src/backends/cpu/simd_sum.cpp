// Highway float32 sum of a contiguous run (see simd.h): four vector accumulators per block of
// kBlock values keep the adds pipelined; each block's float total is added to a double.
#include <hwy/highway.h>

#include <algorithm>

#include "backends/cpu/simd.h"

namespace adept::cpu::simd {
namespace {
namespace hn = hwy::HWY_NAMESPACE;
constexpr int64_t kBlock = 1024;
}  // namespace

double sum_f32(const float* p, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  double total = 0;
  int64_t i = 0;
  while (i < n) {
    const int64_t end = std::min(n, i + kBlock);
    auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
    for (; i + 4 * N <= end; i += 4 * N) {
      a0 = hn::Add(a0, hn::LoadU(d, p + i));
      a1 = hn::Add(a1, hn::LoadU(d, p + i + N));
      a2 = hn::Add(a2, hn::LoadU(d, p + i + 2 * N));
      a3 = hn::Add(a3, hn::LoadU(d, p + i + 3 * N));
    }
    for (; i + N <= end; i += N) a0 = hn::Add(a0, hn::LoadU(d, p + i));
    float block = hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(a0, a1), hn::Add(a2, a3))));
    double tail = 0;
    for (; i < end; ++i) tail += p[i];
    total += static_cast<double>(block) + tail;
  }
  return total;
}

}  // namespace adept::cpu::simd
