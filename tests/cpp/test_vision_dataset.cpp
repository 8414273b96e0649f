// Detection datasets (adept/vision/dataset_config.h, detection_dataset.h, detection_collate.h):
// dataset YAML variants, YOLO label parsing with malformed lines and corrupt images, COCO JSON
// conversion, the label cache (reuse, read-only folders), samples with and without augmentation
// (determinism per (seed, epoch, index)), collation, and coco128 end to end.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "adept/adept.h"
#include "adept/data.h"
#include "adept/vision/dataset_config.h"
#include "adept/vision/detection_collate.h"
#include "adept/vision/detection_dataset.h"
#include "vision/label_cache.h"
#include "vision/yolo_labels.h"
#include "vision_test_util.h"

namespace {

using namespace adept;
using namespace adept::vision;
using namespace adept::vision::testing;

// ---- helpers ----

/// A 3-class YOLO dataset: root/images/{train,val}/*.bmp, root/labels/..., root/data.yaml.
struct TinyYolo {
  TempDir dir;
  TinyYolo() {
    write_bmp(dir / "images/train/a.bmp", 64, 48, 1);
    write_file(dir / "labels/train/a.txt", "0 0.5 0.5 0.25 0.5\n2 0.25 0.25 0.1 0.2\n");
    write_bmp(dir / "images/train/b.bmp", 40, 80, 2);
    write_file(dir / "labels/train/b.txt", "1 0.5 0.4 0.5 0.3\n");
    write_bmp(dir / "images/train/c.bmp", 32, 32, 3);  // background: no label file
    write_bmp(dir / "images/val/d.bmp", 50, 50, 4);
    write_file(dir / "labels/val/d.txt", "2 0.5 0.5 0.5 0.5\n");
    write_file(dir / "data.yaml", "path: .\ntrain: images/train\nval: images/val\nnames: [cat, dog, bird]\n");
  }
};

std::vector<float> values(const Tensor& t) {
  std::vector<float> out;
  for (const Scalar& s : t.contiguous().tolist_flat()) out.push_back(static_cast<float>(s.to_double()));
  return out;
}

// Runs `fn` as the DataLoader runs get(): with this thread's WorkerInfo set.
template <class F> auto as_worker(int worker, int num_workers, uint64_t seed, int64_t epoch, int64_t index, F fn) {
  data::detail::set_worker_info(data::WorkerInfo{worker, num_workers, seed, epoch, index});
  auto r = fn();
  data::detail::set_worker_info(std::nullopt);
  return r;
}

bool same_sample(const data::Sample& a, const data::Sample& b) {
  for (const auto& [k, t] : a) {
    const Tensor& u = b.at(k);
    if (t.sizes() != u.sizes() || t.dtype() != u.dtype()) return false;
    if (t.numel() && std::memcmp(t.contiguous().data_ptr(), u.contiguous().data_ptr(), t.numel() * t.element_size()))
      return false;
  }
  return true;
}

void expect_valid_sample(const data::Sample& s, int imgsz, int64_t index) {
  EXPECT_EQ(s.at("img").sizes(), (Shape{3, imgsz, imgsz}));
  EXPECT_EQ(s.at("img").dtype(), kUInt8);
  EXPECT_TRUE(s.at("img").is_contiguous());
  const int64_t n = s.at("bboxes").size(0);
  EXPECT_EQ(s.at("bboxes").sizes(), (Shape{n, 4}));
  EXPECT_EQ(s.at("cls").sizes(), (Shape{n, 1}));
  EXPECT_EQ(s.at("bboxes").dtype(), kFloat32);
  EXPECT_EQ(s.at("ori_shape").sizes(), (Shape{2}));
  EXPECT_EQ(s.at("ori_shape").dtype(), kInt64);
  EXPECT_EQ(s.at("ratio_pad").sizes(), (Shape{3}));
  EXPECT_EQ(s.at("index").item<int64_t>(), index);
  const std::vector<float> b = values(s.at("bboxes"));
  for (size_t k = 0; k < b.size(); ++k) {
    EXPECT_GE(b[k], 0.f);
    EXPECT_LE(b[k], 1.f);
    if (k % 4 >= 2) {
      EXPECT_GT(b[k], 0.f) << "degenerate box kept";
    }
  }
}

// Per-class instance counts read straight from the label files (the test's own parser).
std::map<int, int> count_label_files(const fs::path& labels_dir, int& files) {
  std::map<int, int> counts;
  files = 0;
  for (const auto& e : fs::directory_iterator(labels_dir)) {
    ++files;
    std::ifstream in(e.path());
    int cls;
    double x, y, w, h;
    while (in >> cls >> x >> y >> w >> h) ++counts[cls];
  }
  return counts;
}

// ---- dataset YAML ----

TEST(VisionConfig, NamesAsListOrMapGiveTheSameClasses) {
  TempDir d;
  write_file(d / "list.yaml", "train: a\nval: a\nnames: [cat, dog]\n");
  write_file(d / "map.yaml", "train: a\nval: a\nnames:\n  1: dog\n  0: cat\nnc: 2\n");
  EXPECT_EQ(load_dataset_config((d / "list.yaml").string()).names, (std::vector<std::string>{"cat", "dog"}));
  EXPECT_EQ(load_dataset_config((d / "map.yaml").string()).names, (std::vector<std::string>{"cat", "dog"}));
  write_file(d / "nc_only.yaml", "train: a\nval: a\nnc: 3\n");
  EXPECT_EQ(load_dataset_config((d / "nc_only.yaml").string()).names,
            (std::vector<std::string>{"class0", "class1", "class2"}));
}

TEST(VisionConfig, BadNamesNcAndMissingKeysRaiseNamingFileAndKey) {
  TempDir d;
  auto expect_error = [&](const std::string& yaml, const std::string& key, auto error_type) {
    write_file(d / "bad.yaml", yaml);
    try {
      load_dataset_config((d / "bad.yaml").string());
      ADD_FAILURE() << "no error for:\n" << yaml;
    } catch (const decltype(error_type)& e) {
      EXPECT_NE(std::string(e.what()).find("bad.yaml"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  };
  expect_error("train: a\nval: a\nnames: [cat, dog]\nnc: 3\n", "nc", ValueError(""));
  expect_error("train: a\nval: a\nnames: {0: cat, 2: dog}\n", "names", ValueError(""));
  expect_error("train: a\nnames: [cat]\n", "val", ValueError(""));
  expect_error("val: a\nnames: [cat]\n", "train", ValueError(""));
  expect_error("train: a\nval: a\n", "names", ValueError(""));
  expect_error("train: [a\nval: b\n", "malformed", ValueError(""));
  EXPECT_THROW(load_dataset_config((d / "missing.yaml").string()), IOError);
  EXPECT_THROW(load_dataset_config((d / "no_such_folder").string()), IOError);
}

TEST(VisionConfig, RelativePathIsTakenFromTheYamlFolder) {
  TempDir d;
  write_file(d / "cfg/sub/data.yaml", "path: ../../ds\ntrain: images/train\nval: [images/val, extra.txt]\n"
                                      "test: /abs/images\nnames: [a]\n");
  const DatasetConfig c = load_dataset_config((d / "cfg/sub/data.yaml").string());
  EXPECT_EQ(c.root, (d.path / "ds").string());
  ASSERT_EQ(c.split("train").size(), 1u);
  EXPECT_EQ(c.split("train")[0].path, (d.path / "ds/images/train").string());
  EXPECT_EQ(c.split("train")[0].kind, SplitSource::Kind::ImageDir);
  ASSERT_EQ(c.split("val").size(), 2u);
  EXPECT_EQ(c.split("val")[1].kind, SplitSource::Kind::ImageList);
  EXPECT_EQ(c.split("test")[0].path, "/abs/images");
  EXPECT_THROW(c.split("nope"), ValueError);
  // Without `path`, the YAML's folder is the root.
  write_file(d / "x/data.yaml", "train: images\nval: images\nnames: [a]\n");
  EXPECT_EQ(load_dataset_config((d / "x/data.yaml").string()).split("train")[0].path, (d.path / "x/images").string());
}

TEST(VisionConfig, TxtListOfImagesResolvesAgainstTheListFolder) {
  TinyYolo t;
  write_file(t.dir / "lists/train.txt", "../images/train/b.bmp\n" + (t.dir / "images/train/a.bmp").string() +
                                            "\n\n./../images/val/d.bmp\n");
  write_file(t.dir / "list.yaml", "train: lists/train.txt\nval: images/val\nnames: [cat, dog, bird]\n");
  DetectionDataset ds((t.dir / "list.yaml").string(), "train");
  ASSERT_EQ(ds.size(), 3);
  std::vector<std::string> stems;
  for (const auto& f : ds.im_files()) stems.push_back(fs::path(f).stem().string());
  EXPECT_EQ(stems, (std::vector<std::string>{"a", "b", "d"}));  // sorted paths
  EXPECT_EQ(ds.labels()[0].boxes.size(), 2u);
  EXPECT_EQ(ds.labels()[2].boxes[0].cls, 2);  // d's labels found through images/ -> labels/
}

TEST(VisionConfig, FolderWithClassesTxtAndSplitSubfolders) {
  TinyYolo t;
  fs::remove(t.dir / "data.yaml");
  write_file(t.dir / "classes.txt", "cat\ndog\nbird\n\n");
  const DatasetConfig c = load_dataset_config(t.dir.path.string());
  EXPECT_EQ(c.names, (std::vector<std::string>{"cat", "dog", "bird"}));
  EXPECT_EQ(c.split("train")[0].path, (t.dir / "images/train").string());
  EXPECT_EQ(c.split("val")[0].path, (t.dir / "images/val").string());
  // A data.yaml in the folder wins.
  write_file(t.dir / "data.yaml", "train: images/val\nval: images/val\nnames: [x, y, z]\n");
  EXPECT_EQ(load_dataset_config(t.dir.path.string()).names[0], "x");
}

// ---- YOLO labels ----

TEST(VisionLabels, Img2LabelReplacesTheLastImagesFolder) {
  EXPECT_EQ(vision::detail::img2label_path("/d/images/x/images/a.b.jpg"), "/d/images/x/labels/a.b.txt");
  EXPECT_EQ(vision::detail::img2label_path("/d/imgs/a.png"), "/d/imgs/a.txt");
}

TEST(VisionLabels, MalformedLinesAndCorruptImagesAreSkippedCountedAndNamed) {
  TinyYolo t;
  write_file(t.dir / "labels/train/a.txt",
             "0 0.5 0.5 0.25 0.5\n"     // 1 ok
             "1 0.5 0.5 0.2\n"          // 2 four fields
             "x 0.5 0.5 0.2 0.2\n"      // 3 not a number
             "3 0.5 0.5 0.2 0.2\n"      // 4 class >= nc
             "-1 0.5 0.5 0.2 0.2\n"     // 5 negative class
             "0 1.5 0.5 0.2 0.2\n"      // 6 outside [0, 1]
             "0 0.5 0.5 0 0.2\n"        // 7 zero width
             "1.5 0.5 0.5 0.2 0.2\n"    // 8 fractional class
             "\n"                       // 9 blank: ignored
             "0 0.5 0.5 0.25 0.5\n"     // 10 duplicate of 1
             "1 1.005 0.5 0.2 0.2\n");  // 11 within tolerance: kept, clipped
  write_file(t.dir / "images/train/garbage.png", std::string(3000, 'z'));
  std::string jpeg_head = "\xff\xd8\xff\xe0";
  jpeg_head += std::string(500, '\x10');
  write_file(t.dir / "images/train/truncated.jpg", jpeg_head);
  write_bmp(t.dir / "images/train/tiny.bmp", 5, 5);  // under 10 px
  DetectionDataset ds((t.dir / "data.yaml").string(), "train");
  const ScanSummary& s = ds.summary();
  EXPECT_EQ(s.images, 3);
  EXPECT_EQ(s.corrupt, 3);
  EXPECT_EQ(s.bad_lines, 7);
  EXPECT_EQ(s.duplicates, 1);
  EXPECT_EQ(s.backgrounds, 1);
  EXPECT_EQ(ds.size(), 3);
  ASSERT_EQ(s.warnings.size(), 3u + 7u + 1u);
  for (int line : {2, 3, 4, 5, 6, 7, 8}) {
    const std::string tag = (t.dir / "labels/train/a.txt").string() + ":" + std::to_string(line) + ":";
    EXPECT_EQ(std::count_if(s.warnings.begin(), s.warnings.end(),
                            [&](const std::string& w) { return w.find(tag) != std::string::npos; }),
              1)
        << tag;
  }
  for (const char* f : {"garbage.png", "truncated.jpg", "tiny.bmp"})
    EXPECT_EQ(std::count_if(s.warnings.begin(), s.warnings.end(),
                            [&](const std::string& w) { return w.find(f) != std::string::npos; }),
              1)
        << f;
  const auto& a = ds.labels()[0].boxes;
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0], (BoxLabel{0, 0.5f, 0.5f, 0.25f, 0.5f}));
  EXPECT_EQ(a[1].cls, 1);
  EXPECT_NEAR(a[1].cx + a[1].w / 2, 1.0, 1e-6);  // clipped at the right edge
  EXPECT_NEAR(a[1].w, 1 - (1.005 - 0.1), 1e-6);
  EXPECT_EQ(s.str().find("3 images, 1 backgrounds, 3 corrupt images skipped, 7 bad label lines skipped"), 0u)
      << s.str();
  // Every sample still loads.
  for (int64_t i = 0; i < ds.size(); ++i) expect_valid_sample(ds.get(i), 640, i);
}

TEST(VisionLabels, EmptyOrMissingLabelFileIsBackground) {
  TinyYolo t;
  write_file(t.dir / "labels/train/b.txt", "\n \n");
  DetectionDataset ds((t.dir / "data.yaml").string(), "train", {.imgsz = 64});
  EXPECT_EQ(ds.summary().backgrounds, 2);
  EXPECT_EQ(ds.summary().bad_lines, 0);
  const data::Sample s = ds.get(2);
  EXPECT_EQ(s.at("bboxes").sizes(), (Shape{0, 4}));
  EXPECT_EQ(s.at("cls").sizes(), (Shape{0, 1}));
}

TEST(VisionLabels, NoImagesOrMissingFolderIsAnIOError) {
  TinyYolo t;
  write_file(t.dir / "empty.yaml", "train: images/none\nval: images/val\nnames: [a, b, c]\n");
  EXPECT_THROW(DetectionDataset((t.dir / "empty.yaml").string(), "train"), IOError);
  fs::create_directories(t.dir / "images/none");
  EXPECT_THROW(DetectionDataset((t.dir / "empty.yaml").string(), "train"), IOError);
}

// ---- COCO JSON ----

TEST(VisionCoco, ConvertsBoxesAndCategoriesAsComputedByHand) {
  TempDir d;
  write_bmp(d / "images/train/p.bmp", 200, 100, 1);
  write_bmp(d / "images/train/q.bmp", 60, 30, 2);
  write_file(d / "annotations/instances_train.json", R"({
    "images": [{"id": 7, "file_name": "q.bmp", "width": 60, "height": 30},
               {"id": 3, "file_name": "p.bmp", "width": 200, "height": 100}],
    "categories": [{"id": 9, "name": "zebra"}, {"id": 2, "name": "ant"}, {"id": 5, "name": "bee"}],
    "annotations": [
      {"id": 1, "image_id": 3, "category_id": 5, "bbox": [10, 20, 50, 40], "iscrowd": 0},
      {"id": 2, "image_id": 3, "category_id": 9, "bbox": [150, 0, 50, 100]},
      {"id": 3, "image_id": 3, "category_id": 2, "bbox": [0, 0, 100, 100], "iscrowd": 1},
      {"id": 4, "image_id": 3, "category_id": 2, "bbox": [5, 5, 0, 10]},
      {"id": 5, "image_id": 3, "category_id": 4, "bbox": [5, 5, 10, 10]},
      {"id": 6, "image_id": 99, "category_id": 2, "bbox": [5, 5, 10, 10]}]})");
  write_file(d / "coco.yaml", "train: annotations/instances_train.json\nval: annotations/instances_train.json\n");
  const DatasetConfig c = load_dataset_config((d / "coco.yaml").string());
  EXPECT_EQ(c.names, (std::vector<std::string>{"ant", "bee", "zebra"}));  // sorted by category id
  EXPECT_EQ(c.split("train")[0].images_dir, (d / "images/train").string());
  DetectionDataset ds(c, "train", {.imgsz = 64});
  ASSERT_EQ(ds.size(), 2);
  EXPECT_EQ(fs::path(ds.im_files()[0]).filename(), "p.bmp");  // sorted by path
  const auto& p = ds.labels()[0];
  EXPECT_EQ(p.height, 100);
  EXPECT_EQ(p.width, 200);
  ASSERT_EQ(p.boxes.size(), 2u);
  // bee (id 5 -> class 1): x 10..60 of 200, y 20..60 of 100.
  EXPECT_EQ(p.boxes[0].cls, 1);
  EXPECT_FLOAT_EQ(p.boxes[0].cx, 0.175f);
  EXPECT_FLOAT_EQ(p.boxes[0].cy, 0.4f);
  EXPECT_FLOAT_EQ(p.boxes[0].w, 0.25f);
  EXPECT_FLOAT_EQ(p.boxes[0].h, 0.4f);
  // zebra (id 9 -> class 2): x 150..200, y 0..100.
  EXPECT_EQ(p.boxes[1], (BoxLabel{2, 0.875f, 0.5f, 0.25f, 1.0f}));
  EXPECT_TRUE(ds.labels()[1].boxes.empty());  // q: no annotations = background
  EXPECT_EQ(ds.summary().backgrounds, 1);
  EXPECT_EQ(ds.summary().bad_lines, 3);  // zero width, unknown category, unknown image
  // The crowd annotation is skipped silently; the others are named.
  for (const char* id : {"annotation 4", "annotation 5"})
    EXPECT_TRUE(std::any_of(ds.summary().warnings.begin(), ds.summary().warnings.end(),
                            [&](const std::string& w) { return w.find(id) != std::string::npos; }))
        << id;
  // The cache of a COCO split sits beside the JSON.
  EXPECT_EQ(ds.summary().cache_file, (d / "annotations/instances_train.adept.cache").string());
  EXPECT_TRUE(DetectionDataset(c, "train").summary().from_cache);
}

TEST(VisionCoco, ExplicitImagesFolderAndCategoryCountMismatch) {
  TempDir d;
  write_bmp(d / "pics/p.bmp", 20, 20);
  write_file(d / "ann.json", R"({"images": [{"id": 1, "file_name": "p.bmp", "width": 20, "height": 20}],
    "categories": [{"id": 1, "name": "a"}], "annotations": []})");
  write_file(d / "ok.yaml", "train: {annotations: ann.json, images: pics}\nval: {annotations: ann.json, images: pics}\n");
  DetectionDataset ds((d / "ok.yaml").string(), "val", {.imgsz = 32});
  EXPECT_EQ(ds.size(), 1);
  write_file(d / "bad.yaml", "train: {annotations: ann.json, images: pics}\nval: ann.json\nnames: [a, b]\n");
  EXPECT_THROW(DetectionDataset((d / "bad.yaml").string(), "train"), ValueError);
  write_file(d / "garbage.json", "{ not json");
  write_file(d / "g.yaml", "train: {annotations: garbage.json, images: pics}\nval: x\nnames: [a]\n");
  EXPECT_THROW(DetectionDataset((d / "g.yaml").string(), "train"), ValueError);
}

