// The kernel layer: op names from the op table, supported() answering from the registry (CPU has
// every kernel, Vulkan what its shader variants implement), and Vulkan refusing, at dispatch, ops its
// shader variants lack instead of writing a default value.
#include <gtest/gtest.h>

#include "adept/adept.h"
#include "adept/supported.h"
#include "kernels/op_ids.h"
#include "kernels/pointwise.h"
#ifdef ADEPT_WITH_VULKAN
#include "adept/vulkan.h"
#endif

using namespace adept;

namespace {

using D = std::vector<double>;
using F = std::vector<float>;
using I = std::vector<int64_t>;

double at(const Tensor& t, int64_t i) { return t.select(0, i).item().to_double(); }

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(OpTable, NamesInErrorsComeFromTheTable) {
  EXPECT_STREQ(op_name(UnaryOp::Neg), "neg");
  EXPECT_STREQ(op_name(UnaryOp::GeluErf), "gelu");
  EXPECT_STREQ(op_name(UnaryOp::GeluTanh), "gelu");
  EXPECT_STREQ(op_name(UnaryOp::LogSigmoid), "logsigmoid");
  EXPECT_STREQ(op_name(BinaryOp::FloorDivide), "floor_divide");
  EXPECT_STREQ(op_name(ReduceOp::ArgMax), "argmax");
  EXPECT_EQ(static_cast<int>(UnaryOp::Hardshrink) + 1, kNumUnaryOps);
}

TEST(OpTable, EveryOpResolvesToRegisteredKernelsAndTheCpuHasThemAll) {
  const std::vector<std::string> ops = op_table_names();
  ASSERT_GT(ops.size(), 180u);
  EXPECT_TRUE(contains(ops, "conv2d") && contains(ops, "logsigmoid") && contains(ops, "AdamW"));
  for (const std::string& op : ops) {
    // Throws for a kernel family or op code the table names but the registry lacks.
    for (Dtype d : {kFloat32, kInt64, kBool}) {
      const std::vector<std::string> missing = missing_kernels({op}, kCPU, d, true);
      for (const std::string& m : missing) EXPECT_NE(m.find("not accepted"), std::string::npos) << m;
    }
    EXPECT_TRUE(supported(op, kCPU, kFloat64, true) || !supported(op, kCPU, kFloat32)) << op;
  }
}

TEST(OpTable, DtypeRulesAndUnknownOps) {
  EXPECT_TRUE(supported("add", kCPU, kBool));
  EXPECT_FALSE(supported("conv2d", kCPU, kInt32));
  EXPECT_FALSE(supported("bitwise_and", kCPU, kFloat32));
  EXPECT_EQ(missing_kernels({"conv2d"}, kCPU, kInt64), std::vector<std::string>{"conv2d: dtype int64 not accepted"});
  EXPECT_THROW(supported("no_such_op", kCPU, kFloat32), ValueError);
  EXPECT_TRUE(supported("negative", kCPU, kFloat32));  // aliases answer for their op
  EXPECT_TRUE(supported("clip", kCPU, kInt32));
  EXPECT_FALSE(supported("true_divide", kCPU, kBool) && !supported("div", kCPU, kBool));
}

TEST(OpTable, UnaryDtypeRulesAreEnforcedAsTorchDoes) {
  const Tensor b = tensor(std::vector<bool>{true, false});
  EXPECT_THROW(abs(b), DtypeError);
  EXPECT_THROW(floor(b), DtypeError);
  EXPECT_THROW(relu(b), DtypeError);
  EXPECT_THROW(round(b, 1), DtypeError);
  EXPECT_EQ(square(b).dtype(), kInt64);  // square is pow(x, 2): bool squares in int64
  EXPECT_EQ(sign(b).dtype(), kBool);
  EXPECT_EQ(clamp(b, 0, 1).dtype(), kInt64);
}

TEST(LogSigmoidHardshrink, ValuesGradientsAndDtypeErrors) {
  Tensor x = tensor(D{-800.0, -2.0, 0.0, 0.3, 3.0, 800.0}, TensorOptions(kFloat64)).requires_grad_();
  Tensor y = logsigmoid(x);
  const double xs[] = {-800.0, -2.0, 0.0, 0.3, 3.0, 800.0};
  for (int i = 0; i < 6; ++i) {
    const double want = -std::log1p(std::exp(-std::abs(xs[i]))) + std::min(xs[i], 0.0);
    EXPECT_NEAR(at(y, i), want, 1e-12) << i;
  }
  EXPECT_NEAR(at(y, 3), -0.55435524446852713, 1e-12);  // -log(1 + e^-0.3)
  y.sum().backward();
  EXPECT_NEAR(at(x.grad(), 1), 1.0 / (1.0 + std::exp(-2.0)), 1e-12);  // sigmoid(-x)
  Tensor h = tensor(F{-1.0f, -0.5f, 0.2f, 0.5f, 0.7f, NAN}).requires_grad_();
  Tensor hs = hardshrink(h, 0.5);
  EXPECT_FLOAT_EQ(at(hs, 0), -1.0f);
  EXPECT_FLOAT_EQ(at(hs, 1), 0.0f);
  EXPECT_FLOAT_EQ(at(hs, 4), 0.7f);
  EXPECT_TRUE(std::isnan(at(hs, 5)));
  hs.sum().backward();
  EXPECT_FLOAT_EQ(at(h.grad(), 1), 0.0f);
  EXPECT_FLOAT_EQ(at(h.grad(), 4), 1.0f);
  // lambd is rounded to the tensor's dtype before comparing, as torch: bfloat16(0.1) is not above it.
  Tensor hb = tensor(F{0.1f, 0.3f}).to(kBFloat16).requires_grad_();
  Tensor yb = hardshrink(hb, 0.1);
  EXPECT_EQ(at(yb, 0), 0.0);
  EXPECT_EQ(at(yb, 1), at(hb.detach(), 1));
  yb.sum().backward();
  EXPECT_EQ(at(hb.grad(), 0), 0.0);  // forward and backward agree at the threshold
  EXPECT_EQ(at(hb.grad(), 1), 1.0);
  EXPECT_THROW(logsigmoid(tensor(I{1, 2})), DtypeError);
  EXPECT_THROW(hardshrink(tensor(I{1, 2})), DtypeError);
}

#ifdef ADEPT_WITH_VULKAN
class VulkanRegistry : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!vulkan_is_available()) GTEST_SKIP() << "no Vulkan device";
  }
};

