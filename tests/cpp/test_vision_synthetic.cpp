// The built-in synthetic shapes dataset (adept/vision/synthetic_shapes.h): identical files from
// the same seed (whatever the thread count), valid labels with every class, loading through
// DetectionDataset, boxes tight around the visible shape, and safe generation: reuse of a
// complete folder, regeneration of incomplete ones, a killed generation, concurrent first use.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "adept/adept.h"
#include "adept/vision/detection_dataset.h"
#include "adept/vision/synthetic_shapes.h"
#include "vision/synthetic_shapes_render.h"
#include "vision_test_util.h"

extern char** environ;

namespace {

using namespace adept;
using namespace adept::vision;
using adept::vision::testing::ScopedEnv;
using adept::vision::testing::TempDir;
using adept::vision::testing::write_file;
namespace fs = std::filesystem;

SyntheticShapesOptions small_options(uint64_t seed = 0) {
  SyntheticShapesOptions o;
  o.train_images = 48;
  o.val_images = 12;
  o.imgsz = 96;
  o.seed = seed;
  return o;
}

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every regular file under `root` (relative path -> bytes).
std::map<std::string, std::string> read_tree(const fs::path& root) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file()) files[fs::relative(e.path(), root).string()] = read_bytes(e.path());
  return files;
}

// Names in the folder holding `root` that start with root's name (the dataset and any siblings).
std::set<std::string> siblings(const fs::path& root) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(root.parent_path()))
    if (e.path().filename().string().rfind(root.filename().string(), 0) == 0) out.insert(e.path().filename().string());
  return out;
}

struct Label {
  int cls;
  double cx, cy, w, h;
};

std::vector<Label> read_labels(const fs::path& file) {
  std::vector<Label> out;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    Label l{};
    std::string extra;
    EXPECT_TRUE(s >> l.cls >> l.cx >> l.cy >> l.w >> l.h) << file << ": " << line;
    EXPECT_FALSE(s >> extra) << file << ": " << line;
    out.push_back(l);
  }
  return out;
}

std::string image_name(int64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%06ld", static_cast<long>(i));
  return buf;
}

// Runs this test binary's helper test (SyntheticShapesHelper.Generate) in a new process that
// generates `root` with small_options(); returns its pid.
pid_t spawn_generator(const fs::path& root, int64_t train_images, int imgsz) {
  const std::string exe = fs::read_symlink("/proc/self/exe").string();
  std::vector<std::string> args = {exe, "--gtest_filter=SyntheticShapesHelper.Generate"};
  std::vector<std::string> env = {"ADEPT_SHAPES_HELPER_ROOT=" + root.string(),
                                  "ADEPT_SHAPES_HELPER_TRAIN=" + std::to_string(train_images),
                                  "ADEPT_SHAPES_HELPER_IMGSZ=" + std::to_string(imgsz)};
  for (char** e = environ; *e; ++e)
    if (std::string(*e).rfind("ADEPT_SHAPES_HELPER_", 0) != 0) env.emplace_back(*e);
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  for (auto& e : env) envp.push_back(e.data());
  argv.push_back(nullptr);
  envp.push_back(nullptr);
  posix_spawn_file_actions_t quiet;  // its gtest report would interleave with ours
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  EXPECT_EQ(posix_spawn(&pid, exe.c_str(), &quiet, nullptr, argv.data(), envp.data()), 0);
  posix_spawn_file_actions_destroy(&quiet);
  return pid;
}

int wait_exit_code(pid_t pid) {
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, 0), pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

// The process body of spawn_generator (skipped when run as a normal test).
TEST(SyntheticShapesHelper, Generate) {
  const char* root = std::getenv("ADEPT_SHAPES_HELPER_ROOT");
  if (!root) GTEST_SKIP() << "runs only as a helper process of the SyntheticShapes tests";
  SyntheticShapesOptions o = small_options();
  o.train_images = std::atoll(std::getenv("ADEPT_SHAPES_HELPER_TRAIN"));
  o.imgsz = std::atoi(std::getenv("ADEPT_SHAPES_HELPER_IMGSZ"));
  EXPECT_EQ(ensure_synthetic_shapes(root, o), (fs::path(root) / "data.yaml").string());
}

