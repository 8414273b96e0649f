// Integration: yolo11n trained on the real coco128 images (small image size, worker processes):
// the loss falls, an interrupted run resumes to the same losses, val and predict work on it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <numeric>

#include <nlohmann/json.hpp>

#include "adept/adept.h"
#include "adept/models/yolo/checkpoint.h"
#include "adept/models/yolo/predictor.h"
#include "adept/models/yolo/trainer.h"
#include "adept/models/yolo/validator.h"
#include "vision_test_util.h"

using namespace adept;
using namespace adept::models::yolo;
using namespace adept::vision::testing;
namespace fs = std::filesystem;

TEST(YoloCoco128, TrainResumeValPredict) {
  ADEPT_SKIP_WITHOUT_COCO128();
  TempDir dir;
  const ScopedEnv cache("XDG_CACHE_HOME", (dir / "cache").string());
  link_coco128(dir / "coco128");
  auto config = [&](const std::string& name) {
    Config c;
    c.update({{"data", (dir / "coco128").string()}, {"imgsz", "64"}, {"batch", "16"}, {"epochs", "3"},
              {"workers", "2"}, {"nbs", "16"}, {"warmup_epochs", "0"}, {"close_mosaic", "1"}, {"optimizer", "AdamW"},
              {"lr0", "0.002"}, {"val", "false"}, {"project", (dir / "runs").string()}, {"name", name}, {"verbose", "false"}});
    return c;
  };
  using Items = std::array<double, 3>;
  std::vector<Items> full, resumed;
  TrainCallbacks record;
  record.on_batch_end = [&](int64_t, int64_t, const Items& l) { full.push_back(l); };
  const TrainResult a = train(config("full"), record);
  ASSERT_EQ(full.size(), 24u);  // 3 epochs x 8 batches of 16, an optimizer step after each (nbs 16)
  auto total = [](const std::vector<Items>& v, size_t from, size_t to) {
    double s = 0;
    for (size_t i = from; i < to; ++i) s += v[i][0] + v[i][1] + v[i][2];
    return s / static_cast<double>(to - from);
  };
  EXPECT_LT(total(full, 16, 24), 0.9 * total(full, 0, 8)) << "the loss falls from the first epoch to the last";
  ASSERT_TRUE(a.best_val.has_value()) << "the last epoch is always validated";
  EXPECT_EQ(a.best_val->metrics.images, 128);

  // Interrupted in the middle of epoch 2 (mosaic on), resumed: the same losses, batch for batch.
  int64_t polls = 0;
  TrainCallbacks stop;
  stop.on_batch_end = [&](int64_t, int64_t, const Items& l) { resumed.push_back(l); };
  stop.stop_requested = [&] { return ++polls == 12; };  // 8 batches + 1 epoch poll + 3 batches
  const TrainResult cut = train(config("cut"), stop);
  ASSERT_TRUE(cut.interrupted);
  Config r;
  r.set("resume", cut.last);
  TrainCallbacks rest;
  rest.on_batch_end = stop.on_batch_end;
  train(r, rest);
  ASSERT_EQ(resumed.size(), full.size());
  for (size_t i = 0; i < full.size(); ++i) EXPECT_EQ(resumed[i], full[i]) << "batch " << i;

  // val and predict from the checkpoint.
  Config v;
  v.update({{"model", a.best}, {"workers", "2"}, {"verbose", "false"}});
  const ValidationResult val_result = val(v);
  EXPECT_EQ(val_result.metrics.images, 128);
  EXPECT_GE(val_result.metrics.map50, 0.0);
  EXPECT_DOUBLE_EQ(val_result.metrics.map50_95, a.best_val->metrics.map50_95) << "val of best = its epoch's val";
  Config p;
  const fs::path images = coco128_source() / "images";
  p.update({{"model", a.best}, {"source", (images / "000000000009.jpg").string() + "," +
                                              (images / "000000000025.jpg").string()},
            {"conf", "0.01"}, {"project", (dir / "runs").string()}, {"save_txt", "true"}, {"verbose", "false"}});
  const PredictRun run = predict(p);
  ASSERT_EQ(run.predictions.size(), 2u);
  EXPECT_TRUE(fs::exists(fs::path(run.save_dir) / "000000000009.jpg"));
  std::ifstream json(fs::path(run.save_dir) / "predictions.json");
  const nlohmann::json j = nlohmann::json::parse(json);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["width"], 640);
  EXPECT_EQ(j[0]["detections"].size(), static_cast<size_t>(run.predictions[0].boxes.size(0)));
}