TEST(VisionCoco, Coco128ImagesRoundTripToTheirYoloLabels) {
  ADEPT_SKIP_WITHOUT_COCO128();
  const fs::path src = coco128_source();
  TempDir d;
  const std::vector<std::string> stems = {"000000000009", "000000000025", "000000000030", "000000000250",
                                          "000000000034", "000000000036"};
  link_coco128(d / "yolo");
  DetectionDataset yolo((d / "yolo").string(), "train");
  std::ostringstream images, anns;
  int ann_id = 0;
  std::map<std::string, std::vector<BoxLabel>> expected;
  for (size_t i = 0; i < stems.size(); ++i) {
    fs::create_directories(d / "images/val");
    fs::create_symlink(src / "images" / (stems[i] + ".jpg"), d / "images/val" / (stems[i] + ".jpg"));
    int64_t h = 0, w = 0;
    for (const auto& l : yolo.labels())
      if (fs::path(l.im_file).stem() == stems[i]) h = l.height, w = l.width, expected[stems[i]] = l.boxes;
    ASSERT_GT(h, 0);
    images << (i ? "," : "") << fmt::format(R"({{"id": {}, "file_name": "{}.jpg", "width": {}, "height": {}}})", i + 1,
                                            stems[i], w, h);
    for (const BoxLabel& b : expected[stems[i]]) {
      anns << (ann_id ? "," : "");
      ++ann_id;
      anns << fmt::format(R"({{"id": {}, "image_id": {}, "category_id": {}, "bbox": [{}, {}, {}, {}], "iscrowd": 0}})",
                          ann_id, i + 1, 2 * b.cls + 1, (b.cx - b.w / 2) * w, (b.cy - b.h / 2) * h, b.w * w, b.h * h);
    }
  }
  std::ostringstream cats;
  for (int k = 0; k < 80; ++k) cats << (k ? "," : "") << fmt::format(R"({{"id": {}, "name": "c{}"}})", 2 * k + 1, k);
  write_file(d / "annotations/instances_val.json", fmt::format(R"({{"images": [{}], "categories": [{}], "annotations": [{}]}})",
                                                                 images.str(), cats.str(), anns.str()));
  write_file(d / "data.yaml", "train: annotations/instances_val.json\nval: annotations/instances_val.json\n");
  DetectionDataset coco((d / "data.yaml").string(), "val");
  ASSERT_EQ(coco.size(), 6);
  EXPECT_EQ(coco.summary().backgrounds, 1);  // 000000000250 has no boxes
  for (const auto& l : coco.labels()) {
    const auto& want = expected[fs::path(l.im_file).stem().string()];
    ASSERT_EQ(l.boxes.size(), want.size()) << l.im_file;
    for (size_t k = 0; k < want.size(); ++k) {
      EXPECT_EQ(l.boxes[k].cls, want[k].cls);
      EXPECT_NEAR(l.boxes[k].cx, want[k].cx, 1e-4);
      EXPECT_NEAR(l.boxes[k].cy, want[k].cy, 1e-4);
      EXPECT_NEAR(l.boxes[k].w, want[k].w, 1e-4);
      EXPECT_NEAR(l.boxes[k].h, want[k].h, 1e-4);
    }
  }
}

