// Profile labels (adept/profiler.h) and the Vulkan timestamp profiler (vulkan_profiler_start/stop):
// nesting, the label a backward runs under, per-kernel rows with counts, labels and directions, errors.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "adept/adept.h"
#include "autograd/node.h"
#ifdef ADEPT_WITH_VULKAN
#include "adept/vulkan.h"
#endif

using namespace adept;

TEST(Profiler, RecordFunctionLabelsNestAndUnwind) {
  EXPECT_EQ(profiler::current_scope(), "");
  {
    profiler::RecordFunction a("model.0 Conv");
    EXPECT_EQ(profiler::current_scope(), "model.0 Conv");
    {
      profiler::RecordFunction b("bn");
      EXPECT_EQ(profiler::current_scope(), "model.0 Conv/bn");
    }
    EXPECT_EQ(profiler::current_scope(), "model.0 Conv");
  }
  EXPECT_EQ(profiler::current_scope(), "");
  EXPECT_FALSE(profiler::in_backward());
}

TEST(Profiler, LabelsEndingOutOfOrderLeaveTheOthersWithoutThem) {
  auto outer = std::make_unique<profiler::RecordFunction>("outer");
  auto inner = std::make_unique<profiler::RecordFunction>("inner");
  EXPECT_EQ(profiler::current_scope(), "outer/inner");
  outer.reset();  // ends first (a Python generator's label, say)
  EXPECT_EQ(profiler::current_scope(), "inner");
  inner.reset();
  EXPECT_EQ(profiler::current_scope(), "");
}

TEST(Profiler, BackwardRunsUnderTheLabelItsNodeWasCreatedUnder) {
  Tensor x = randn({3}).requires_grad_();
  std::string seen_scope = "unset";
  bool seen_backward = false;
  Tensor y;
  {
    profiler::RecordFunction label("layer");
    y = x.detach() * 2.0;
    autograd::record("Probe", {x}, {y}, [&](const std::vector<Tensor>& g) {
      seen_scope = profiler::current_scope();
      seen_backward = profiler::in_backward();
      return std::vector<Tensor>{g[0] * 2.0};
    });
  }
  {
    profiler::RecordFunction other("elsewhere");
    y.sum().backward();
    EXPECT_EQ(profiler::current_scope(), "elsewhere");  // restored after the backward
  }
  EXPECT_EQ(seen_scope, "layer");
  EXPECT_TRUE(seen_backward);
  EXPECT_FALSE(profiler::in_backward());
  EXPECT_TRUE(allclose(x.grad(), full({3}, 2.0)));
}

#ifdef ADEPT_WITH_VULKAN
namespace {
const adept::VulkanProfileRow* find_row(const VulkanProfile& p, const std::string& op, const std::string& scope,
                                        bool backward) {
  for (const auto& r : p.rows)
    if (r.op == op && r.scope == scope && r.backward == backward) return &r;
  return nullptr;
}
}  // namespace

TEST(VulkanProfiler, RowsCountDispatchesPerKernelLabelAndDirection) {
  if (!vulkan_is_available()) GTEST_SKIP() << "no Vulkan device";
  const Device vk("vulkan");
  Tensor a = (randn({64, 32}) * 0.2).to(vk).requires_grad_(), b = (randn({32, 16}) * 0.2).to(vk);
  vulkan_synchronize();
  vulkan_profiler_start();
  Tensor loss;
  {
    profiler::RecordFunction label("mm");
    loss = matmul(a, b).exp();
  }
  {
    profiler::RecordFunction label("sum");
    loss = loss.sum();
  }
  loss.backward();
  Tensor host = a.grad().cpu();  // a copy back, also profiled
  const VulkanProfile p = vulkan_profiler_stop();

  std::string listing;
  for (const auto& r : p.rows) listing += r.kernel + " " + r.op + " '" + r.scope + "' " + std::to_string(r.backward) + "\n";
  const auto* exp_fwd = find_row(p, "unary", "mm", false);  // the op names the kernel family
  ASSERT_NE(exp_fwd, nullptr) << listing;
  EXPECT_EQ(exp_fwd->count, 1u);
  EXPECT_GE(exp_fwd->device_ms, 0.0);
  EXPECT_FALSE(exp_fwd->kernel.empty());
  // exp's backward multiplies by its output, matmul's multiplies by b^T: under the forward's label, backward.
  const auto* exp_bwd = find_row(p, "binary", "mm", true);
  const auto* mm_bwd = find_row(p, "matmul", "mm", true);
  ASSERT_NE(exp_bwd, nullptr) << listing;
  ASSERT_NE(mm_bwd, nullptr) << listing;
  EXPECT_EQ(mm_bwd->count, 1u);  // b needs no gradient
  ASSERT_NE(find_row(p, "reduce", "sum", false), nullptr) << listing;
  bool copied = false;
  for (const auto& r : p.rows) copied |= r.kernel == "copy";
  EXPECT_TRUE(copied);
  EXPECT_GE(p.copies, 1u);
  EXPECT_GE(p.batches, 1u);
  uint64_t dispatches = 0;
  double device_ms = 0;
  for (size_t i = 0; i < p.rows.size(); ++i) {
    if (p.rows[i].kernel != "copy") dispatches += p.rows[i].count;
    device_ms += p.rows[i].device_ms;
    if (i) EXPECT_GE(p.rows[i - 1].device_ms, p.rows[i].device_ms);  // ranked
  }
  EXPECT_EQ(dispatches, p.dispatches);
  EXPECT_NEAR(device_ms, p.device_ms, 1e-9 + 1e-9 * device_ms);
  EXPECT_GT(p.device_ms, 0.0);
  EXPECT_TRUE(allclose(host, (matmul(a.detach().cpu(), b.cpu()).exp()).matmul(b.cpu().t()), 1e-3, 1e-3));

  // Work after the stop is not profiled; a new profile starts empty.
  vulkan_profiler_start();
  const VulkanProfile empty = vulkan_profiler_stop();
  EXPECT_TRUE(empty.rows.empty());
  EXPECT_EQ(empty.dispatches, 0u);
}

TEST(VulkanProfiler, MoreCommandsThanABatchHoldsAreAllTimed) {
  if (!vulkan_is_available()) GTEST_SKIP() << "no Vulkan device";
  // 1,100 uploads queue 1,100 buffer copies without a wait: more than one batch's 1,024 timestamp pairs.
  std::vector<Tensor> up;
  vulkan_profiler_start();
  for (int i = 0; i < 1100; ++i) up.push_back(full({4}, static_cast<double>(i)).to(Device("vulkan")));
  Tensor last = up.back().cpu();
  const VulkanProfile p = vulkan_profiler_stop();
  EXPECT_EQ(p.copies, 1101u);  // and the download
  EXPECT_GE(p.batches, 2u);
  EXPECT_TRUE(allclose(last, full({4}, 1099.0)));
  EXPECT_TRUE(allclose(up[517].cpu(), full({4}, 517.0)));
}

TEST(VulkanProfiler, StartTwiceOrStopWithoutStartRaises) {
  if (!vulkan_is_available()) GTEST_SKIP() << "no Vulkan device";
  EXPECT_THROW(vulkan_profiler_stop(), Error);
  vulkan_profiler_start();
  EXPECT_THROW(vulkan_profiler_start(), Error);
  EXPECT_NO_THROW(vulkan_profiler_stop());
}
#endif
