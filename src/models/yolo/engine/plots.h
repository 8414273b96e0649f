// The plots of a run folder, named and laid out as Ultralytics writes them (ultralytics/utils/
// plotting.py, metrics.py), drawn with PLplot (figure.h) and OpenCV (the image mosaics).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "adept/models/yolo/confusion_matrix.h"
#include "adept/models/yolo/metrics.h"
#include "adept/tensor.h"
#include "adept/vision/labels.h"

namespace adept::models::yolo::detail {

/// Runs one plotting step; an error (a missing driver, a full disk) is logged as a warning naming
/// `what`, and training or validation goes on. Returns whether it succeeded.
bool try_plot(const std::string& what, const std::function<void()>& draw);

/// results.png: the per-epoch columns of results.csv (train and val box/cls/dfl losses,
/// precision, recall, mAP50, mAP50-95) in a 2 x 5 grid, each with a smoothed copy. IOError when
/// the CSV cannot be read or the PNG written.
void plot_results(const std::string& results_csv, const std::string& out_png);

/// labels.jpg: instances per class (bars), the boxes drawn centred, and 2-D histograms of the box
/// centres (x, y) and sizes (width, height), normalised to the image.
void plot_labels(const std::vector<vision::ImageLabels>& labels, const std::vector<std::string>& names,
                 const std::string& out_jpg);

/// A mosaic of up to 16 images of a batch with their boxes, as a (H, W, 3) uint8 BGR image: a
/// square grid of ceil(sqrt(B)) columns (rows left empty below the last image are cut off).
/// img: (B, 3, H, W) uint8 RGB (detection_collate's layout), any device; boxes: (n, 7)
/// [batch index, class, cx, cy, w, h, conf] normalised to H and W (conf < 0: a label, drawn
/// without a confidence). The tiles are scaled so the grid is min_width..max_width pixels wide
/// (Ultralytics' plot_images limits the width to 1920; small images are enlarged to 1280 so their
/// labels stay readable; min_width 0: never enlarged). ShapeError for other shapes.
Tensor batch_mosaic(const Tensor& img, const Tensor& boxes, const std::vector<std::string>& names,
                    double min_width = 1280, double max_width = 1920);

/// batch_mosaic written to `out_jpg` (train_batchN.jpg, val_batchN_labels.jpg, val_batchN_pred.jpg),
/// at most 1280 pixels wide for small images (so they stay readable) and 1920 for large ones.
void plot_batch(const Tensor& img, const Tensor& boxes, const std::vector<std::string>& names,
                const std::string& out_jpg);

/// BoxPR_curve.png, BoxF1_curve.png, BoxP_curve.png, BoxR_curve.png in `dir`: per class and the
/// mean over classes, at IoU 0.5 (DetectionResults' pr_curve, p_curve, r_curve). Each file is drawn
/// under its own try_plot: a failure is a warning naming that file, and the others are still drawn.
void plot_curves(const DetectionResults& r, const std::vector<std::string>& names, const std::string& dir);

/// confusion_matrix.png (counts) and confusion_matrix_normalized.png (each true-class column
/// divided by its sum) in `dir`, each under its own try_plot.
void plot_confusion_matrix(const ConfusionMatrix& m, const std::vector<std::string>& names, const std::string& dir);

}  // namespace adept::models::yolo::detail