// ---- label cache ----

TEST(VisionCache, UnchangedFilesAreReadFromTheCacheChangedOnesRescanned) {
  TinyYolo t;
  DetectionDataset first((t.dir / "data.yaml").string(), "train");
  EXPECT_FALSE(first.summary().from_cache);
  EXPECT_EQ(first.summary().cache_file, (t.dir / "labels/train.adept.cache").string());
  DetectionDataset second((t.dir / "data.yaml").string(), "train");
  EXPECT_TRUE(second.summary().from_cache);
  ASSERT_EQ(second.size(), first.size());
  for (int64_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(second.labels()[i].boxes, first.labels()[i].boxes);
    EXPECT_EQ(second.labels()[i].height, first.labels()[i].height);
    EXPECT_EQ(second.im_files()[i], first.im_files()[i]);
  }
  // A changed label file (size and mtime differ) is parsed again.
  write_file(t.dir / "labels/train/b.txt", "1 0.5 0.4 0.5 0.3\n0 0.1 0.1 0.1 0.1\n");
  DetectionDataset third((t.dir / "data.yaml").string(), "train");
  EXPECT_FALSE(third.summary().from_cache);
  EXPECT_EQ(third.labels()[1].boxes.size(), 2u);
  // A new label file for a background image too.
  write_file(t.dir / "labels/train/c.txt", "2 0.5 0.5 0.5 0.5\n");
  EXPECT_FALSE(DetectionDataset((t.dir / "data.yaml").string(), "train").summary().from_cache);
  // A damaged cache is ignored, not trusted.
  write_file(t.dir / "labels/train.adept.cache", "{\"version\": 1, \"key\": ");
  DetectionDataset fourth((t.dir / "data.yaml").string(), "train");
  EXPECT_FALSE(fourth.summary().from_cache);
  EXPECT_EQ(fourth.summary().backgrounds, 0);
}