TEST(SyntheticShapes, SameSeedGivesIdenticalFilesWhateverTheThreadCount) {
  TempDir a, b, c;
  const std::string yaml = ensure_synthetic_shapes((a / "shapes").string(), small_options());
  EXPECT_EQ(yaml, (a / "shapes" / "data.yaml").string());
  const int threads = get_num_threads();
  set_num_threads(threads == 1 ? 2 : 1);
  ensure_synthetic_shapes((b / "shapes").string(), small_options());
  set_num_threads(threads);
  const auto ta = read_tree(a / "shapes"), tb = read_tree(b / "shapes");
  ASSERT_GT(ta.size(), 60u + 2u);  // images, label files, data.yaml, shapes.json
  EXPECT_TRUE(ta == tb);
  // Another seed: other images.
  ensure_synthetic_shapes((c / "shapes").string(), small_options(1));
  const auto tc = read_tree(c / "shapes");
  int same = 0;
  for (int64_t i = 0; i < 48; ++i) {
    const std::string f = "images/train/" + image_name(i) + ".jpg";
    same += ta.at(f) == tc.at(f);
  }
  EXPECT_EQ(same, 0);
}

TEST(SyntheticShapes, LabelsAreValidMatchTheImagesAndCoverEveryClass) {
  TempDir t;
  SyntheticShapesOptions o;
  o.train_images = 150;
  o.val_images = 30;
  o.imgsz = 128;
  const fs::path root = t / "shapes";
  ensure_synthetic_shapes(root.string(), o);
  const auto names = synthetic_shapes_names();
  ASSERT_GE(names.size(), 5u);
  ASSERT_LE(names.size(), 8u);
  for (const std::string split : {"train", "val"}) {
    std::vector<int64_t> per_class(names.size(), 0);
    int64_t backgrounds = 0, crowded = 0, rectangular = 0, small = 0, large = 0;
    const int64_t n = split == "train" ? o.train_images : o.val_images;
    for (int64_t i = 0; i < n; ++i) {
      const fs::path img = root / "images" / split / (image_name(i) + ".jpg");
      const fs::path txt = root / "labels" / split / (image_name(i) + ".txt");
      const Tensor decoded = imread(img.string());
      const int64_t H = decoded.size(0), W = decoded.size(1);
      EXPECT_EQ(std::max(H, W), o.imgsz);
      EXPECT_GE(std::min(H, W), o.imgsz * 6 / 10);
      rectangular += H != W;
      // The file is the JPEG of the rendered image, and the labels are its boxes.
      const LabeledImage r = synthetic_shapes_image(o, split, i);
      ASSERT_EQ(r.image.size(0), H);
      ASSERT_EQ(r.image.size(1), W);
      EXPECT_LT((decoded.to(kFloat32) - r.image.to(kFloat32)).abs().mean().item<float>(), 10.0f) << img;
      const std::vector<Label> labels = fs::exists(txt) ? read_labels(txt) : std::vector<Label>{};
      ASSERT_EQ(static_cast<int64_t>(labels.size()), r.boxes.size(0)) << txt;
      backgrounds += labels.empty();
      crowded += labels.size() >= 4;
      for (size_t k = 0; k < labels.size(); ++k) {
        const Label& l = labels[k];
        ASSERT_GE(l.cls, 0);
        ASSERT_LT(l.cls, static_cast<int>(names.size()));
        ++per_class[static_cast<size_t>(l.cls)];
        EXPECT_GT(l.w * W, 2.0) << txt;
        EXPECT_GT(l.h * H, 2.0) << txt;
        EXPECT_GE(l.cx - l.w / 2, -1e-6) << txt;
        EXPECT_GE(l.cy - l.h / 2, -1e-6) << txt;
        EXPECT_LE(l.cx + l.w / 2, 1 + 1e-6) << txt;
        EXPECT_LE(l.cy + l.h / 2, 1 + 1e-6) << txt;
        const float* b = r.boxes.data_ptr<float>() + 4 * k;
        EXPECT_EQ(l.cls, static_cast<int>(r.cls.data_ptr<float>()[k]));
        EXPECT_NEAR(l.cx, (b[0] + b[2]) / 2 / W, 1e-6);
        EXPECT_NEAR(l.cy, (b[1] + b[3]) / 2 / H, 1e-6);
        EXPECT_NEAR(l.w, (b[2] - b[0]) / W, 1e-6);
        EXPECT_NEAR(l.h, (b[3] - b[1]) / H, 1e-6);
        const double side = std::max(l.w * W, l.h * H) / std::min(H, W);
        small += side < 0.25;  // sizes are log-uniform in [min_size, max_size] = [0.2, 0.6]
        large += side > 0.4;
      }
    }
    if (split == "train") {
      for (size_t k = 0; k < names.size(); ++k) EXPECT_GT(per_class[k], 20) << names[k];
      EXPECT_GT(backgrounds, 0);
      EXPECT_LT(backgrounds, n / 4);
      EXPECT_GT(crowded, n / 5);
      EXPECT_GT(rectangular, n / 10);
      EXPECT_GT(small, 40);
      EXPECT_GT(large, 20);
    }
  }
}

