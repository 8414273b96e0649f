// YOLO11 prediction (`adept predict`, YOLO.predict): image sources, the letterboxed network input,
// and running a model over images with the results saved as drawn images, txt labels and JSON.
// Follows Ultralytics' DetectionPredictor (ultralytics/engine/predictor.py, models/yolo/detect/
// predict.py) for a PyTorch model at batch 1; ../shared/docs/yolo11.md section 6.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "adept/models/yolo/checkpoint.h"
#include "adept/models/yolo/config.h"
#include "adept/models/yolo/nms.h"
#include "adept/models/yolo/yolo11.h"
#include "adept/tensor.h"

namespace adept::models::yolo {

/// The image files a predict `source` names, in order:
///   * an image file (any extension: it is decoded by content when predicted);
///   * a folder: the image files directly inside it (extensions bmp, jpeg, jpg, png, tif, tiff,
///     webp, any case), sorted by name; not recursive (as Ultralytics' `dir/*.*`);
///   * a .txt file: one image file or folder per line, relative paths resolved against the txt's
///     folder, blank lines skipped, kept in the list's order (a .txt inside a list is an error);
///   * several of these separated by commas (a source that exists as a path with commas in its
///     name is taken whole); spaces around entries are ignored.
/// Errors: IOError naming the entry (and the list it came from) that does not exist or cannot be
/// read; ValueError when `source` is empty, a list names another list, or no image is found.
std::vector<std::string> resolve_sources(const std::string& source);

/// The network input of one image and how it maps back to the image.
struct PreparedImage {
  Tensor input;  ///< (1, 3, h, w) float32, RGB, values in [0, 1], contiguous, CPU
  double gain = 1;              ///< input = original * gain + pad
  double pad_x = 0, pad_y = 0;  ///< left and top padding of the input, pixels
};

/// Ultralytics' predict pre-processing of one image: LetterBox(imgsz, auto=True, stride) — the
/// long side scaled to imgsz (also up), the short side padded with 114 only up to a multiple of
/// `stride` ("minimal rectangle", centred; vision::letterbox with auto_stride) — then BGR -> RGB,
/// HWC -> CHW, / 255. So h and w are multiples of stride and max(h, w) == imgsz.
/// image: (H, W, 3) uint8 BGR, contiguous, CPU (errors as vision::letterbox raises them).
/// ValueError unless stride > 0 and imgsz is a positive multiple of stride.
PreparedImage preprocess(const Tensor& image, int imgsz, int stride = 32);

/// Detections of one image, in its original pixels.
struct ImagePrediction {
  std::string path;            ///< the image file
  int64_t height = 0, width = 0;  ///< original image size
  Tensor boxes;  ///< (n, 6) float32 CPU [x1, y1, x2, y2, conf, cls], conf descending, inside the image
};

/// Options of predict(), with Ultralytics' names (default.yaml).
struct PredictOptions {
  int imgsz = 640;  ///< long side of the network input (rounded up to a multiple of 32 with a warning)
  NmsOptions nms{};  ///< conf 0.25, iou 0.7, max_det 300, classes, agnostic; multi_label off (predict)
  bool save = true;        ///< write the images with the boxes drawn
  bool save_txt = false;   ///< write labels/<stem>.txt
  bool save_conf = false;  ///< append the confidence to each txt line
  int line_width = 0;      ///< box line width (0: from the image size, see draw_detections)
  bool show_labels = true, show_conf = true;  ///< draw class names / confidences
  bool verbose = true;     ///< log one line per image and the speed summary (spdlog info)
};

/// predict()'s options from a Config: imgsz, conf (empty: 0.25, the predict default), iou,
/// max_det, classes ("0,2" -> {0, 2}; empty: all), agnostic_nms, save, save_txt, save_conf,
/// line_width, show_labels, show_conf, verbose. ValueError naming the option for imgsz <= 0, conf
/// or iou outside [0, 1], max_det < 0, a class that is not an integer >= 0, line_width < 0.
PredictOptions predict_options(const Config& config);

/// Runs `model` on every image of `sources`, one at a time (batch 1), as Ultralytics'
/// DetectionPredictor: imread (BGR) -> preprocess(imgsz, the model's largest stride) -> forward in
/// eval mode without autograd (input moved to the model's device, output back to the CPU) ->
/// non_max_suppression(options.nms, multi_label off) -> scale_boxes with the letterbox's own gain
/// and padding (Ultralytics recomputes them from the two shapes; the same values but for a rare
/// rounding case). The model's training mode is restored afterwards.
///
/// names: class names (index = class id), exactly model.nc of them, or none ("class0", "class1",
/// ... as Ultralytics' default_class_names).
/// If save_dir is not empty it is created and receives:
///   * <image name> with the boxes drawn (draw_detections) when options.save, in the source's
///     format (.jpg added when the name has no image extension);
///   * labels/<stem>.txt when options.save_txt: one line "cls cx cy w h[ conf]" per box, values
///     normalised to the original image and printed as printf "%g" (Ultralytics' save_txt);
///     no file for an image without detections;
///   * predictions.json (always, written atomically once all images are done): a list, one entry
///     per image in order: {"image": path, "width": w, "height": h, "detections": [{"class": id,
///     "name": name, "confidence": c, "box": [x1, y1, x2, y2]}]}, values rounded to 5 decimals.
///   Images whose names collide (same name from different folders) are saved as <stem>_2<ext>, ...
/// Returns one ImagePrediction per readable source, in order: an image that cannot be read or
/// decoded is skipped with a warning (as Ultralytics does).
/// Errors: ValueError for names of the wrong size, options outside predict_options' ranges, or a
/// class filter >= model.nc; IOError when no source could be read, or for an unwritable save_dir.
std::vector<ImagePrediction> predict(Yolo11& model, const std::vector<std::string>& names,
                                     const std::vector<std::string>& sources, const PredictOptions& options,
                                     const std::string& save_dir = "");

/// What `adept predict` did: its run folder and the predictions.
struct PredictRun {
  std::string save_dir;
  std::vector<ImagePrediction> predictions;
};

/// `adept predict`: loads `model` (a checkpoint, with its class names and image size as defaults,
/// or a scale name for a random model) on `device`, resolves `source` (empty: the first images of
/// the built-in dataset's val split) and runs predict() with predict_options(config), saving into
/// a new run folder <project>/<name or "predict">. With `model`, that model is used instead of
/// loading `model=`. Errors: as load_model, resolve_sources, predict.
PredictRun predict(const Config& config, const LoadedModel* model = nullptr);

}  // namespace adept::models::yolo