TEST(VisionCache, ReadOnlyDatasetFolderPutsTheCacheInTheUserCacheDir) {
  TinyYolo t;
  TempDir xdg;
  ScopedEnv env("XDG_CACHE_HOME", xdg.path.string());
  fs::permissions(t.dir / "labels", fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                  fs::perm_options::remove);
  DetectionDataset first((t.dir / "data.yaml").string(), "train");
  const std::string cache = first.summary().cache_file;
  EXPECT_EQ(cache.rfind((xdg / "adept/labels/").string(), 0), 0u) << cache;
  EXPECT_TRUE(fs::exists(cache));
  EXPECT_FALSE(fs::exists(t.dir / "labels/train.adept.cache"));
  EXPECT_EQ(cache, vision::detail::user_cache_file((t.dir / "labels/train.adept.cache").string()));
  DetectionDataset second((t.dir / "data.yaml").string(), "train");
  EXPECT_TRUE(second.summary().from_cache);
  EXPECT_EQ(second.summary().cache_file, cache);
}

TEST(VisionCache, UnwritableEverywhereStillLoads) {
  TinyYolo t;
  ScopedEnv env("XDG_CACHE_HOME", (t.dir / "data.yaml/not_a_dir").string());  // under a file: cannot be created
  fs::permissions(t.dir / "labels", fs::perms::all, fs::perm_options::remove);
  fs::permissions(t.dir / "labels", fs::perms::owner_read | fs::perms::owner_exec, fs::perm_options::add);
  DetectionDataset ds((t.dir / "data.yaml").string(), "train");
  EXPECT_EQ(ds.size(), 3);
  EXPECT_EQ(ds.summary().cache_file, "");
}