TEST(SyntheticShapes, LoadsThroughDetectionDataset) {
  TempDir t;
  const auto o = small_options();
  const std::string yaml = ensure_synthetic_shapes((t / "shapes").string(), o);
  const DatasetConfig cfg = load_dataset_config(yaml);
  EXPECT_EQ(cfg.names, synthetic_shapes_names());
  EXPECT_EQ(fs::path(cfg.root), t / "shapes");
  DetectionDatasetOptions d;
  d.imgsz = o.imgsz;
  DetectionDataset train(yaml, "train", d), val(yaml, "val", d);
  EXPECT_EQ(train.size(), o.train_images);
  EXPECT_EQ(val.size(), o.val_images);
  EXPECT_EQ(train.names(), synthetic_shapes_names());
  EXPECT_EQ(train.summary().corrupt, 0);
  EXPECT_EQ(train.summary().bad_lines, 0);
  EXPECT_GT(train.summary().boxes, o.train_images);
  for (int64_t i = 0; i < train.size(); ++i) {
    const LabeledImage r = synthetic_shapes_image(o, "train", i);
    const ImageLabels& l = train.labels()[static_cast<size_t>(i)];
    EXPECT_EQ(fs::path(l.im_file).filename().string(), image_name(i) + ".jpg");
    ASSERT_EQ(static_cast<int64_t>(l.boxes.size()), r.boxes.size(0));
    for (size_t k = 0; k < l.boxes.size(); ++k)
      EXPECT_NEAR(l.boxes[k].w * l.width, r.boxes.data_ptr<float>()[4 * k + 2] - r.boxes.data_ptr<float>()[4 * k], 1e-3);
  }
  const data::Sample s = val.get(3);
  EXPECT_EQ(s.at("img").sizes(), (std::vector<int64_t>{3, o.imgsz, o.imgsz}));
}

