// The Highway float32 kernels (src/backends/cpu/simd_*.cpp) against the scalar reference they
// replace on contiguous runs: random inputs over many magnitudes plus the special values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "adept/adept.h"
#include "backends/cpu/simd.h"

namespace adept {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Distance in units in the last place (monotonic integer mapping of floats; -0 == +0).
int64_t ulp_distance(float a, float b) {
  auto key = [](float v) {
    int32_t i;
    std::memcpy(&i, &v, sizeof(i));
    return i < 0 ? int64_t(std::numeric_limits<int32_t>::min()) - i : int64_t(i);
  };
  return std::llabs(key(a) - key(b));
}

// Normal values at many scales, then the special values and the edges of each op's range.
std::vector<float> test_inputs() {
  std::mt19937 rng(20240611);
  std::normal_distribution<float> normal(0.f, 1.f);
  std::vector<float> v;
  for (float scale : {1e-6f, 1e-2f, 0.5f, 1.f, 4.f, 20.f, 90.f, 200.f}) {
    for (int i = 0; i < 2000; ++i) v.push_back(scale * normal(rng));
  }
  const float specials[] = {0.f, -0.f, kInf, -kInf, kNaN, -kNaN, 1.f, -1.f, 88.72283f, 88.72284f, 88.8f,
                            89.f, 103.f, 104.f, 105.f, 1e4f, -87.33f, -87.34f, -100.f, -103.9f, -104.f,
                            -104.1f, -150.f, -1e4f, 1e-30f, -1e-30f, 1e-40f, -1e-40f, 18.7f, 18.72f, -18.72f,
                            9.01f, std::numeric_limits<float>::max(), std::numeric_limits<float>::lowest(),
                            std::numeric_limits<float>::min(), std::numeric_limits<float>::denorm_min()};
  v.insert(v.end(), std::begin(specials), std::end(specials));
  return v;
}

struct Case {
  UnaryOp op;
  const char* name;
  float (*ref)(float, float, float);  // the scalar expression of src/backends/cpu/unary.cpp for float32
  int64_t max_ulp;
  float a = 0, b = 0;  // UnaryParams a, b
};

float softplus_ref(float x, float a, float b) { return x * a > b ? x : std::log1p(std::exp(x * a)) / a; }

const Case kCases[] = {
    {UnaryOp::Exp, "exp", [](float x, float, float) { return std::exp(x); }, 2},
    {UnaryOp::Sigmoid, "sigmoid", [](float x, float, float) { return 1.f / (1.f + std::exp(-x)); }, 3},
    {UnaryOp::Silu, "silu", [](float x, float, float) { return x / (1.f + std::exp(-x)); }, 3},
    {UnaryOp::Tanh, "tanh", [](float x, float, float) { return std::tanh(x); }, 4},
    {UnaryOp::Softplus, "softplus", softplus_ref, 4, 1.f, 20.f},                    // torch's defaults
    {UnaryOp::Softplus, "softplus_beta2_threshold5", softplus_ref, 4, 2.f, 5.f},
    {UnaryOp::Softplus, "softplus_no_threshold", softplus_ref, 4, 0.5f, 1e30f},    // exp overflows to inf
    {UnaryOp::Softplus, "softplus_negative_beta", softplus_ref, 4, -1.5f, 20.f},
    {UnaryOp::LogSigmoid, "logsigmoid",
     [](float x, float, float) { return std::min(x, 0.f) - std::log1p(std::exp(-std::abs(x))); }, 4},
};

TEST(SimdUnaryF32, MatchesScalarReferenceWithinUlps) {
  const std::vector<float> in = test_inputs();
  for (const Case& c : kCases) {
    auto run = cpu::simd::unary_run_f32(c.op);
    ASSERT_NE(run, nullptr) << c.name;
    std::vector<float> out(in.size());
    run(out.data(), in.data(), static_cast<int64_t>(in.size()), c.a, c.b);
    int64_t worst = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      const float want = c.ref(in[i], c.a, c.b);
      if (std::isnan(want) || std::isnan(out[i])) {
        EXPECT_TRUE(std::isnan(want) && std::isnan(out[i])) << c.name << "(" << in[i] << ") = " << out[i] << ", want " << want;
        continue;
      }
      const int64_t d = ulp_distance(out[i], want);
      worst = std::max(worst, d);
      EXPECT_LE(d, c.max_ulp) << c.name << "(" << in[i] << ") = " << out[i] << ", want " << want;
    }
    RecordProperty(std::string(c.name) + "_max_ulp", std::to_string(worst));
  }
}

