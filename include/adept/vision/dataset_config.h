// Detection dataset descriptions: an Ultralytics-style dataset YAML (or a plain dataset folder)
// resolved into class names and, per split, the image folders, image lists or COCO JSON files.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace adept::vision {

/// One entry of a split, with its path made absolute.
struct SplitSource {
  enum class Kind {
    ImageDir,   ///< a folder searched recursively for images; labels by img2label_path
    ImageList,  ///< a .txt file with one image path a line (relative ones: to the .txt's folder)
    ImageFile,  ///< a single image
    CocoJson,   ///< a COCO instances JSON; images under `images_dir`
  };
  Kind kind = Kind::ImageDir;
  std::string path;
  std::string images_dir;  ///< CocoJson only: the folder the JSON's `file_name`s are relative to
};

/// A dataset: class names and the sources of each split ("train", "val", optionally "test").
struct DatasetConfig {
  std::string source;  ///< the YAML file or folder it was loaded from
  std::string root;    ///< the dataset root (`path`), absolute
  std::vector<std::string> names;  ///< class names; class id k is names[k]
  std::map<std::string, std::vector<SplitSource>> splits;

  int64_t nc() const { return static_cast<int64_t>(names.size()); }
  /// The sources of `split`; ValueError naming the file and the missing key.
  const std::vector<SplitSource>& split(const std::string& name) const;
};

/// Loads a dataset description (Ultralytics' check_det_dataset rules, minus downloads):
///
/// * A YAML file with keys
///   - `path`: the root; relative to the YAML's folder; default: the YAML's folder.
///   - `train`, `val` (required), `test` (optional): each a path (relative to the root) or a list
///     of paths. A path is a folder of images (searched recursively), a `.txt` list of images, a
///     single image, or a COCO instances `.json` file. A COCO split may also be written as a map
///     `{annotations: <json>, images: <folder>}`; for a bare `.../annotations/instances_<name>.json`
///     (or `<name>.json`) the images are in `<root>/images/<name>/` when that folder exists, else
///     in `<root>/<name>/` (the official COCO layout), where `<root>` is the JSON folder's parent.
///   - `names`: a list, or a map {id: name} with ids 0 .. n-1; may be omitted when `nc` is given
///     (names become "class0" ...) or when a split is COCO JSON (names from its categories,
///     ordered by category id).
///   - `nc` (optional): must equal the number of names.
/// * A folder: its `data.yaml` when present; otherwise `images/` (+ `labels/`) and `classes.txt`
///   (one name a line). Splits: a sub-folder of `images/` whose name starts with the split name
///   (`images/train2017`, `images/val` ...), else `images/` itself for train and val (coco128).
///
/// Errors: IOError for a missing or unreadable file; ValueError for malformed YAML, a missing or
/// malformed key, or names that disagree with `nc`; each names the file and the key.
DatasetConfig load_dataset_config(const std::string& path);

}  // namespace adept::vision