// A box is tight when the shape touches each of its sides and nothing the shapes changed lies
// outside it. The pixels a shape changed are found exactly by comparing with the same image
// rendered without shapes (same background, clutter, noise and blur). A blurred image spreads a
// shape by 1 px, so "touch" means within the first 2 px inside a side and "outside" means 2 px or
// more away from the box. Loose (+3 px) and shrunk (-3 px) boxes of shapes away from other shapes
// are checked to fail.
TEST(SyntheticShapes, BoxesAreTightAroundTheVisibleShape) {
  SyntheticShapesOptions o;
  o.train_images = 80;
  o.imgsz = 128;
  int64_t boxes = 0, tight_fail = 0, loose_sides = 0, loose_fail = 0, shrunk = 0, shrunk_fail = 0;
  for (int64_t i = 0; i < o.train_images; ++i) {
    const LabeledImage im = synthetic_shapes_image(o, "train", i);
    const LabeledImage bg = vision::detail::synthetic_shapes_background(o, "train", i);
    ASSERT_EQ(im.image.sizes(), bg.image.sizes());
    ASSERT_EQ(bg.boxes.size(0), 0);
    const int H = static_cast<int>(im.image.size(0)), W = static_cast<int>(im.image.size(1));
    const uint8_t *a = im.image.data_ptr<uint8_t>(), *b = bg.image.data_ptr<uint8_t>();
    auto changed = [&](int y, int x) {
      if (y < 0 || x < 0 || y >= H || x >= W) return false;
      const size_t p = 3 * (static_cast<size_t>(y) * W + x);
      return a[p] != b[p] || a[p + 1] != b[p + 1] || a[p + 2] != b[p + 2];
    };
    const int n = static_cast<int>(im.boxes.size(0));
    std::vector<std::array<double, 4>> bx(n);
    for (int k = 0; k < n; ++k)
      for (int j = 0; j < 4; ++j) bx[k][j] = im.boxes.data_ptr<float>()[4 * k + j];
    // Pixel ranges [c0, c1] x [r0, r1] a box covers (partly).
    auto cols = [&](const std::array<double, 4>& q) {
      return std::array<int, 4>{static_cast<int>(std::floor(q[0])), static_cast<int>(std::ceil(q[2])) - 1,
                                static_cast<int>(std::floor(q[1])), static_cast<int>(std::ceil(q[3])) - 1};
    };
    auto near_box = [&](int y, int x, const std::array<double, 4>& q, int margin) {
      const auto c = cols(q);
      return x >= c[0] - margin && x <= c[1] + margin && y >= c[2] - margin && y <= c[3] + margin;
    };
    // Sides (left, right, top, bottom) of q that some changed pixel touches within 2 px inside.
    auto touched = [&](const std::array<double, 4>& q) {
      const auto c = cols(q);
      std::array<bool, 4> t{};
      for (int y = c[2]; y <= c[3]; ++y)
        for (int d = 0; d < 2; ++d) t[0] |= changed(y, c[0] + d), t[1] |= changed(y, c[1] - d);
      for (int x = c[0]; x <= c[1]; ++x)
        for (int d = 0; d < 2; ++d) t[2] |= changed(c[2] + d, x), t[3] |= changed(c[3] - d, x);
      return t;
    };
    // Whether a changed pixel lies 2+ px outside q, in q's 6 px neighbourhood, outside every other box.
    auto spills = [&](int k, const std::array<double, 4>& q) {
      const auto c = cols(q);
      for (int y = c[2] - 6; y <= c[3] + 6; ++y)
        for (int x = c[0] - 6; x <= c[1] + 6; ++x) {
          if (!changed(y, x) || near_box(y, x, q, 1)) continue;
          bool other = false;
          for (int j = 0; j < n && !other; ++j) other = j != k && near_box(y, x, bx[j], 1);
          if (!other) return true;
        }
      return false;
    };
    for (int k = 0; k < n; ++k) {
      ++boxes;
      const auto t = touched(bx[k]);
      tight_fail += !(t[0] && t[1] && t[2] && t[3]) || spills(k, bx[k]);
      // Loose and shrunk boxes, checked on shapes with no other box within 6 px.
      bool isolated = true;
      const auto c = cols(bx[k]);
      for (int j = 0; j < n && isolated; ++j) {
        const auto d = cols(bx[j]);
        isolated = j == k || d[0] > c[1] + 6 || d[1] < c[0] - 6 || d[2] > c[3] + 6 || d[3] < c[2] - 6;
      }
      if (!isolated) continue;
      // Loose by 3 px: sides away from the image border should no longer be touched.
      const std::array<double, 4> loose = {bx[k][0] - 3, bx[k][1] - 3, bx[k][2] + 3, bx[k][3] + 3};
      const auto tl = touched(loose);
      const bool inside[4] = {loose[0] >= 0, loose[2] <= W, loose[1] >= 0, loose[3] <= H};
      for (int s = 0; s < 4; ++s)
        if (inside[s]) ++loose_sides, loose_fail += !tl[s];
      if (bx[k][2] - bx[k][0] > 8 && bx[k][3] - bx[k][1] > 8) {
        ++shrunk;
        shrunk_fail += spills(k, {bx[k][0] + 3, bx[k][1] + 3, bx[k][2] - 3, bx[k][3] - 3});
      }
    }
  }
  ASSERT_GT(boxes, 200);
  EXPECT_EQ(tight_fail, 0) << "of " << boxes << " boxes";
  ASSERT_GT(shrunk, 50);
  EXPECT_GT(loose_fail, loose_sides * 95 / 100) << "loose sides detected: " << loose_fail << " of " << loose_sides;
  EXPECT_GT(shrunk_fail, shrunk * 95 / 100) << "shrunk boxes detected: " << shrunk_fail << " of " << shrunk;
}