// ---- samples ----

TEST(VisionDataset, ValidationSampleIsALetterboxOfTheImageWithItsBoxes) {
  TinyYolo t;
  DetectionDataset ds((t.dir / "data.yaml").string(), "train", {.imgsz = 96});
  // b.bmp: 40 wide, 80 high -> long side 96: gain 1.2 -> 48 x 96, padded 24 left.
  const data::Sample s = ds.get(1);
  expect_valid_sample(s, 96, 1);
  EXPECT_EQ(values(s.at("ori_shape")), (std::vector<float>{80, 40}));
  const std::vector<float> rp = values(s.at("ratio_pad"));
  EXPECT_FLOAT_EQ(rp[0], 1.2f);
  EXPECT_FLOAT_EQ(rp[1], 24.f);
  EXPECT_FLOAT_EQ(rp[2], 0.f);
  // Box 1 0.5 0.4 0.5 0.3 of the 40 x 80 image: centre (20, 32) px -> (20 * 1.2 + 24, 32 * 1.2) of 96.
  const std::vector<float> b = values(s.at("bboxes"));
  EXPECT_NEAR(b[0], (20 * 1.2 + 24) / 96, 1e-5);
  EXPECT_NEAR(b[1], 32 * 1.2 / 96, 1e-5);
  EXPECT_NEAR(b[2], 20 * 1.2 / 96, 1e-5);
  EXPECT_NEAR(b[3], 24 * 1.2 / 96, 1e-5);
  EXPECT_EQ(values(s.at("cls")), (std::vector<float>{1}));
  // RGB: channel 0 of the output is the image's red (BMP/OpenCV: BGR), inside the unpadded part.
  const Tensor bgr = imread((t.dir / "images/train/b.bmp").string());
  const Tensor img = s.at("img");
  const LabeledImage resized = resize_long_side({bgr, zeros({0, 4}), zeros({0})}, 96);
  EXPECT_EQ(img.index({0, 10, 24 + 5}).item<int64_t>(), resized.image.index({10, 5, 2}).item<int64_t>());
  EXPECT_EQ(img.index({2, 10, 24 + 5}).item<int64_t>(), resized.image.index({10, 5, 0}).item<int64_t>());
  EXPECT_EQ(img.index({1, 10, 3}).item<int64_t>(), 114);  // padding
  EXPECT_THROW(ds.get(3), IndexError);
  EXPECT_THROW(ds.get(-1), IndexError);
}