TEST(SimdUnaryF32, EveryTailLengthAndInPlace) {
  const std::vector<float> base = test_inputs();
  for (const Case& c : kCases) {
    auto run = cpu::simd::unary_run_f32(c.op);
    for (int64_t n = 0; n <= 37; ++n) {
      std::vector<float> in(base.end() - 40, base.end() - 40 + n), out(n, -7.f), inplace = in;
      run(out.data(), in.data(), n, c.a, c.b);
      run(inplace.data(), inplace.data(), n, c.a, c.b);
      for (int64_t i = 0; i < n; ++i) {
        const float want = c.ref(in[i], c.a, c.b);
        EXPECT_TRUE(ulp_distance(out[i], want) <= c.max_ulp || (std::isnan(out[i]) && std::isnan(want)))
            << c.name << " n=" << n << " i=" << i;
        EXPECT_TRUE(std::memcmp(&out[i], &inplace[i], sizeof(float)) == 0) << c.name << " in place, n=" << n;
      }
    }
  }
}

TEST(SimdUnaryF32, NoKernelForOtherOps) {
  EXPECT_EQ(cpu::simd::unary_run_f32(UnaryOp::Sin), nullptr);
  EXPECT_EQ(cpu::simd::unary_run_f32(UnaryOp::Neg), nullptr);
}

// Through the op: the contiguous tensor takes the SIMD path, its transposed copy the scalar one.
TEST(SimdUnaryF32, ContiguousOpMatchesStridedOp) {
  Generator g(7);
  Tensor x = randn({300, 301}, TensorOptions(kFloat32), &g) * 30;
  Tensor xt = x.t().contiguous().t();  // same values, column-major strides
  ASSERT_FALSE(xt.is_contiguous());
  for (auto [name, f] : std::vector<std::pair<const char*, Tensor (*)(const Tensor&)>>{
           {"exp", &exp},
           {"sigmoid", &sigmoid},
           {"silu", &silu},
           {"tanh", &tanh},
           {"softplus", [](const Tensor& t) { return softplus(t); }},
           {"softplus(beta=3, threshold=2)", [](const Tensor& t) { return softplus(t, 3, 2); }},
           {"logsigmoid", &logsigmoid}}) {
    Tensor a = f(x).contiguous(), b = f(xt).contiguous();
    const float* pa = a.data_ptr<float>();
    const float* pb = b.data_ptr<float>();
    int64_t worst = 0;
    for (int64_t i = 0; i < a.numel(); ++i) {
      if (std::isinf(pa[i]) || std::isinf(pb[i])) {
        EXPECT_EQ(pa[i], pb[i]) << name;
      } else {
        worst = std::max(worst, ulp_distance(pa[i], pb[i]));
      }
    }
    EXPECT_LE(worst, 4) << name;
  }
}

TEST(SimdSumF32, MatchesDoubleSumAcrossLengths) {
  std::mt19937 rng(99);
  std::normal_distribution<float> normal(3.f, 10.f);
  for (int64_t n : {0, 1, 3, 4, 15, 16, 17, 1023, 1024, 1025, 4099, 100000}) {
    std::vector<float> v(n);
    double want = 0, abs_sum = 0;
    for (float& x : v) {
      x = normal(rng);
      want += x;
      abs_sum += std::fabs(x);
    }
    const double got = cpu::simd::sum_f32(v.data(), n);
    // Float lanes over blocks of 1024: at most ~1024/16 float rounding steps per value.
    EXPECT_LE(std::fabs(got - want), 64 * std::numeric_limits<float>::epsilon() * abs_sum) << "n=" << n;
  }
}

TEST(SimdSumF32, PropagatesNaNAndInf) {
  std::vector<float> v(100, 1.f);
  v[37] = kInf;
  EXPECT_EQ(cpu::simd::sum_f32(v.data(), 100), std::numeric_limits<double>::infinity());
  v[98] = -kInf;
  EXPECT_TRUE(std::isnan(cpu::simd::sum_f32(v.data(), 100)));
  v[37] = v[98] = 1.f;
  v[99] = kNaN;  // in the scalar tail
  EXPECT_TRUE(std::isnan(cpu::simd::sum_f32(v.data(), 100)));
}

// The split full reduction (blocks summed in parallel) gives the same bits for any thread count.
TEST(SimdSumF32, FullSumIsThreadCountIndependent) {
  Generator g(3);
  Tensor x = randn({1 << 20}, TensorOptions(kFloat32), &g) + 0.25;
  const int saved = get_num_threads();
  set_num_threads(1);
  const double one = sum(x).item().to_double();
  set_num_threads(2);
  const double two = sum(x).item().to_double();
  set_num_threads(saved);
  EXPECT_EQ(one, two);
  const double want = sum(x.to(kFloat64)).item().to_double();
  EXPECT_NEAR(one, want, 1e-6 * sum(abs(x.to(kFloat64))).item().to_double());
}

}  // namespace
}  // namespace adept