TEST(SyntheticShapes, CompleteDatasetIsReusedAndInvalidOnesRegenerated) {
  TempDir t, ref;
  const auto o = small_options();
  const fs::path root = t / "shapes";
  ensure_synthetic_shapes((ref / "shapes").string(), o);
  const auto reference = read_tree(ref / "shapes");

  ensure_synthetic_shapes(root.string(), o);
  write_file(root / "marker", "kept while the dataset is reused");
  ensure_synthetic_shapes(root.string() + "/", o);
  EXPECT_TRUE(fs::exists(root / "marker"));

  // A folder without shapes.json (as a non-atomic writer would leave it) is replaced.
  fs::remove_all(root);
  write_file(root / "images/train/000000.jpg", "half a file");
  write_file(root / "data.yaml", "train: images/train\nval: images/train\nnames: [a]\n");
  ensure_synthetic_shapes(root.string(), o);
  EXPECT_TRUE(read_tree(root) == reference);

  // A missing image, a missing label file, or other options: regenerated.
  fs::remove(root / "images/val/000005.jpg");
  ensure_synthetic_shapes(root.string(), o);
  EXPECT_TRUE(read_tree(root) == reference);
  for (const auto& e : fs::directory_iterator(root / "labels/train")) {
    fs::remove(e.path());
    break;
  }
  ensure_synthetic_shapes(root.string(), o);
  EXPECT_TRUE(read_tree(root) == reference);
  SyntheticShapesOptions more = o;
  more.val_images = 20;
  ensure_synthetic_shapes(root.string(), more);
  EXPECT_TRUE(fs::exists(root / "images/val/000019.jpg"));
  EXPECT_EQ(siblings(root), std::set<std::string>{"shapes"});
}

TEST(SyntheticShapes, KilledGenerationIsNeverTakenForADataset) {
  TempDir t, ref;
  const fs::path root = t / "shapes";
  // A generation big enough to be killed midway (a few seconds).
  const pid_t pid = spawn_generator(root, 4000, 256);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  bool started = false;
  while (!started && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    for (const std::string& s : siblings(root)) started |= s.find(".tmp-") != std::string::npos;
  }
  ASSERT_TRUE(started);
  std::string temp;  // shapes.tmp-<host>-<pid>-<n>
  for (const std::string& s : siblings(root))
    if (s.find(".tmp-") != std::string::npos) temp = s;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the generation finished before it was killed";
  EXPECT_FALSE(fs::exists(root));  // only the temporary folder was written

  // A temporary folder of a live process of this host (this one's parent) is left alone.
  const std::string host = temp.substr(11, temp.rfind(fmt::format("-{}-", pid)) - 11);
  ASSERT_EQ(temp, fmt::format("shapes.tmp-{}-{}-0", host, pid));
  const fs::path live = t / fmt::format("shapes.tmp-{}-{}-0", host, getppid());
  fs::create_directories(live);
  const auto o = small_options();
  ensure_synthetic_shapes(root.string(), o);
  ensure_synthetic_shapes((ref / "shapes").string(), o);
  EXPECT_TRUE(read_tree(root) == read_tree(ref / "shapes"));
  std::set<std::string> left = siblings(root);
  EXPECT_EQ(left, (std::set<std::string>{"shapes", live.filename().string()}));  // the dead one's is removed
}

TEST(SyntheticShapes, ConcurrentFirstUseGivesOneCompleteDataset) {
  TempDir t, ref;
  const auto o = small_options();
  ensure_synthetic_shapes((ref / "shapes").string(), o);
  const auto reference = read_tree(ref / "shapes");
  {  // Two processes and two threads of this one.
    const fs::path root = t / "a" / "shapes";
    const pid_t p1 = spawn_generator(root, o.train_images, o.imgsz), p2 = spawn_generator(root, o.train_images, o.imgsz);
    std::vector<std::string> got(2);
    std::thread t1([&] { got[0] = ensure_synthetic_shapes(root.string(), o); });
    std::thread t2([&] { got[1] = ensure_synthetic_shapes(root.string(), o); });
    t1.join();
    t2.join();
    EXPECT_EQ(wait_exit_code(p1), 0);
    EXPECT_EQ(wait_exit_code(p2), 0);
    for (const auto& y : got) EXPECT_EQ(y, (root / "data.yaml").string());
    EXPECT_TRUE(read_tree(root) == reference);
    EXPECT_EQ(siblings(root), std::set<std::string>{"shapes"});
  }
}