TEST(VisionDataset, AugmentedSamplesDependOnlyOnSeedEpochAndIndex) {
  TinyYolo t;
  DetectionDatasetOptions o;
  o.imgsz = 64;
  o.augment = true;
  o.hyp.mosaic = 0.5;
  DetectionDataset ds((t.dir / "data.yaml").string(), "train", o);
  for (int64_t i = 0; i < ds.size(); ++i) {
    const data::Sample a = as_worker(0, 1, 42, 3, i, [&] { return ds.get(i); });
    const data::Sample b = as_worker(1, 4, 42, 3, i, [&] { return ds.get(i); });  // other worker, other count
    expect_valid_sample(a, 64, i);
    EXPECT_TRUE(same_sample(a, b)) << "index " << i;
    EXPECT_EQ(values(a.at("ratio_pad")), (std::vector<float>{1, 0, 0}));
  }
  int differ = 0;
  for (int64_t epoch = 0; epoch < 4; ++epoch) {
    const data::Sample a = as_worker(0, 1, 42, epoch, 0, [&] { return ds.get(0); });
    const data::Sample b = as_worker(0, 1, 42, epoch + 10, 0, [&] { return ds.get(0); });
    differ += !same_sample(a, b);
  }
  EXPECT_GE(differ, 3);
}

