// YOLO11 training on the Vulkan device (lavapipe in CI): the same loss curve as the CPU, checkpoints
// that move between the devices, exact resume (so: deterministic kernels), few host waits per step,
// and device errors that stop the run with its last checkpoint intact. Tiny runs (64 px, 8-12
// images of the synthetic shapes data, batch 4) so each test stays well under 30 s on lavapipe.
// Skipped when no Vulkan device is present.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "adept/adept.h"
#include "adept/models/yolo/checkpoint.h"
#include "adept/models/yolo/config.h"
#include "adept/models/yolo/trainer.h"
#include "adept/vision/synthetic_shapes.h"
#include "vision_test_util.h"
#ifdef ADEPT_WITH_VULKAN
#include "adept/vulkan.h"
#endif

#ifdef ADEPT_WITH_VULKAN

using namespace adept;
using namespace adept::models::yolo;
using adept::vision::testing::TempDir;
namespace fs = std::filesystem;

namespace {

const Device kVk("vulkan");

class YoloTrainVulkan : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!vulkan_is_available()) GTEST_SKIP() << "no Vulkan device";
  }
};

std::string tiny_data(const TempDir& dir, int64_t train_images, int64_t val_images) {
  vision::SyntheticShapesOptions o;
  o.train_images = train_images;
  o.val_images = val_images;
  o.imgsz = 64;
  return vision::ensure_synthetic_shapes((dir / "shapes").string(), o);
}

// Batch 4 with nbs 4 (an optimizer step every batch), no warmup, so the first steps move the weights.
Config tiny_config(const TempDir& dir, const std::string& data, const std::string& device, const std::string& name) {
  Config c;
  c.update({{"data", data}, {"imgsz", "64"}, {"batch", "4"}, {"epochs", "1"}, {"nbs", "4"}, {"workers", "0"},
            {"project", (dir / "runs").string()}, {"name", name}, {"close_mosaic", "0"}, {"verbose", "false"},
            {"seed", "3"}, {"warmup_epochs", "0"}, {"device", device}});
  return c;
}

using Items = std::vector<std::array<double, 3>>;

TrainCallbacks recorder(Items& out) {
  TrainCallbacks cb;
  cb.on_batch_end = [&out](int64_t, int64_t, const std::array<double, 3>& l) { out.push_back(l); };
  return cb;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

double max_rel(const Tensor& got, const Tensor& want) {
  const Tensor g = got.detach().cpu().to(kFloat64), w = want.detach().cpu().to(kFloat64);
  const double scale = std::max(amax(abs(w)).item<double>(), 1e-30);
  return amax(abs(g - w)).item<double>() / scale;
}

// Boxes and class scores separately (pixels vs probabilities): the larger relative error.
double pred_rel(const Tensor& got, const Tensor& want) {
  const int64_t nc = want.size(1) - 4;
  return std::max(max_rel(got.narrow(1, 0, 4), want.narrow(1, 0, 4)), max_rel(got.narrow(1, 4, nc), want.narrow(1, 4, nc)));
}

// Eval-mode decoded predictions (B, 4 + nc, anchors) of `m` on `x` (moved to the model's device).
Tensor predict(Yolo11& m, const Tensor& x, const Device& d) {
  NoGradGuard ng;
  m.eval();
  return m.forward(x.to(d)).cpu();
}

}  // namespace