TEST(SyntheticShapes, SceneOptionsBoundCountAndSize) {
  // max_objects bounds the shapes per image; min_size / max_size bound each shape's extent (its
  // box's long side is at most its diameter, and a mostly visible shape's is not far below it).
  SyntheticShapesOptions o = small_options();
  o.train_images = 40;
  o.max_objects = 2;
  o.min_size = o.max_size = 0.3;
  o.clutter = 0;
  int64_t boxes = 0;
  for (int64_t i = 0; i < o.train_images; ++i) {
    const LabeledImage li = synthetic_shapes_image(o, "train", i);
    const int64_t n = li.boxes.size(0);
    EXPECT_LE(n, 2);
    boxes += n;
    const double short_side = static_cast<double>(std::min(li.image.size(0), li.image.size(1)));
    const float* b = li.boxes.data_ptr<float>();
    for (int64_t k = 0; k < n; ++k) {
      const double extent = std::max(b[4 * k + 2] - b[4 * k], b[4 * k + 3] - b[4 * k + 1]);
      EXPECT_LE(extent, 0.3 * short_side + 2.5) << "image " << i;  // + outline and anti-aliasing
    }
  }
  EXPECT_GT(boxes, o.train_images);  // most images hold 1-2 shapes
  // Other options give other images, and the dataset's manifest records them.
  const Tensor a = synthetic_shapes_image(o, "train", 0).image, b = synthetic_shapes_image(small_options(), "train", 0).image;
  EXPECT_TRUE(a.sizes() != b.sizes() || !equal(a, b));
  TempDir t;
  ensure_synthetic_shapes((t / "s").string(), o);
  const std::string manifest = read_bytes(t / "s" / "shapes.json");
  EXPECT_NE(manifest.find("\"max_objects\": 2"), std::string::npos) << manifest;
  EXPECT_NE(manifest.find("\"clutter\": 0"), std::string::npos);
}

TEST(SyntheticShapes, DefaultRootAndBadArguments) {
  {
    ScopedEnv d("ADEPT_DATASETS_DIR", "/data/sets");
    EXPECT_EQ(default_synthetic_shapes_root(), "/data/sets/shapes-v2");
  }
  {
    ScopedEnv d("ADEPT_DATASETS_DIR", ""), x("XDG_CACHE_HOME", "/xdg"), h("HOME", "/home/u");
    EXPECT_EQ(default_synthetic_shapes_root(), "/xdg/adept/datasets/shapes-v2");
    ScopedEnv x2("XDG_CACHE_HOME", "");
    EXPECT_EQ(default_synthetic_shapes_root(), "/home/u/.cache/adept/datasets/shapes-v2");
  }
  SyntheticShapesOptions bad = small_options();
  bad.imgsz = 16;
  EXPECT_THROW(ensure_synthetic_shapes("/tmp/never", bad), ValueError);
  bad = small_options();
  bad.val_images = 0;
  EXPECT_THROW(ensure_synthetic_shapes("/tmp/never", bad), ValueError);
  EXPECT_FALSE(fs::exists("/tmp/never"));
  for (auto change : std::vector<std::function<void(SyntheticShapesOptions&)>>{
           [](auto& o) { o.max_objects = 0; }, [](auto& o) { o.max_objects = 101; },
           [](auto& o) { o.min_size = 0.005; }, [](auto& o) { o.min_size = 0.5, o.max_size = 0.4; },
           [](auto& o) { o.max_size = 1.5; }, [](auto& o) { o.clutter = -0.1; }, [](auto& o) { o.clutter = 2; }}) {
    bad = small_options();
    change(bad);
    EXPECT_THROW(ensure_synthetic_shapes("/tmp/never", bad), ValueError);
    EXPECT_THROW(synthetic_shapes_image(bad, "train", 0), ValueError);
  }
  EXPECT_THROW(synthetic_shapes_image(small_options(), "test", 0), ValueError);
  EXPECT_THROW(synthetic_shapes_image(small_options(), "val", 12), ValueError);
  EXPECT_THROW(synthetic_shapes_image(small_options(), "train", -1), ValueError);
  TempDir t;
  write_file(t / "file", "not a folder");
  EXPECT_THROW(ensure_synthetic_shapes((t / "file" / "shapes").string(), small_options()), IOError);
}