TEST(VisionDataset, CloseMosaicStopsBorrowingBoxesFromOtherImages) {
  TinyYolo t;
  DetectionDatasetOptions o;
  o.imgsz = 64;
  o.augment = true;
  o.hyp.mosaic = 1.0;
  o.hyp.scale = 0.0;  // keep the partners' boxes large enough to survive the affine
  o.hyp.translate = 0.0;
  DetectionDataset ds((t.dir / "data.yaml").string(), "train", o);
  const int64_t background = 2;  // c.bmp
  int with_boxes = 0;
  for (int64_t epoch = 0; epoch < 8; ++epoch)
    with_boxes += as_worker(0, 1, 7, epoch, background, [&] { return ds.get(background); }).at("bboxes").size(0) > 0;
  EXPECT_GT(with_boxes, 0) << "a mosaic should bring in the boxes of other images";
  ds.close_mosaic();
  EXPECT_FALSE(ds.mosaic());
  for (int64_t epoch = 0; epoch < 8; ++epoch) {
    const data::Sample s = as_worker(0, 1, 7, epoch, background, [&] { return ds.get(background); });
    expect_valid_sample(s, 64, background);
    EXPECT_EQ(s.at("bboxes").size(0), 0);
  }
}

TEST(VisionDataset, ImgszIsRoundedUpToTheStride) {
  TinyYolo t;
  DetectionDataset ds((t.dir / "data.yaml").string(), "val", {.imgsz = 70, .stride = 32});
  EXPECT_EQ(ds.options().imgsz, 96);
  EXPECT_EQ(ds.get(0).at("img").size(1), 96);
  EXPECT_THROW(DetectionDataset((t.dir / "data.yaml").string(), "val", {.imgsz = 0}), ValueError);
}

// ---- collate ----

data::Sample make_sample(int64_t index, const std::vector<std::array<float, 5>>& boxes, int64_t h = 8, int64_t w = 8) {
  const auto n = static_cast<int64_t>(boxes.size());
  Tensor cls = zeros({n, 1}), bb = zeros({n, 4});
  for (int64_t k = 0; k < n; ++k) {
    cls.data_ptr<float>()[k] = boxes[k][0];
    for (int j = 0; j < 4; ++j) bb.data_ptr<float>()[4 * k + j] = boxes[k][j + 1];
  }
  return data::Sample{{"img", full({3, h, w}, Scalar(index), kUInt8)},
                      {"cls", cls},
                      {"bboxes", bb},
                      {"ori_shape", tensor(std::vector<int64_t>{h * 2, w * 2})},
                      {"ratio_pad", tensor(std::vector<float>{0.5f, 1.f, 2.f})},
                      {"index", scalar_tensor(index, kInt64)}};
}

TEST(DetectionCollate, TargetsCarryTheBatchIndexAndKeepSampleOrder) {
  const data::Batch b = detection_collate({make_sample(5, {{1, .1f, .2f, .3f, .4f}, {2, .5f, .6f, .7f, .8f}}),
                                           make_sample(6, {}), make_sample(7, {{3, .9f, .8f, .7f, .6f}})});
  EXPECT_EQ(b.at("img").sizes(), (Shape{3, 3, 8, 8}));
  EXPECT_EQ(b.at("img").dtype(), kUInt8);
  EXPECT_EQ(b.at("img").index({2, 0, 0, 0}).item<int64_t>(), 7);
  EXPECT_EQ(b.at("targets").sizes(), (Shape{3, 6}));
  EXPECT_EQ(values(b.at("targets")), (std::vector<float>{0, 1, .1f, .2f, .3f, .4f, 0, 2, .5f, .6f, .7f, .8f,
                                                         2, 3, .9f, .8f, .7f, .6f}));
  EXPECT_EQ(b.at("ori_shape").sizes(), (Shape{3, 2}));
  EXPECT_EQ(b.at("ratio_pad").sizes(), (Shape{3, 3}));
  EXPECT_EQ(values(b.at("index")), (std::vector<float>{5, 6, 7}));
}

TEST(DetectionCollate, NoBoxesGivesA0x6Table) {
  const data::Batch b = detection_collate({make_sample(0, {}), make_sample(1, {})});
  EXPECT_EQ(b.at("targets").sizes(), (Shape{0, 6}));
  EXPECT_EQ(b.at("targets").dtype(), kFloat32);
}