TEST_F(VulkanRegistry, SupportedFollowsTheShaderVariants) {
  const Device vk("vulkan");
  EXPECT_TRUE(supported("exp", vk, kFloat32, true));
  EXPECT_TRUE(supported("bitwise_and", vk, kInt32));
  EXPECT_TRUE(supported("logsigmoid", vk, kFloat32));
  EXPECT_TRUE(supported("exp", vk, kFloat64));  // double_math.glsl
  EXPECT_FALSE(supported("bitwise_not", vk, kFloat32));
  EXPECT_TRUE(supported("conv2d", vk, kFloat32, true));  // backends/vulkan/kernels/conv
  EXPECT_TRUE(supported("conv_transpose2d", vk, kFloat16, true));
  const std::vector<std::string> missing = missing_kernels({"conv2d", "conv_transpose2d", "exp"}, vk, kFloat32, true);
  EXPECT_TRUE(missing.empty()) << fmt::format("{}", fmt::join(missing, "; "));
  for (const std::string& m : missing) EXPECT_EQ(m.rfind("exp:", 0), std::string::npos) << m;
}

TEST_F(VulkanRegistry, ADeviceThatDoesNotExistIsAnError) {
  const Device missing(DeviceType::Vulkan, static_cast<int>(vulkan_devices().size()));
  EXPECT_THROW(supported("exp", missing, kFloat32), DeviceError);
}

TEST_F(VulkanRegistry, AnOpAShaderVariantLacksIsRefusedAtDispatch) {
  // bitwise_not has only the integer variant: asking the float32 one is refused before recording.
  const Device vk("vulkan");
  EXPECT_FALSE(unary_kernel().supports(DeviceType::Vulkan, static_cast<int>(UnaryOp::BitwiseNot), kFloat32));
  try {
    unary_kernel().get(vk, "bitwise_not", static_cast<int>(UnaryOp::BitwiseNot), kFloat32);
    FAIL() << "the float32 variant of bitwise_not was handed out";
  } catch (const NotImplementedForDevice& e) {
    EXPECT_NE(std::string(e.what()).find("bitwise_not"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("float32"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("vulkan"), std::string::npos) << e.what();
  }
  Tensor a = tensor(I{7, -7, -8}, TensorOptions(kInt32)).to(vk), b = tensor(I{2, 2, -3}, TensorOptions(kInt32)).to(vk);
  EXPECT_TRUE(equal(div(a, b, std::string("trunc")).cpu(), tensor(I{3, -3, 2}, TensorOptions(kInt32))));
  EXPECT_TRUE(equal(floor_divide(a, b).cpu(), tensor(I{3, -4, 2}, TensorOptions(kInt32))));
  EXPECT_TRUE(equal(remainder(a, b).cpu(), tensor(I{1, 1, -2}, TensorOptions(kInt32))));
}
#endif

}  // namespace
