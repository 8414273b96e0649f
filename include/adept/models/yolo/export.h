// ONNX export of YOLO11 (`adept export`, adept.models.YOLO.export): the graph Ultralytics'
// `YOLO(...).export(format="onnx")` writes, emitted from the model's modules through the generic
// adept::onnx::GraphWriter (include/adept/onnx/writer.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "adept/models/yolo/checkpoint.h"
#include "adept/models/yolo/config.h"
#include "adept/models/yolo/yolo11.h"

namespace adept::models::yolo {

/// What export_onnx writes (Ultralytics' export arguments of format=onnx).
struct OnnxExportOptions {
  int64_t height = 640, width = 640;  ///< the input's size in pixels (positive multiples of 32)
  int64_t batch = 1;                  ///< the input's batch (fixed unless dynamic)
  bool dynamic = false;               ///< batch, height and width symbolic ("batch", "height", "width")
  int64_t opset = 17;                 ///< default-domain opset, 11 to 21 (adept::onnx::kMin/kMaxWriteOpset)
};

/// What was written: the file and the graph's signature.
struct OnnxExportResult {
  std::string path;
  int64_t opset = 0, ir_version = 0;
  std::vector<std::string> input_shape, output_shape;  ///< dims as text: sizes or symbolic names
};

/// Writes `model` as an ONNX model to `path` (atomically: temporary file + rename). The graph computes
/// the model's evaluation-mode forward (Yolo11::forward in eval mode) whatever mode the model is in:
///   input  `images`  float32 (batch, 3, height, width), RGB in [0, 1];
///   output `output0` float32 (batch, 4 + nc, A), A = sum over strides s = 8, 16, 32 of (height / s)
///          (width / s): rows cx, cy, w, h in input pixels (DFL expectation around the anchor points,
///          times the stride) then the nc sigmoid class scores, anchors ordered level, row, column.
/// With `dynamic`, batch, height and width of `images` are symbolic ("batch", "height", "width"; height
/// and width must still be multiples of 32 at run time) and so are output0's batch and anchors
/// ("anchors"): the anchor grid is computed in the graph from the feature maps' shapes (Shape, Range,
/// Expand); otherwise the anchors and strides are constants.
/// Every Conv block is exported with its BatchNorm folded into the convolution as the model folds it in
/// evaluation (w' = w gamma / sqrt(var + eps), b' = beta - mean gamma / sqrt(var + eps)) and SiLU as
/// Sigmoid + Mul; weights are float32 initializers named as Ultralytics' fused model's
/// (`model.<i>.<path>.conv.weight`, `.bias`). Ops: Conv, Sigmoid, Mul, Add, Sub, Div, Concat, Split,
/// Reshape, Transpose, MatMul, Softmax, MaxPool, Resize (nearest, asymmetric, floor), Constant, and for
/// dynamic graphs Shape, Gather, Cast, Range, Expand. metadata_props as Ultralytics writes them (Python
/// literals): description, author, version, stride, task ("detect"), batch, imgsz ("[h, w]"), names
/// ("{0: 'person', ...}"), channels, args.
/// Errors: ValueError for an opset outside 11-21, a size that is not a positive multiple of 32, a batch
/// < 1, or `names` whose count is not model.nc; adept::onnx::UnsupportedError (Python:
/// adept.onnx.UnsupportedError, a NotImplementedError) naming the module path and type of a module the
/// exporter does not know (e.g. an activation replaced by ReLU) or an option of a known one it cannot
/// express; IOError when the file cannot be written.
OnnxExportResult export_onnx(Yolo11& model, const std::vector<std::string>& names, const std::string& path,
                             const OnnxExportOptions& options = {});

/// `adept export`: loads `model` (a checkpoint, or a scale name for a random model), checks `format`
/// (onnx only: ValueError naming the formats otherwise) and writes the ONNX model with `imgsz` (default:
/// the checkpoint's training size), `batch` (default 1), `dynamic` and `opset` next to the checkpoint
/// with the suffix .onnx (a scale name: yolo11<scale>.onnx in the working directory), as Ultralytics
/// does. With `model`, that model is exported instead of loading `model=`. Errors: as load_model and
/// export_onnx, ValueError for a bad option.
OnnxExportResult export_model(const Config& config, const LoadedModel* model = nullptr);

}  // namespace adept::models::yolo
