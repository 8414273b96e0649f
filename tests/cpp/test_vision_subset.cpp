// Balanced subsets (adept/vision/subset.h): histogram counts, caps and minimums of the greedy
// selection on synthetic label sets, determinism, writing a YOLO subset that loads back, and
// coco128 end to end.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "adept/adept.h"
#include "adept/vision/detection_dataset.h"
#include "adept/vision/subset.h"
#include "vision_test_util.h"

namespace {

using namespace adept;
using namespace adept::vision;
using namespace adept::vision::testing;

ImageLabels image(const std::string& name, const std::vector<int64_t>& classes) {
  ImageLabels l;
  l.im_file = "/data/images/" + name + ".jpg";
  l.height = 100, l.width = 100;
  for (size_t k = 0; k < classes.size(); ++k)
    l.boxes.push_back({classes[k], 0.1f + 0.05f * static_cast<float>(k % 10), 0.5f, 0.1f, 0.2f});
  return l;
}

// `n` images with 1..6 boxes whose classes follow a skewed distribution over `nc` classes (class
// k about twice as frequent as k + 1), plus `backgrounds` empty images.
std::vector<ImageLabels> skewed(int n, int nc, int backgrounds, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<double> w;
  for (int k = 0; k < nc; ++k) w.push_back(std::pow(0.5, k));
  std::discrete_distribution<int> cls(w.begin(), w.end());
  std::vector<ImageLabels> out;
  for (int i = 0; i < n; ++i) {
    std::vector<int64_t> c(1 + rng() % 6);
    for (auto& x : c) x = cls(rng);
    out.push_back(image(fmt::format("img{}", i), c));
  }
  for (int i = 0; i < backgrounds; ++i) out.push_back(image(fmt::format("bg{}", i), {}));
  return out;
}

// The invariants every selection keeps, whatever the data.
void expect_selection_invariants(const std::vector<ImageLabels>& labels, int64_t nc, const SubsetOptions& o,
                                 const SubsetSelection& sel) {
  EXPECT_TRUE(std::is_sorted(sel.indices.begin(), sel.indices.end()));
  EXPECT_EQ(std::set<int64_t>(sel.indices.begin(), sel.indices.end()).size(), sel.indices.size());
  const ClassHistogram recount = class_histogram(labels, nc, sel.indices);
  EXPECT_EQ(sel.after.instances, recount.instances);
  EXPECT_EQ(sel.after.images, recount.images);
  std::vector<int64_t> below, over;
  for (int64_t k = 0; k < nc; ++k) {
    EXPECT_GE(sel.after.instances[k], std::min(o.min_per_class, sel.before.instances[k])) << "class " << k;
    if (sel.after.instances[k] < o.min_per_class) below.push_back(k);
    if (o.max_per_class >= 0 && sel.after.instances[k] > o.max_per_class) over.push_back(k);
  }
  EXPECT_EQ(sel.below_min, below);
  EXPECT_EQ(sel.over_cap, over);
}

TEST(VisionSubset, HistogramCountsInstancesImagesAndBackgrounds) {
  const std::vector<ImageLabels> labels = {image("a", {0, 0, 1}), image("b", {}), image("c", {1}), image("d", {2, 0})};
  const ClassHistogram h = class_histogram(labels, 4);
  EXPECT_EQ(h.instances, (std::vector<int64_t>{3, 2, 1, 0}));
  EXPECT_EQ(h.images, (std::vector<int64_t>{2, 2, 1, 0}));
  EXPECT_EQ(h.total_images, 4);
  EXPECT_EQ(h.backgrounds, 1);
  const ClassHistogram part = class_histogram(labels, 4, {1, 2});
  EXPECT_EQ(part.instances, (std::vector<int64_t>{0, 1, 0, 0}));
  EXPECT_EQ(part.backgrounds, 1);
  EXPECT_THROW(class_histogram(labels, 4, {4}), IndexError);
  EXPECT_THROW(class_histogram(labels, 2), IndexError);  // class 2 with nc = 2
}

TEST(VisionSubset, CapsHoldAndNoLeftOutImageWouldFit) {
  const auto labels = skewed(300, 6, 0, 1);
  SubsetOptions o;
  o.max_per_class = 40;
  const SubsetSelection sel = select_balanced_subset(labels, 6, o);
  expect_selection_invariants(labels, 6, o, sel);
  EXPECT_TRUE(sel.over_cap.empty());
  EXPECT_GT(sel.before.instances[0], 40);  // the cap bites
  // Greedy maximality: every image left out would push some class over its cap.
  const std::set<int64_t> chosen(sel.indices.begin(), sel.indices.end());
  for (int64_t i = 0; i < static_cast<int64_t>(labels.size()); ++i) {
    if (chosen.count(i)) continue;
    std::vector<int64_t> add(6, 0);
    for (const auto& b : labels[i].boxes) ++add[b.cls];
    bool fits = true;
    for (int k = 0; k < 6; ++k) fits &= add[k] == 0 || sel.after.instances[k] + add[k] <= 40;
    EXPECT_FALSE(fits) << "image " << i << " was left out but fits";
  }
}

TEST(VisionSubset, MinimumsAreMetWherePossibleAndShortfallsReported) {
  // Class 3 appears 3 times, always beside class 0 (frequent); class 2 never.
  std::vector<ImageLabels> labels;
  for (int i = 0; i < 30; ++i) labels.push_back(image(fmt::format("p{}", i), {0, 0, 1}));
  for (int i = 0; i < 3; ++i) labels.push_back(image(fmt::format("r{}", i), {3, 0, 0, 0}));
  SubsetOptions o;
  o.max_per_class = 10;
  o.min_per_class = 5;
  const SubsetSelection sel = select_balanced_subset(labels, 4, o);
  expect_selection_invariants(labels, 4, o, sel);
  EXPECT_EQ(sel.after.instances[3], 3);  // all it has
  EXPECT_EQ(sel.below_min, (std::vector<int64_t>{2, 3}));
  // Class 1 stops at its minimum: 5 more images would each add 2 of class 0, already over its cap
  // after class 3's images (9) and class 1's (10).
  EXPECT_EQ(sel.after.instances[1], 5);
  EXPECT_EQ(sel.after.instances[0], 19);
  EXPECT_EQ(sel.over_cap, (std::vector<int64_t>{0}));
}

TEST(VisionSubset, ACapGivesWayOnlyToAMinimum) {
  // Every image of class 1 holds 4 of class 0: reaching 3 of class 1 costs 12 of class 0.
  std::vector<ImageLabels> labels;
  for (int i = 0; i < 5; ++i) labels.push_back(image(fmt::format("x{}", i), {1, 0, 0, 0, 0}));
  for (int i = 0; i < 20; ++i) labels.push_back(image(fmt::format("y{}", i), {0}));
  SubsetOptions o;
  o.max_per_class = 6;
  o.min_per_class = 3;
  const SubsetSelection sel = select_balanced_subset(labels, 2, o);
  expect_selection_invariants(labels, 2, o, sel);
  EXPECT_EQ(sel.after.instances[1], 3);
  EXPECT_EQ(sel.after.instances[0], 12);  // no single-class-0 image added beyond the cap
  EXPECT_EQ(sel.over_cap, (std::vector<int64_t>{0}));
}

TEST(VisionSubset, SameSeedSameSelectionAndSeedsBreakTies) {
  const auto labels = skewed(200, 5, 10, 2);
  SubsetOptions o;
  o.max_per_class = 25;
  o.min_per_class = 5;
  std::set<std::vector<int64_t>> distinct;
  for (uint64_t seed = 0; seed < 6; ++seed) {
    o.seed = seed;
    const SubsetSelection a = select_balanced_subset(labels, 5, o), b = select_balanced_subset(labels, 5, o);
    EXPECT_EQ(a.indices, b.indices);
    expect_selection_invariants(labels, 5, o, a);
    distinct.insert(a.indices);
  }
  EXPECT_GT(distinct.size(), 1u);
}

TEST(VisionSubset, BackgroundsKeepTheirShareAndNoCapTakesEverything) {
  const auto labels = skewed(90, 4, 10, 3);
  SubsetOptions o;
  const SubsetSelection all = select_balanced_subset(labels, 4, o);
  EXPECT_EQ(all.indices.size(), labels.size());
  o.max_per_class = 20;
  const SubsetSelection sel = select_balanced_subset(labels, 4, o);
  const int64_t labelled = sel.after.total_images - sel.after.backgrounds;
  EXPECT_LT(labelled, 90);
  EXPECT_EQ(sel.after.backgrounds, (labelled * 10 * 2 + 90) / (2 * 90));
}

TEST(VisionSubset, BadOptionsRaiseValueError) {
  const auto labels = skewed(10, 3, 0, 4);
  EXPECT_THROW(select_balanced_subset(labels, 3, {.max_per_class = 2, .min_per_class = 3}), ValueError);
  EXPECT_THROW(select_balanced_subset(labels, 3, {.max_per_class = -2}), ValueError);
  EXPECT_THROW(select_balanced_subset(labels, 3, {.min_per_class = -1}), ValueError);
}

// A 3-class dataset of 12 BMP images on disk, split over two folders with clashing names.
struct DiskDataset {
  TempDir dir;
  DiskDataset() {
    std::mt19937 rng(5);
    for (int part = 0; part < 2; ++part)
      for (int i = 0; i < 6; ++i) {
        const std::string stem = "im" + std::to_string(i);
        write_bmp(dir / ("images/p" + std::to_string(part) + "/" + stem + ".bmp"), 24 + 4 * i, 20, rng());
        if (i == 5) continue;  // background
        std::string text;
        for (int k = 0; k <= (i + part) % 3; ++k)
          text += std::to_string((i + k + part) % 3) + " 0.5 0.5 " + std::to_string(0.1 + 0.1 * k) + " 0.25\n";
        write_file(dir / ("labels/p" + std::to_string(part) + "/" + stem + ".txt"), text);
      }
    write_file(dir / "data.yaml", "train: [images/p0, images/p1]\nval: images/p0\nnames: ['a: colon', b, c]\n");
  }
};

TEST(VisionSubset, WrittenSubsetLoadsBackWithTheSameLabelsAndNames) {
  DiskDataset src;
  DetectionDataset ds((src.dir / "data.yaml").string(), "train");
  ASSERT_EQ(ds.size(), 12);
  SubsetOptions o;
  o.max_per_class = 5;
  o.min_per_class = 1;
  const SubsetSelection sel = select_balanced_subset(ds.labels(), 3, o);
  TempDir out;
  write_yolo_subset(ds.labels(), sel.indices, ds.names(), (out / "sub").string(), "train");

  DetectionDataset back((out / "sub").string(), "train");  // the folder's data.yaml
  EXPECT_EQ(back.names(), ds.names());
  ASSERT_EQ(back.size(), static_cast<int64_t>(sel.indices.size()));
  const ClassHistogram h = class_histogram(back.labels(), 3);
  EXPECT_EQ(h.instances, sel.after.instances);
  EXPECT_EQ(h.images, sel.after.images);
  EXPECT_EQ(h.backgrounds, sel.after.backgrounds);
  // Same boxes, image by image (names were de-clashed with a numeric prefix, sizes identify them).
  std::multiset<std::string> want, got;
  auto key = [](const ImageLabels& l) {
    std::string k = std::to_string(l.width) + "x" + std::to_string(l.height);
    for (const auto& b : l.boxes) k += fmt::format(" {} {:.5f} {:.5f} {:.5f} {:.5f}", b.cls, b.cx, b.cy, b.w, b.h);
    return k;
  };
  for (int64_t i : sel.indices) want.insert(key(ds.labels()[i]));
  for (const auto& l : back.labels()) got.insert(key(l));
  EXPECT_EQ(got, want);
  std::set<std::string> names;
  for (const auto& f : back.im_files()) names.insert(fs::path(f).filename().string());
  EXPECT_EQ(names.size(), sel.indices.size());
  // Hard links by default.
  EXPECT_GE(fs::hard_link_count(back.im_files()[0]), 2u);

  EXPECT_THROW(write_yolo_subset(ds.labels(), sel.indices, ds.names(), (out / "sub").string(), "train"), ValueError);
  write_yolo_subset(ds.labels(), {0}, ds.names(), (out / "sub").string(), "train", /*copy_images=*/true,
                    /*overwrite=*/true);
  DetectionDataset one((out / "sub").string(), "train");
  EXPECT_EQ(one.size(), 1);
  EXPECT_EQ(fs::hard_link_count(one.im_files()[0]), 1u);
  EXPECT_THROW(write_yolo_subset(ds.labels(), {0}, ds.names(), src.dir.path.string(), "x"), ValueError);
}

TEST(VisionSubset, Coco128CapsMinimumsAndReload) {
  ADEPT_SKIP_WITHOUT_COCO128();
  TempDir d;
  link_coco128(d / "coco128");
  DetectionDataset ds((d / "coco128").string(), "train");
  SubsetOptions o;
  o.max_per_class = 30;
  o.min_per_class = 5;
  o.seed = 3;
  const SubsetSelection sel = select_balanced_subset(ds.labels(), 80, o);
  expect_selection_invariants(ds.labels(), 80, o, sel);
  EXPECT_EQ(sel.before.instances[0], 254);
  EXPECT_LT(sel.after.total_images, 128);
  const std::string table = format_histogram(ds.names(), sel.before, sel.after);
  EXPECT_NE(table.find("person"), std::string::npos);
  write_yolo_subset(ds.labels(), sel.indices, ds.names(), (d / "sub").string());
  DetectionDataset back((d / "sub").string(), "train");
  EXPECT_EQ(class_histogram(back.labels(), 80).instances, sel.after.instances);
}

}  // namespace