// The same seeded run on both devices: per-batch loss items within float tolerance for the first
// steps, comparable validation; then the GPU run's checkpoint on the CPU (bit-exact tensors, equal
// predictions) and back on the GPU.
TEST_F(YoloTrainVulkan, SameLossCurveAsCpuAndCheckpointsMoveBetweenDevices) {
  TempDir dir;
  const std::string data = tiny_data(dir, 8, 4);  // 2 steps
  Items cpu_items, vk_items;
  const TrainResult cpu = train(tiny_config(dir, data, "cpu", "cpu"), recorder(cpu_items));
  manual_seed(3);  // the run's seed: the same initial weights as the CPU run draws
  LoadedModel vk_model = load_model("yolo11n", static_cast<int64_t>(vision::synthetic_shapes_names().size()));
  Config vk_config = tiny_config(dir, data, "vulkan:0", "vk");
  vk_config.set("amp", "false");  // float32 on both devices
  const TrainResult vk = train(vk_config, recorder(vk_items), &vk_model);
  ASSERT_EQ(cpu_items.size(), 2u);
  ASSERT_EQ(vk_items.size(), 2u);
  // Step 1 is the same float32 computation summed in other orders (measured on lavapipe: <= 1.3e-4
  // relative, the cls item); step 2 also carries AdamW's first update, which moves every weight by
  // about lr * sign(grad): weights whose gradient is zero up to rounding move either way on the two
  // devices (measured: the step 2 items differ by <= 0.4%).
  const double tol[2] = {5e-4, 1e-2};
  for (size_t s = 0; s < 2; ++s)
    for (int k = 0; k < 3; ++k) {
      const double c = cpu_items[s][k], v = vk_items[s][k];
      EXPECT_LE(std::abs(v - c), tol[s] * std::max(std::abs(c), 1e-3)) << "step " << s + 1 << " item " << k << ": cpu " << c << " vulkan " << v;
    }
  ASSERT_TRUE(cpu.best_val && vk.best_val);
  for (int k = 0; k < 3; ++k)
    EXPECT_NEAR(vk.best_val->loss[k], cpu.best_val->loss[k], 1e-2 * std::abs(cpu.best_val->loss[k])) << k;
  EXPECT_NEAR(vk.best_val->metrics.map50, cpu.best_val->metrics.map50, 0.05);
  EXPECT_NEAR(vk.best_val->metrics.map50_95, cpu.best_val->metrics.map50_95, 0.05);

  // results.csv has the epoch's peak device memory on the GPU run only.
  std::string header;
  std::getline(std::ifstream(fs::path(vk.save_dir) / "results.csv") >> std::ws, header);
  EXPECT_NE(header.find("gpu/peak_allocated_MiB,gpu/peak_reserved_MiB"), std::string::npos) << header;
  std::getline(std::ifstream(fs::path(cpu.save_dir) / "results.csv") >> std::ws, header);
  EXPECT_EQ(header.find("gpu/"), std::string::npos) << header;

  // The checkpoint written from the device holds its tensors exactly.
  ASSERT_TRUE(vk_model.model->parameters()[0].device() == kVk);
  const TrainCheckpoint ck = load_checkpoint(vk.last);
  const nn::StateDict live = vk_model.model->state_dict();
  ASSERT_EQ(ck.model.size(), live.size());
  for (size_t i = 0; i < live.size(); ++i) {
    ASSERT_EQ(ck.model[i].first, live[i].first);
    EXPECT_TRUE(ck.model[i].second.device().is_cpu());
    EXPECT_TRUE(equal(ck.model[i].second, live[i].second.cpu())) << live[i].first;
  }
  // On the CPU it predicts as the trained GPU model does; loaded back onto the GPU, the same again.
  const Tensor x = rand({2, 3, 64, 64});
  Yolo11 raw_cpu("n", static_cast<int64_t>(ck.names.size()));
  raw_cpu.load_state_dict(ck.model);
  const Tensor p_vk = predict(*vk_model.model, x, kVk);
  EXPECT_LT(pred_rel(p_vk, predict(raw_cpu, x, kCPU)), 2e-4);
  LoadedModel ema_cpu = load_model(vk.last), ema_vk = load_model(vk.last);
  ema_vk.model->to(kVk);
  EXPECT_LT(pred_rel(predict(*ema_vk.model, x, kVk), predict(*ema_cpu.model, x, kCPU)), 2e-4);
}

