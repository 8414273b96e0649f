// YOLO11n on the Vulkan device against the CPU: one train-mode step (head maps, detection loss and
// its items, every parameter gradient, BatchNorm running statistics) and eval-mode decode + NMS,
// with the same weights on both. 64 px images, batch 2, so it stays quick on lavapipe. Skipped when
// no Vulkan device is present.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "adept/adept.h"
#include "adept/models/yolo/loss.h"
#include "adept/models/yolo/nms.h"
#include "adept/models/yolo/yolo11.h"
#ifdef ADEPT_WITH_VULKAN
#include "adept/vulkan.h"
#endif

#ifdef ADEPT_WITH_VULKAN

using namespace adept;
using namespace adept::models::yolo;

namespace {

const Device kVk("vulkan");

class YoloVulkan : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!vulkan_is_available()) GTEST_SKIP() << "no Vulkan device";
  }
};

// Tolerances relative to the largest magnitude of the CPU tensor: max |vk - cpu| <= tol * max |cpu|.
// Both sides are float32 but sum in different orders (implicit-GEMM tiles and split-K, parallel
// reductions), a few ulps (~1e-7) per op that add up over the ~90 layers; train-mode BatchNorm over
// few values (batch 2 at 2x2 on P5) amplifies them by 1/std, and its backward subtracts nearly equal
// terms. Measured on lavapipe: maps, loss items and BN buffers <= 2e-5, eval predictions <= 1e-6;
// gradients <= 5e-4, which is the float32 noise itself: the CPU's float32 gradients differ from a
// float64 run of the same model by up to 3.3e-4. So 2e-4 (forward) and 2e-3 (gradients) leave 4-10x
// margins, while a wrong kernel (a wrong tap or lost partial sum, a biased BN variance, a missing
// term of a backward) is off by 1e-2 or more. Gradients that are zero up to rounding (a BN bias
// whose output feeds only further BNs, ~1e-9) get the floor kFloor x the largest gradient, as in
// tests/python/test_yolo_loss_mirror.py.
constexpr double kRel = 2e-4, kGradRel = 2e-3, kFloor = 1e-6;

double max_abs(const Tensor& t) { return t.numel() ? amax(abs(t)).item<double>() : 0.0; }

// Max |got - want| / max(max |want|, floor) (got on Vulkan, want on the CPU), in float64.
double rel_error(const Tensor& got_vk, const Tensor& want, double floor = 1e-30) {

  EXPECT_EQ(got_vk.sizes(), want.sizes());
  EXPECT_TRUE(got_vk.device() == kVk) << got_vk.device().str();
  const Tensor g = got_vk.detach().cpu().to(kFloat64), w = want.detach().to(kFloat64);
  const double scale = std::max(max_abs(w), floor);
  return max_abs(g - w) / scale;
}

// Targets (image, class, cx, cy, w, h): three boxes in image 0, none in image 1.
Tensor targets() {
  return tensor(std::vector<double>{0, 0, 0.30, 0.35, 0.40, 0.45,  //
                                    0, 2, 0.70, 0.60, 0.35, 0.50,  //
                                    0, 1, 0.55, 0.25, 0.20, 0.25},
                kFloat32)
      .reshape({3, 6});
}

}  // namespace