TEST(DetectionCollate, BadInputsRaiseTypedErrorsNamingTheSample) {
  EXPECT_THROW(detection_collate({}), ValueError);
  try {
    detection_collate({make_sample(0, {}), make_sample(9, {}, 8, 16)});
    ADD_FAILURE();
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("sample 1 (dataset index 9)"), std::string::npos) << e.what();
  }
  data::Sample s = make_sample(0, {{1, .1f, .2f, .3f, .4f}});
  s.set("cls", zeros({2, 1}));
  EXPECT_THROW(detection_collate({s}), ShapeError);
  data::Sample missing = make_sample(0, {});
  data::Sample only_img{{"img", missing.at("img")}};
  EXPECT_THROW(detection_collate({only_img}), IndexError);
}

TEST(DetectionCollate, ToFloatImageScalesBy255) {
  const Tensor u = tensor(std::vector<int64_t>{0, 51, 255}).to(kUInt8);
  const Tensor f = to_float_image(u);
  EXPECT_EQ(f.dtype(), kFloat32);
  EXPECT_EQ(values(f), (std::vector<float>{0.f, 0.2f, 1.f}));
  EXPECT_THROW(to_float_image(f), DtypeError);
}

// ---- coco128 end to end ----

class VisionCoco128 : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (coco128_source().empty()) return;
    dir_ = new TempDir;
    link_coco128(dir_->path / "coco128");
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override { ADEPT_SKIP_WITHOUT_COCO128(); }
  static fs::path root() { return dir_->path / "coco128"; }
  static TempDir* dir_;
};
TempDir* VisionCoco128::dir_ = nullptr;

TEST_F(VisionCoco128, LoadsAll128ImagesWithTheLabelFilesCounts) {
  DetectionDataset ds(root().string(), "train");
  EXPECT_EQ(ds.size(), 128);
  EXPECT_EQ(ds.names().size(), 80u);
  EXPECT_EQ(ds.names()[0], "person");
  EXPECT_EQ(ds.summary().corrupt, 0);
  EXPECT_EQ(ds.summary().bad_lines, 0);
  EXPECT_EQ(ds.summary().backgrounds, 2);
  int files = 0;
  const std::map<int, int> want = count_label_files(coco128_source() / "labels", files);
  EXPECT_EQ(files, 126);
  std::map<int, int> got;
  int64_t boxes = 0;
  for (const auto& l : ds.labels()) {
    const std::string stem = fs::path(l.im_file).stem().string();
    if (stem == "000000000250" || stem == "000000000508") {
      EXPECT_TRUE(l.boxes.empty()) << stem;
    }
    EXPECT_GT(l.height, 0);
    for (const auto& b : l.boxes) ++got[static_cast<int>(b.cls)], ++boxes;
  }
  EXPECT_EQ(got, want);
  EXPECT_EQ(boxes, 929);
  EXPECT_EQ(got[0], 254);
  EXPECT_TRUE(DetectionDataset(root().string(), "val").summary().from_cache);  // val = train here
}

TEST_F(VisionCoco128, SamplesWithAndWithoutAugmentAreValid) {
  DetectionDataset val(root().string(), "val");
  DetectionDatasetOptions o;
  o.augment = true;
  DetectionDataset train(root().string(), "train", o);
  for (int64_t i : {0, 5, 17, 127}) {
    const data::Sample s = val.get(i);
    expect_valid_sample(s, 640, i);
    EXPECT_EQ(s.at("bboxes").size(0), static_cast<int64_t>(val.labels()[i].boxes.size()));
    const std::vector<float> ori = values(s.at("ori_shape")), rp = values(s.at("ratio_pad"));
    EXPECT_EQ(ori[0], val.labels()[i].height);
    EXPECT_NEAR(rp[0] * std::max(ori[0], ori[1]), 640, 1e-3);
    expect_valid_sample(as_worker(0, 1, 0, 0, i, [&] { return train.get(i); }), 640, i);
  }
}

TEST_F(VisionCoco128, DataLoaderWorkersGiveTheSameAugmentedBatchesAsTheMainProcess) {
  DetectionDatasetOptions o;
  o.augment = true;
  o.imgsz = 320;
  auto ds = std::make_shared<DetectionDataset>(root().string(), "train", o);
  std::vector<data::Batch> batches[2];
  for (int w : {0, 2}) {
    data::DataLoaderOptions lo;
    lo.batch_size = 4;
    lo.shuffle = true;
    lo.seed = 11;
    lo.num_workers = w;
    lo.collate_fn = detection_collate;
    data::DataLoader loader(ds, lo);
    for (data::Batch& b : loader) {
      data::Batch copy;
      for (const auto& [k, t] : b) copy.set(k, t.clone());
      batches[w > 0].push_back(std::move(copy));
      if (batches[w > 0].size() == 3) break;
    }
  }
  ASSERT_EQ(batches[0].size(), 3u);
  ASSERT_EQ(batches[1].size(), 3u);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(batches[0][k].at("img").sizes(), (Shape{4, 3, 320, 320}));
    EXPECT_EQ(batches[0][k].at("targets").size(1), 6);
    EXPECT_TRUE(same_sample(batches[0][k], batches[1][k])) << "batch " << k;
  }
}

}  // namespace