// Interrupted on the GPU after batch 2 of 3 and resumed there: bit-identical losses to the
// uninterrupted run, whose first two batches the interrupted run also repeats bit for bit (no
// run-to-run nondeterminism in the kernels). One host wait per step (the loss read back).
TEST_F(YoloTrainVulkan, ResumeRepeatsTheLossesBitForBit) {
  TempDir dir;
  const std::string data = tiny_data(dir, 12, 4);  // 3 steps
  Items full, resumed;
  Config c = tiny_config(dir, data, "vulkan", "full");
  c.update({{"val", "false"}, {"amp", "false"}});  // only the final epoch validates; amp: AmpFollowsFloat32
  TrainCallbacks rec = recorder(full);
  std::vector<uint64_t> syncs;
  rec.on_batch_end = [&](int64_t, int64_t, const std::array<double, 3>& l) {
    full.push_back(l);
    syncs.push_back(vulkan_sync_count());
  };
  const TrainResult a = train(c, rec);
  ASSERT_EQ(full.size(), 3u);
  // Between two batch ends: the one read of the loss (the optimizer's step count stays on the host,
  // the targets are padded on the host, the next batch's upload is queued without waiting).
  EXPECT_EQ(syncs[2] - syncs[1], 1u);
  EXPECT_EQ(syncs[1] - syncs[0], 1u);

  Config b = tiny_config(dir, data, "vulkan", "cut");
  b.update({{"val", "false"}, {"amp", "false"}});
  int64_t polls = 0;
  TrainCallbacks stop = recorder(resumed);
  stop.stop_requested = [&] { return ++polls == 2; };
  const TrainResult cut = train(b, stop);
  ASSERT_TRUE(cut.interrupted);
  ASSERT_EQ(resumed.size(), 2u);
  Config r;
  r.set("resume", cut.last);
  const TrainResult done = train(r, recorder(resumed));
  EXPECT_FALSE(done.interrupted);
  ASSERT_EQ(resumed.size(), full.size());
  for (size_t i = 0; i < full.size(); ++i) EXPECT_EQ(resumed[i], full[i]) << "batch " << i;
  ASSERT_TRUE(a.best_val && done.best_val);
  EXPECT_EQ(done.best_val->loss, a.best_val->loss);
}

// amp (the default on the GPU): the forward in float16 under autocast, the loss
// in float32, loss scaling. Step 1 (the same weights) gives the float32 run's
// loss items within float16 tolerance; the weights stay float32; at 64 px the
// first steps' float16 weight gradients overflow at the initial scale 2^16 (as
// they would in PyTorch: conv weight gradients of magnitude >= 1 pass 65504
// once scaled), so the scaler backs off and skips them, and the checkpoint
// carries its state; a resumed amp run repeats the losses bit for bit. Per
// step: the loss read and the scaler's inf check. (The loss curve over a whole
// run is compared on the H200: bench/results/h200_amp_curve.json.)
TEST_F(YoloTrainVulkan, AmpMatchesFloat32AtTheFirstStepAndResumes) {
  TempDir dir;
  const std::string data = tiny_data(dir, 12, 4);  // 3 steps
  Items f32, amp, resumed;
  Config c = tiny_config(dir, data, "vulkan", "f32");
  c.update({{"val", "false"}, {"amp", "false"}, {"epochs", "1"}});
  train(c, recorder(f32));
  Config a = tiny_config(dir, data, "vulkan", "amp");
  a.set("val", "false");
  TrainCallbacks rec = recorder(amp);
  std::vector<uint64_t> syncs;
  rec.on_batch_end = [&](int64_t, int64_t, const std::array<double, 3>& l) {
    amp.push_back(l);
    syncs.push_back(vulkan_sync_count());
  };
  manual_seed(3);  // the run's seed: the float32 run's initial weights
  LoadedModel model = load_model("yolo11n", static_cast<int64_t>(vision::synthetic_shapes_names().size()));
  const TrainResult ra = train(a, rec, &model);
  ASSERT_EQ(amp.size(), 3u);
  ASSERT_EQ(f32.size(), 3u);
  EXPECT_EQ(syncs[2] - syncs[1], 2u);
  // Measured on lavapipe: box and dfl items 2.8 % apart (they are 1 - IoU and a
  // small cross entropy, so the float16 rounding of the maps weighs more in
  // them), cls 0.1 %.
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(amp[0][k], f32[0][k], 5e-2 * std::abs(f32[0][k])) << "item " << k;
  for (const Tensor& p : model.model->parameters()) EXPECT_EQ(p.dtype(), kFloat32);
  const TrainCheckpoint ck = load_checkpoint(ra.last);
  ASSERT_FALSE(ck.grad_scaler.empty());
  EXPECT_EQ(optim::option_number(ck.grad_scaler, "scale", "test"),
            16384.0);  // measured: steps 2, 3 skipped
  EXPECT_EQ(optim::option_number(ck.grad_scaler, "_growth_tracker", "test"), 0.0);

  Config b = tiny_config(dir, data, "vulkan", "amp_cut");
  b.set("val", "false");
  int64_t polls = 0;
  TrainCallbacks stop = recorder(resumed);
  stop.stop_requested = [&] { return ++polls == 2; };
  const TrainResult cut = train(b, stop);
  ASSERT_TRUE(cut.interrupted);
  Config r;
  r.set("resume", cut.last);
  train(r, recorder(resumed));
  ASSERT_EQ(resumed.size(), amp.size());
  for (size_t i = 0; i < amp.size(); ++i) EXPECT_EQ(resumed[i], amp[i]) << "batch " << i;
}