// The assigner alone on a 8x8 grid of stride 8: two overlapping gts and a padding row in image 0
// (conflicts between gts), none in image 1; equal assignments on both devices.
TEST_F(YoloVulkan, AssignerMatchesCpu) {
  manual_seed(5);
  const int64_t B = 2, A = 64, nc = 3;
  const Tensor grid = arange(8, kFloat32) * 8.0 + 4.0;
  const std::vector<Tensor> yx = meshgrid({grid, grid}, "ij");
  const Tensor anchors = stack({yx[1], yx[0]}, -1).reshape({A, 2});  // pixels, rows outer
  const Tensor dist = rand({B, A, 4}) * 12.0 + 2.0;
  const Tensor pred_boxes = cat({anchors - dist.narrow(2, 0, 2), anchors + dist.narrow(2, 2, 2)}, -1);
  const Tensor scores = rand({B, A, nc});
  const Tensor labels = tensor(std::vector<int64_t>{1, 2, 0, 0, 0, 0}).reshape({B, 3});
  const Tensor boxes = tensor(std::vector<float>{4, 6, 40, 44, 20, 16, 60, 58, 0, 0, 0, 0,  //
                                                 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
                           .reshape({B, 3, 4});
  const Tensor mask = tensor(std::vector<int64_t>{1, 1, 0, 0, 0, 0}).reshape({B, 3}) > 0;
  const Assignment c = task_aligned_assign(scores, pred_boxes, anchors, labels, boxes, mask);
  const uint64_t downloads = vulkan_download_count();
  const Assignment v = task_aligned_assign(scores.to(kVk), pred_boxes.to(kVk), anchors.to(kVk), labels.to(kVk),
                                           boxes.to(kVk), mask.to(kVk));
  EXPECT_EQ(vulkan_download_count(), downloads + 1);  // only the label check's flag
  ASSERT_GT(c.fg_mask.sum().item<int64_t>(), 10);
  EXPECT_TRUE(equal(v.fg_mask.cpu(), c.fg_mask));
  EXPECT_TRUE(equal(v.target_gt_idx.cpu(), c.target_gt_idx));
  EXPECT_TRUE(equal(v.target_bboxes.cpu(), c.target_bboxes));
  EXPECT_LT(rel_error(v.target_scores, c.target_scores), kRel);
}

TEST_F(YoloVulkan, TrainStepAndDetectionsMatchCpu) {
  manual_seed(11);
  Yolo11 cpu("n", 3), vk("n", 3);
  vk.load_state_dict(cpu.state_dict());
  vk.to(kVk);
  for (const auto& [name, p] : vk.named_parameters()) ASSERT_TRUE(p.device() == kVk) << name;
  for (const auto& [name, b] : vk.named_buffers()) ASSERT_TRUE(b.device() == kVk) << name;
  const Tensor x = rand({2, 3, 64, 64});

  // ---- train mode: maps, loss, items, gradients, BatchNorm buffers ----
  cpu.train();
  vk.train();
  const DetectionLoss crit(cpu);
  const std::vector<Tensor> maps_c = cpu.forward_maps(x);
  auto [loss_c, items_c] = crit(maps_c, targets());
  loss_c.backward();
  // The same on the device; nothing is read back from the forward through the loss to the end of
  // backward.
  const Tensor x_vk = x.to(kVk);
  const uint64_t downloads = vulkan_download_count();
  const std::vector<Tensor> maps_v = vk.forward_maps(x_vk);
  auto [loss_v, items_v] = crit(maps_v, targets());
  loss_v.backward();
  EXPECT_EQ(vulkan_download_count(), downloads);

  ASSERT_EQ(maps_c.size(), maps_v.size());
  for (size_t i = 0; i < maps_c.size(); ++i) EXPECT_LT(rel_error(maps_v[i], maps_c[i]), kRel) << "map " << i;
  ASSERT_TRUE(loss_v.device() == kVk && items_v.device() == kVk);
  // Box and DFL terms are nonzero only with positives: the assigner found some in image 0.
  ASSERT_GT(items_c.select(0, 0).item<double>(), 0.0);
  ASSERT_GT(items_c.select(0, 2).item<double>(), 0.0);
  EXPECT_LT(rel_error(loss_v, loss_c), kRel);
  for (int64_t i = 0; i < 3; ++i)
    EXPECT_LT(rel_error(items_v.select(0, i), items_c.select(0, i)), kRel) << "item " << i;
  const auto params_c = cpu.named_parameters(), params_v = vk.named_parameters();
  ASSERT_EQ(params_c.size(), params_v.size());
  double global = 0;
  for (const auto& [name, p] : params_c)
    if (p.grad().defined()) global = std::max(global, max_abs(p.grad()));
  ASSERT_GT(global, 0.0);
  for (size_t i = 0; i < params_c.size(); ++i) {
    const Tensor gc = params_c[i].second.grad(), gv = params_v[i].second.grad();
    ASSERT_EQ(gc.defined(), gv.defined()) << params_c[i].first;
    if (gc.defined()) {
      EXPECT_LT(rel_error(gv, gc, kFloor / kGradRel * global), kGradRel) << params_c[i].first;
    }
  }
  // Running mean / var updated by train-mode BatchNorm, and num_batches_tracked.
  const auto bufs_c = cpu.named_buffers(), bufs_v = vk.named_buffers();
  ASSERT_EQ(bufs_c.size(), bufs_v.size());
  for (size_t i = 0; i < bufs_c.size(); ++i) {
    if (is_floating_point(bufs_c[i].second.dtype())) {
      EXPECT_LT(rel_error(bufs_v[i].second, bufs_c[i].second), kRel) << bufs_c[i].first;
    } else {
      EXPECT_TRUE(equal(bufs_v[i].second.cpu(), bufs_c[i].second)) << bufs_c[i].first;
    }
  }

  // ---- eval mode: decoded predictions and NMS ----
  cpu.eval();
  vk.eval();
  const Tensor pred_c = cpu.forward(x);
  const uint64_t eval_downloads = vulkan_download_count();
  const Tensor pred_v = vk.forward(x_vk);
  EXPECT_EQ(vulkan_download_count(), eval_downloads);
  EXPECT_LT(rel_error(pred_v.narrow(1, 0, 4), pred_c.narrow(1, 0, 4)), kRel);  // xywh pixels
  EXPECT_LT(rel_error(pred_v.narrow(1, 4, 3), pred_c.narrow(1, 4, 3)), kRel);  // class scores
  NmsOptions o;
  o.conf_thres = 2e-4;  // the untrained head's scores are ~1e-4 .. 1e-3
  const std::vector<Tensor> det_c = non_max_suppression(pred_c, o), det_v = non_max_suppression(pred_v, o);
  ASSERT_EQ(det_c.size(), 2u);
  ASSERT_EQ(det_v.size(), 2u);
  for (size_t b = 0; b < det_c.size(); ++b) {
    ASSERT_GT(det_c[b].size(0), 0) << "image " << b;
    ASSERT_EQ(det_v[b].sizes(), det_c[b].sizes()) << "image " << b;
    // Boxes and scores within the tolerance, classes identical, in the same (score) order.
    EXPECT_LT(rel_error(det_v[b].narrow(1, 0, 4), det_c[b].narrow(1, 0, 4)), kRel) << "boxes, image " << b;
    EXPECT_LT(rel_error(det_v[b].select(1, 4), det_c[b].select(1, 4)), kRel) << "scores, image " << b;
    EXPECT_TRUE(equal(det_v[b].select(1, 5).cpu(), det_c[b].select(1, 5))) << "image " << b;
  }
}

#endif  // ADEPT_WITH_VULKAN
