// The YOLO11 training engine: options, checkpoints, exact resume, metrics files, divergence.
// Runs tiny trainings (64 px images of the synthetic shapes dataset) so they stay quick.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "adept/adept.h"
#include "adept/models/yolo/checkpoint.h"
#include "adept/models/yolo/config.h"
#include "adept/models/yolo/trainer.h"
#include "adept/vision/synthetic_shapes.h"
#include "vision_test_util.h"

using namespace adept;
using namespace adept::models::yolo;
using adept::vision::testing::TempDir;
namespace fs = std::filesystem;

namespace {

// A tiny dataset: 12 train / 6 val images of at most 64 px.
std::string tiny_data(const TempDir& dir) {
  vision::SyntheticShapesOptions o;
  o.train_images = 12;
  o.val_images = 6;
  o.imgsz = 64;
  return vision::ensure_synthetic_shapes((dir / "shapes").string(), o);
}

Config tiny_config(const TempDir& dir, const std::string& data) {
  Config c;
  c.update({{"data", data}, {"imgsz", "64"}, {"batch", "4"}, {"epochs", "3"}, {"nbs", "8"}, {"workers", "0"},
            {"project", (dir / "runs").string()}, {"close_mosaic", "1"}, {"verbose", "false"}, {"seed", "3"}});
  return c;
}

int64_t csv_rows(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  int64_t n = -1;  // header
  while (std::getline(in, line))
    if (!line.empty()) ++n;
  return n;
}

}  // namespace

