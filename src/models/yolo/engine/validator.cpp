// YOLO11 validation (validator.h): NMS, boxes back to the original images, COCO-style mAP.
#include "adept/models/yolo/validator.h"

#include <chrono>
#include <filesystem>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "adept/autograd.h"
#include "adept/models/yolo/checkpoint.h"
#include "adept/ops.h"
#include "adept/vision/detection_collate.h"
#include "models/yolo/engine/plots.h"
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

constexpr int64_t kPlottedBatches = 2;
constexpr double kPlottedConf = 0.25;

// val_batch<i>_labels.jpg and val_batch<i>_pred.jpg: the batch with its labels and with the
// predictions (input pixels, before scale_boxes) of confidence >= kPlottedConf.
void plot_val_batch(const Tensor& img, const Tensor& targets, const std::vector<Tensor>& dets, int64_t i,
                    const ValidationPlots& plots) {
  namespace fs = std::filesystem;
  const Tensor labels = cat({targets, full({targets.size(0), 1}, -1.0, kFloat32)}, 1);
  detail::try_plot("a validation batch", [&] {
    detail::plot_batch(img, labels, plots.names, (fs::path(plots.dir) / fmt::format("val_batch{}_labels.jpg", i)).string());
  });
  const double h = static_cast<double>(img.size(2)), w = static_cast<double>(img.size(3));
  std::vector<double> rows;
  for (size_t b = 0; b < dets.size(); ++b) {
    const Tensor d = dets[b].to(kFloat64).contiguous();
    const double* p = d.data_ptr<double>();
    for (int64_t k = 0; k < d.size(0); ++k) {
      const double* q = p + 6 * k;
      if (q[4] < kPlottedConf) continue;
      rows.insert(rows.end(), {static_cast<double>(b), q[5], (q[0] + q[2]) / 2 / w, (q[1] + q[3]) / 2 / h,
                               (q[2] - q[0]) / w, (q[3] - q[1]) / h, q[4]});
    }
  }
  const Tensor preds = rows.empty() ? zeros({0, 7}, kFloat64) : tensor(rows, kFloat64).reshape({-1, 7});
  detail::try_plot("a validation batch", [&] {
    detail::plot_batch(img, preds, plots.names, (fs::path(plots.dir) / fmt::format("val_batch{}_pred.jpg", i)).string());
  });
}

}  // namespace

ValidationResult validate(Yolo11& model, data::DataLoader& loader, const NmsOptions& nms, const DetectionLoss* loss,
                          const std::function<void(int64_t, int64_t)>& progress, const ValidationPlots* plots) {
  const auto t0 = std::chrono::steady_clock::now();
  const bool was_training = model.is_training();
  model.train(false);
  NoGradGuard no_grad;
  const Device device = model.parameters().front().device();
  DetectionMetrics metrics;
  ValidationResult out;
  // As Ultralytics: the matrix counts detections above 0.25 when validation keeps everything
  // (conf 0.001, the mAP default), else above the given conf.
  out.confusion.emplace(model.nc, nms.conf_thres <= 0.001 ? 0.25 : nms.conf_thres);
  if (plots) out.save_dir = plots->dir;
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
        const Tensor truth = image_targets(targets, b, in_h, in_w, rp, orig);
        metrics.update(pred, truth);
        out.confusion->update(pred, truth);
      }
      if (plots && batches < kPlottedBatches) plot_val_batch(batch.at("img"), targets, dets, batches, *plots);
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
  if (plots) {
    detail::plot_curves(out.metrics, plots->names, plots->dir);  // each file under its own try_plot
    detail::plot_confusion_matrix(*out.confusion, plots->names, plots->dir);
  }
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
  const NmsOptions nms = detail::nms_options(config, default_conf(OptionSpec::kVal), /*multi_label=*/true, "val");
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
  std::optional<ValidationPlots> plots;
  if (config.flag("plots")) plots = ValidationPlots{detail::make_run_dir(config, "val"), data.names};
  detail::Progress bar("val", loader->size());
  ValidationResult r = validate(*loaded.model, *loader, nms, nullptr,
                                [&](int64_t done, int64_t) { bar.update(done, ""); }, plots ? &*plots : nullptr);
  bar.finish("");
  if (plots) spdlog::info("val: plots in {}", plots->dir);
  spdlog::info("mAP50 {:.4f}  mAP50-95 {:.4f}  ({:.1f} s; COCO-style AP, pycocotools' 101-point interpolation)\n{}",
               r.metrics.map50, r.metrics.map50_95, r.seconds,
               config.flag("verbose") ? r.metrics.table(data.names) : std::string());
  return r;
}

}  // namespace adept::models::yolo
