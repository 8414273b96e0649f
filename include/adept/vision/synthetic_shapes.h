// The built-in detection dataset: synthetic images of coloured shapes on varied backgrounds,
// generated deterministically from a seed on first use, so `adept train` works with no download.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "adept/vision/transforms.h"

namespace adept::vision {

/// What to generate. The defaults are the built-in dataset (its scene options tuned with
/// bench/yolo/tune_builtin.sh, so that yolo11n learns it in a few minutes of CPU training;
/// bench/results/shapes_tuning_adept_xeon-16cpu.json).
struct SyntheticShapesOptions {
  int64_t train_images = 1000;  ///< images of the train split (>= 1)
  int64_t val_images = 200;     ///< images of the val split (>= 1)
  int imgsz = 160;              ///< long side of every image, pixels (32 .. 4096)
  uint64_t seed = 0;            ///< every pixel and label is a function of (seed, split, index)
  int max_objects = 5;          ///< shapes attempted per image: 1 .. max_objects, drawn uniformly (1 .. 100)
  double min_size = 0.2;        ///< smallest shape diameter, as a fraction of the image's short side
  double max_size = 0.6;        ///< largest (sizes are log-uniform; 0.01 <= min_size <= max_size <= 1)
  double clutter = 0.3;         ///< probability that an image has clutter (lines, scribbles, arcs), [0, 1]
};

/// The class names, in class-id order: circle, square, triangle, star, hexagon, cross.
std::vector<std::string> synthetic_shapes_names();

/// Where the built-in dataset lives: $ADEPT_DATASETS_DIR/shapes-v2, else
/// $XDG_CACHE_HOME/adept/datasets/shapes-v2, else ~/.cache/adept/datasets/shapes-v2.
std::string default_synthetic_shapes_root();

/// Image `index` of `split` ("train" or "val") as ensure_synthetic_shapes writes it, before JPEG
/// encoding: (H, W, 3) uint8 BGR with max(H, W) = imgsz (70% square, the others 4:3 to 5:3, either
/// orientation); boxes (n, 4) float32 x1, y1, x2, y2 in pixels (edge coordinates: the image spans
/// [0, W] x [0, H]), tight around the visible part of each shape (measured on a 4x supersampled
/// coverage map, so within 1/4 px of the drawn geometry, clipped to the image); cls (n,) float32.
///
/// Every image: a background (solid, linear gradient, smooth blotches or grain), for a fraction
/// `clutter` of the images 1 .. 6 strokes that are not objects (lines, scribbles, arcs), then
/// 1 .. max_objects shapes (about 8% of images have none) of random class, size (min_size to
/// max_size of the short side, log-uniform), rotation and colour (contrasting with what lies under
/// it), some with an outline, occluding each other only while every labelled shape keeps >= 70% of
/// its area visible (and >= 70% inside the image; a shape that cannot be placed so after 25 tries is
/// left out); then pixel noise and, for some images, a light blur. Random draws come from SplitMix64 seeded by (seed, split, index), and
/// pixels are computed in integer arithmetic, so the result does not depend on the machine.
/// ValueError for a split other than train/val, index outside [0, images of the split) or invalid
/// options.
LabeledImage synthetic_shapes_image(const SyntheticShapesOptions& options, const std::string& split, int64_t index);

/// Makes sure the dataset of `options` exists under `root` ("" = default_synthetic_shapes_root())
/// and returns the path of its data.yaml. Layout (Ultralytics'): images/{train,val}/NNNNNN.jpg,
/// labels/{train,val}/NNNNNN.txt (no file for an image without shapes), data.yaml (path: .,
/// train, val, nc, names) and shapes.json (the options and file counts).
///
/// The dataset at `root` is used when shapes.json matches `options` and every file it lists is
/// there; otherwise it is generated (logged through spdlog; a few seconds) into a temporary
/// sibling folder `<root>.tmp-<host>-<pid>-<n>` and renamed into place, so a killed generation
/// never leaves a folder that looks complete, and of two processes generating at once the first
/// rename wins and the other discards its copy. A previous invalid folder at `root` is replaced;
/// temporary folders left by dead processes of this host are removed.
/// ValueError for invalid options; IOError when the folder cannot be written.
std::string ensure_synthetic_shapes(const std::string& root = "", const SyntheticShapesOptions& options = {});

}  // namespace adept::vision
