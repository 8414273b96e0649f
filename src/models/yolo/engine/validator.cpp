// YOLO11 validation (validator.h): NMS, boxes back to the original images, COCO-style mAP.
#include "adept/models/yolo/validator.h"

#include <chrono>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "adept/autograd.h"
#include "adept/models/yolo/checkpoint.h"
#include "adept/ops.h"
#include "adept/vision/detection_collate.h"
#include "models/yolo/engine/progress.h"
#include "models/yolo/engine/setup.h"

namespace adept::models::yolo {

namespace {

// Ground truth of image b of the batch: (m, 5) [cls, x1, y1, x2, y2] in original image pixels.
Tensor image_targets(const Tensor& targets, int64_t b, int64_t in_h, int64_t in_w, const Tensor& ratio_pad,
                     const std::vector<int64_t>& orig_shape) {
  const float* t = targets.data_ptr<float>();
  std::vector<float> boxes, cls;
  for (int64_t r = 0; r < targets.size(0); ++r) {
    const float* row = t + r * 6;
    if (static_cast<int64_t>(row[0]) != b) continue;
    const float cx = row[2] * in_w, cy = row[3] * in_h, w = row[4] * in_w, h = row[5] * in_h;
    boxes.insert(boxes.end(), {cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2});
    cls.push_back(row[1]);
  }
  const int64_t m = static_cast<int64_t>(cls.size());
  if (m == 0) return zeros({0, 5});
  const Tensor xyxy = scale_boxes(tensor(boxes).reshape({m, 4}), ratio_pad, orig_shape);
  return cat({tensor(cls).reshape({m, 1}), xyxy}, 1);
}

}  // namespace

ValidationResult validate(Yolo11& model, data::DataLoader& loader, const NmsOptions& nms, const DetectionLoss* loss,
                          const std::function<void(int64_t, int64_t)>& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  const bool was_training = model.is_training();
  model.train(false);
  NoGradGuard no_grad;
  const Device device = model.parameters().front().device();
  DetectionMetrics metrics;
  ValidationResult out;
  int64_t batches = 0;
  const int64_t total = loader.size();
  try {
    for (data::Batch& batch : loader) {
      const Tensor img = vision::to_float_image(batch.at("img").to(device));  // uint8 travels, the device converts
      const Tensor targets = batch.at("targets").to(kFloat32).contiguous();
      const std::vector<Tensor> maps = model.forward_maps(img);
      if (loss) {
        const Tensor items = (*loss)(maps, targets.to(device)).second.to(kCPU).to(kFloat64).contiguous();
        for (int k = 0; k < 3; ++k) out.loss[k] += items.data_ptr<double>()[k];
      }
      const std::vector<Tensor> dets = non_max_suppression(model.detect->decode(maps).to(kCPU), nms);
      const Tensor ori = batch.at("ori_shape").to(kInt64).contiguous();
      const Tensor ratio_pad = batch.at("ratio_pad").to(kFloat32).contiguous();
      const int64_t in_h = img.size(2), in_w = img.size(3);
      for (int64_t b = 0; b < static_cast<int64_t>(dets.size()); ++b) {
        const std::vector<int64_t> orig = {ori.data_ptr<int64_t>()[2 * b], ori.data_ptr<int64_t>()[2 * b + 1]};
        const Tensor rp = ratio_pad.select(0, b);
        const Tensor pred = dets[b].size(0) ? scale_boxes(dets[b], rp, orig) : dets[b];
        metrics.update(pred, image_targets(targets, b, in_h, in_w, rp, orig));
      }
      ++batches;
      if (progress) progress(batches, total);
    }
  } catch (...) {
    model.train(was_training);
    throw;
  }
  model.train(was_training);
  if (batches > 0)
    for (double& l : out.loss) l /= static_cast<double>(batches);
  out.metrics = metrics.compute();
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

ValidationResult val(const Config& user_config, const LoadedModel* model) {
  Config config = user_config;
  LoadedModel loaded = model ? *model : load_model(config.str("model"));
  // A checkpoint remembers its dataset and image size (over the built-in data's defaults); options
  // given now win.
  if (!loaded.checkpoint.empty()) config.set_default("data", loaded.train_config.str("data"));
  if (detail::is_builtin_data(config.str("data"))) detail::apply_builtin_defaults(config);
  if (!loaded.checkpoint.empty()) config.set_default("imgsz", loaded.train_config.str("imgsz"));
  const NmsOptions nms = detail::nms_options(config, 0.001, /*multi_label=*/true, "val");
  const Device device = detail::yolo_device(config.str("device"), "val");
  const vision::DatasetConfig data = detail::resolve_data(config.str("data"));
  ADEPT_CHECK(static_cast<int64_t>(data.names.size()) == loaded.model->nc, ValueError,
              "val: the model has {} classes but the dataset {} has {}", loaded.model->nc, data.source,
              data.names.size());
  loaded.model->to(device);

  vision::DetectionDatasetOptions dopt;
  dopt.imgsz = static_cast<int>(config.integer("imgsz"));
  auto dataset = std::make_shared<vision::DetectionDataset>(data, config.str("split"), dopt);
  auto loader = detail::make_loader(dataset, config.integer("batch"), detail::loader_workers(config.integer("workers")),
                                    false, static_cast<uint64_t>(config.integer("seed")));

  spdlog::info("val: {} on {} ({} split, {} images) at imgsz {}", config.str("model"), data.source,
               config.str("split"), dataset->size(), dopt.imgsz);
  detail::Progress bar("val", loader->size());
  ValidationResult r = validate(*loaded.model, *loader, nms, nullptr,
                                [&](int64_t done, int64_t) { bar.update(done, ""); });
  bar.finish("");
  spdlog::info("mAP50 {:.4f}  mAP50-95 {:.4f}  ({:.1f} s; COCO-style AP, pycocotools' 101-point interpolation)\n{}",
               r.metrics.map50, r.metrics.map50_95, r.seconds,
               config.flag("verbose") ? r.metrics.table(data.names) : std::string());
  return r;
}

}  // namespace adept::models::yolo