TEST(YoloConfig, DefaultsParsingAndErrors) {
  Config c;
  EXPECT_EQ(c.integer("epochs"), 100);
  EXPECT_DOUBLE_EQ(c.number("lr0"), 0.01);
  EXPECT_FALSE(c.flag("cos_lr"));
  EXPECT_FALSE(c.is_set("epochs"));
  c.set("epochs", "3");
  c.set("cos_lr", "True");
  c.set("imgsz", "320.0");
  EXPECT_TRUE(c.is_set("epochs"));
  EXPECT_EQ(c.integer("epochs"), 3);
  EXPECT_TRUE(c.flag("cos_lr"));
  EXPECT_EQ(c.integer("imgsz"), 320);
  c.set_default("epochs", "7");  // the user's value wins
  EXPECT_EQ(c.integer("epochs"), 3);
  c.set_default("batch", "8");
  EXPECT_EQ(c.integer("batch"), 8);
  EXPECT_FALSE(c.is_set("batch"));
  try {
    c.set("epoch", "3");
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'epochs'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(c.set("epochs", "three"), ValueError);
  EXPECT_THROW(c.set("epochs", "2.5"), ValueError);
  EXPECT_THROW(c.set("cos_lr", "maybe"), ValueError);
  EXPECT_THROW(c.set("lr0", "inf"), ValueError);
  const Config back = Config::from_json(c.to_json());
  EXPECT_EQ(back.values(), c.values());
  EXPECT_THROW(Config::from_json("{not json"), ValueError);
}

TEST(YoloCheckpoint, ModelSpecs) {
  LoadedModel m = load_model("yolo11n", 3);
  EXPECT_EQ(m.model->nc, 3);
  EXPECT_EQ(m.names.size(), 3u);
  EXPECT_TRUE(m.checkpoint.empty());
  EXPECT_EQ(load_model("n").model->nc, 80);
  EXPECT_THROW(load_model("yolo11q"), ValueError);
  EXPECT_THROW(load_model("/no/such/file.safetensors"), IOError);
  TempDir dir;
  const fs::path bogus = dir / "x.safetensors";
  io::save_file({{"w", zeros({2})}}, bogus.string());
  EXPECT_THROW(load_model(bogus.string()), ValueError);  // not a YOLO checkpoint
}

// An interrupted run (in the middle of a gradient accumulation, with worker processes) resumed
// from its checkpoint gives bit-identical losses to an uninterrupted one; the CSV files hold each
// row once; the checkpoints load as models.
TEST(YoloTrain, ResumeReproducesTheUninterruptedRun) {
  TempDir dir;
  const std::string data = tiny_data(dir);
  std::vector<std::array<double, 3>> full, resumed;
  TrainCallbacks record;
  record.on_batch_end = [&](int64_t, int64_t, const std::array<double, 3>& l) { full.push_back(l); };
  // No warmup, so accumulate is 2 from the start (the warmup ramps it from 1).
  Config c = tiny_config(dir, data);
  c.set("name", "full");
  c.set("warmup_epochs", "0");
  const TrainResult a = train(c, record);
  ASSERT_FALSE(a.interrupted);
  EXPECT_EQ(a.epochs, 3);
  ASSERT_EQ(full.size(), 9u);  // 3 epochs x 3 batches
  EXPECT_TRUE(fs::exists(a.last));
  EXPECT_EQ(csv_rows(fs::path(a.save_dir) / "results.csv"), 3);
  EXPECT_EQ(csv_rows(fs::path(a.save_dir) / "batches.csv"), 9);

  // Stop after epoch 1's 2nd batch (iteration 4; steps at iterations 1 and 3, so a gradient is
  // pending). stop_requested is polled after each batch and each epoch: the 6th poll.
  Config b = tiny_config(dir, data);
  b.set("name", "cut");
  b.set("workers", "2");
  b.set("warmup_epochs", "0");
  int64_t seen = 0;
  TrainCallbacks stop;
  stop.on_batch_end = [&](int64_t, int64_t, const std::array<double, 3>& l) { resumed.push_back(l); };
  stop.stop_requested = [&] { return ++seen == 6; };
  const TrainResult cut = train(b, stop);
  ASSERT_TRUE(cut.interrupted);
  const TrainCheckpoint ck = load_checkpoint(cut.last);
  EXPECT_EQ(ck.epoch, 1);
  EXPECT_EQ(ck.batch, 2);
  EXPECT_FALSE(ck.grads.empty()) << "the pending accumulated gradient is saved";
  Config r;
  r.set("resume", cut.last);
  TrainCallbacks rec2;
  rec2.on_batch_end = stop.on_batch_end;
  const TrainResult done = train(r, rec2);
  EXPECT_FALSE(done.interrupted);
  EXPECT_EQ(done.save_dir, cut.save_dir);
  ASSERT_EQ(resumed.size(), full.size());
  for (size_t i = 0; i < full.size(); ++i) EXPECT_EQ(resumed[i], full[i]) << "batch " << i;
  EXPECT_EQ(csv_rows(fs::path(done.save_dir) / "results.csv"), 3);
  EXPECT_EQ(csv_rows(fs::path(done.save_dir) / "batches.csv"), 9);

  // The finished run has nothing left to resume; its weights load as a model.
  EXPECT_THROW(train(r), ValueError);
  LoadedModel m = load_model(done.last);
  EXPECT_EQ(m.names, vision::synthetic_shapes_names());
  EXPECT_EQ(m.checkpoint, done.last);
  EXPECT_EQ(m.train_config.integer("imgsz"), 64);
}

// A run whose loss becomes NaN skips those batches and stops with a clear error when it persists.
TEST(YoloTrain, DivergedRunStopsWithAnError) {
  TempDir dir;
  Config c = tiny_config(dir, tiny_data(dir));
  c.update({{"optimizer", "SGD"}, {"lr0", "1e30"}, {"warmup_epochs", "0"}, {"epochs", "6"}, {"nbs", "4"},
            {"val", "false"}});
  try {
    train(c);
    FAIL() << "expected the run to diverge";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("non-finite loss"), std::string::npos) << e.what();
  }
}

TEST(YoloTrain, BadOptionsFailBeforeTraining) {
  TempDir dir;
  const std::string data = tiny_data(dir);
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"imgsz", "50"}, {"batch", "0"}, {"optimizer", "Lion"}, {"class_weights", "1,2"}, {"epochs", "0"},
           {"fraction", "2"}, {"workers", "-1"}, {"mosaic", "2"}, {"hsv_h", "-1"}, {"scale", "1.5"}}) {
    Config c = tiny_config(dir, data);
    c.set(key, value);
    EXPECT_THROW(train(c), ValueError) << key << "=" << value;
    EXPECT_FALSE(fs::exists(dir / "runs")) << key << "=" << value << " left a run folder";
  }
  Config missing = tiny_config(dir, (dir / "nope.yaml").string());
  EXPECT_THROW(train(missing), IOError);
}
