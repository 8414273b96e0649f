// Balanced subsets of a detection dataset: a per-class histogram, a deterministic greedy selection
// with per-class caps and minimums, and writing the selection as a YOLO-format dataset.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "adept/vision/labels.h"

namespace adept::vision {

/// Per-class counts over a set of images.
struct ClassHistogram {
  std::vector<int64_t> instances;  ///< boxes of class k
  std::vector<int64_t> images;     ///< images holding at least one box of class k
  int64_t total_images = 0;
  int64_t backgrounds = 0;  ///< images without boxes
};

/// The histogram of all images, or of `labels[i]` for i in `indices`. IndexError for a class id
/// outside [0, nc) or an index outside labels.
ClassHistogram class_histogram(const std::vector<ImageLabels>& labels, int64_t nc);
ClassHistogram class_histogram(const std::vector<ImageLabels>& labels, int64_t nc, const std::vector<int64_t>& indices);

struct SubsetOptions {
  int64_t max_per_class = -1;  ///< cap on the instances of each class; -1: no cap
  int64_t min_per_class = 0;   ///< instances each class should reach where the data has them
  uint64_t seed = 0;           ///< tie-breaking order of images (the selection is a function of it)
};

struct SubsetSelection {
  std::vector<int64_t> indices;  ///< selected images, ascending
  ClassHistogram before, after;
  std::vector<int64_t> below_min;  ///< classes left under min_per_class (the data has too few)
  std::vector<int64_t> over_cap;   ///< classes over max_per_class, carried by images a minimum needed
};

/// Greedy balanced selection. Images with boxes are visited rarest class first (key: the smallest
/// total instance count among the classes an image holds; then fewer boxes first; remaining ties
/// in an order shuffled by `seed`).
/// An image is taken when it holds a class still below min_per_class, or when taking it keeps
/// every class it holds within max_per_class. So every class reaches min(min_per_class, its
/// total), and a cap is exceeded only by images a minimum needed (reported in over_cap).
/// Background images are then added in the source's proportion (round(taken * backgrounds /
/// labelled images)), in the seeded order. ValueError for min > max (when max >= 0) or
/// negative values.
SubsetSelection select_balanced_subset(const std::vector<ImageLabels>& labels, int64_t nc,
                                       const SubsetOptions& options);

/// Writes `labels[i]` for i in `indices` as a YOLO dataset under `out_dir`:
/// images/<split>/<file> (hard links, or copies where linking fails or `copy_images`),
/// labels/<split>/<stem>.txt (none for backgrounds), and data.yaml (train and val =
/// images/<split>, nc, names; no `path`, so it resolves to the YAML's folder). Clashing file names
/// get a numeric prefix. ValueError when images/<split> or labels/<split> already exist (unless
/// `overwrite`, which replaces them) or `out_dir` holds one of the source images; IOError when a
/// file cannot be written.
void write_yolo_subset(const std::vector<ImageLabels>& labels, const std::vector<int64_t>& indices,
                       const std::vector<std::string>& names, const std::string& out_dir,
                       const std::string& split = "train", bool copy_images = false, bool overwrite = false);

/// A table of per-class instances and images before and after, with totals (for printing).
std::string format_histogram(const std::vector<std::string>& names, const ClassHistogram& before,
                             const ClassHistogram& after);

}  // namespace adept::vision
