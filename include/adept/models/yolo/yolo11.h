// The YOLO11 detection model (scales n/s/m/l/x, any number of classes) and its layer summary,
// built from ../shared/docs/yolo11.md section 1 with Ultralytics' state-dict key names.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "adept/models/yolo/blocks.h"
#include "adept/nn/modules/container.h"

namespace adept::models::yolo {

/// One row of the yaml after scaling: the input layers (-1 = previous), the internal repeat count
/// n, the block type and its constructor arguments as Ultralytics prints them.
struct LayerSpec {
  std::vector<int64_t> from;
  int64_t n = 1;
  std::string type;
  std::string args;
};

/// A scale's [depth_multiple, width_multiple, max_channels] (sheet 1.1).
struct ScaleSpec {
  double depth, width;
  int64_t max_channels;
};
/// The multiples of scale "n", "s", "m", "l" or "x" (ValueError for anything else).
ScaleSpec yolo11_scale(const std::string& scale);

/// YOLO11 detector: 24 layers held in the ModuleList `model` (state-dict keys
/// `model.<i>.<submodule>...` as in Ultralytics' checkpoints), the last one the Detect head at
/// strides 8/16/32 with biases initialised as sheet 2.12. yolo11n with nc = 80 has 2,624,080
/// parameters (16 of them the frozen DFL weights).
/// Input (B, 3, H, W) with H and W multiples of 32 (ValueError otherwise; ShapeError for another
/// rank or channel count).
class Yolo11 : public nn::Module {
 public:
  /// ValueError for an unknown scale or nc < 1.
  explicit Yolo11(const std::string& scale = "n", int64_t nc = 80);
  /// Evaluation mode: decoded predictions (B, 4 + nc, A), rows [cx, cy, w, h] in input pixels then
  /// sigmoid class scores, A = sum over levels of (H / s) (W / s). Training mode: the raw maps of
  /// forward_maps flattened and concatenated to (B, 4 reg_max + nc, A) (what the loss consumes).
  Tensor forward(const Tensor& x) override;
  /// The three raw head maps (B, 4 reg_max + nc, H / s, W / s) for s = 8, 16, 32 (either mode; BN
  /// uses batch statistics in training mode).
  std::vector<Tensor> forward_maps(const Tensor& x);
  /// Layer specs in index order (what summary prints).
  const std::vector<LayerSpec>& layers() const { return layers_; }
  /// Output stride of every layer (input pixels per output cell).
  const std::vector<int64_t>& layer_strides() const { return layer_strides_; }

  std::string scale;
  int64_t nc;
  std::shared_ptr<nn::ModuleList> model;
  std::shared_ptr<Detect> detect;

 private:
  std::vector<LayerSpec> layers_;
  std::vector<int64_t> layer_strides_;
  std::vector<bool> saved_;  // outputs later layers read through `from`
};

/// One summary row (Ultralytics' model.info layout) with the layer's conv GFLOPs.
struct LayerSummary {
  int64_t index;
  std::vector<int64_t> from;
  int64_t n;
  int64_t params;
  std::string module;
  std::string args;
  double gflops;
};

/// Per-layer rows and totals: parameters (all, and those that require grad) and GFLOPs = 2 x the
/// multiply-adds of every Conv2d at a square imgsz input (BatchNorm, activations, attention
/// matmuls and the DFL decode not counted, as the sheet's section 3 figures).
struct ModelSummary {
  std::vector<LayerSummary> layers;
  int64_t params = 0, trainable = 0;
  double gflops = 0;
  int64_t imgsz = 0;
  /// The printable table plus a totals line ("YOLO11n summary: 24 layers, 2,624,080 parameters ...").
  std::string table() const;
};

/// The summary of `model` at imgsz x imgsz input (ValueError unless imgsz is a positive multiple
/// of 32). Computed from the layer shapes, without running the model.
ModelSummary summary(Yolo11& model, int64_t imgsz = 640);

}  // namespace adept::models::yolo