// An amp run that diverges (lr0 1e30): once the loss is non-finite its batches are skipped, the optimizer
// steps meet no gradients (nothing for the scaler to unscale) and ten in a row stop the run with the error.
TEST_F(YoloTrainVulkan, DivergedAmpRunStopsWithAnError) {
  TempDir dir;
  Config c = tiny_config(dir, tiny_data(dir, 8, 4), "vulkan", "diverged");
  c.update({{"optimizer", "SGD"}, {"lr0", "1e30"}, {"epochs", "8"}, {"val", "false"}});
  try {
    train(c);
    FAIL() << "expected the run to diverge";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("non-finite loss"), std::string::npos) << e.what();
  }
}

// A device that stops answering mid-run (here: every wait made to time out after 1 ms, as a lost
// or hung device does) raises DeviceError naming the last checkpoint, which is left as it was.
TEST_F(YoloTrainVulkan, DeviceErrorKeepsTheLastCheckpoint) {
  TempDir dir;
  const std::string data = tiny_data(dir, 8, 4);
  Config c = tiny_config(dir, data, "vulkan", "lost");
  c.update({{"epochs", "2"}, {"val", "false"}});
  std::string saved;
  std::string last;
  TrainCallbacks cb;
  int64_t polls = 0;
  cb.stop_requested = [&] {
    if (++polls == 3) saved = read_bytes(last);  // after epoch 1's checkpoint
    return false;
  };
  cb.on_batch_end = [&](int64_t epoch, int64_t, const std::array<double, 3>&) {
    if (epoch == 1) setenv("ADEPT_VK_TIMEOUT", "0", 1);  // the floor: 1 ms
  };
  last = (dir / "runs" / "lost" / "weights" / "last.safetensors").string();
  try {
    train(c, cb);
    unsetenv("ADEPT_VK_TIMEOUT");
    FAIL() << "expected a DeviceError";
  } catch (const DeviceError& e) {
    unsetenv("ADEPT_VK_TIMEOUT");
    const std::string what = e.what();
    EXPECT_NE(what.find("at epoch 2 batch"), std::string::npos) << what;
    EXPECT_NE(what.find("the last checkpoint " + last + " is intact"), std::string::npos) << what;
    EXPECT_NE(what.find("resume="), std::string::npos) << what;
  }
  vulkan_synchronize();
  ASSERT_FALSE(saved.empty());
  EXPECT_EQ(read_bytes(last), saved);
  EXPECT_EQ(load_checkpoint(last).epoch, 1);
}

#endif  // ADEPT_WITH_VULKAN
