// The built-in synthetic shapes dataset: rendering one image (SplitMix64 draws, integer pixel
// arithmetic, a 4x supersampled coverage map for exact anti-aliasing and tight boxes) and the
// atomic, concurrency-safe generation of its Ultralytics-layout folder.
#include "adept/vision/synthetic_shapes.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <numbers>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <spdlog/spdlog.h>

#include "adept/errors.h"
#include "vision/codecs.h"
#include "vision/cv_tensor.h"
#include "vision/synthetic_shapes_render.h"

namespace adept::vision {

namespace fs = std::filesystem;

namespace {

// ---- What the images hold (bump kVersion, and the folder name, when any of this changes) ------
constexpr int kVersion = 2;
constexpr const char* kFolder = "shapes-v2";
constexpr std::array<const char*, 6> kNames = {"circle", "square", "triangle", "star", "hexagon", "cross"};
constexpr double kBackgroundOnly = 0.08;  // images with no shapes; the others have 1 .. max_objects
constexpr double kMinVisible = 0.7;      // of each shape's area: inside the image, and not occluded
constexpr int kMaxClutter = 6;           // an image with clutter has 1 .. kMaxClutter lines, scribbles, arcs
constexpr int kMaxNoise = 8;             // pixel noise amplitude drawn from [0, kMaxNoise]
constexpr double kBlurChance = 0.15;
constexpr int kPlacementTries = 25;
constexpr int kMinContrast2 = 100 * 100; // squared RGB distance of a fill to what lies under it
constexpr int kSuper = 4;                // supersampling of the coverage map, per axis
constexpr int kShift = 4;                // fixed-point bits of OpenCV drawing coordinates
constexpr int kJpegQuality = 90;

constexpr double kPi = std::numbers::pi;
constexpr int kTrain = 0, kVal = 1;
constexpr std::array<const char*, 2> kSplits = {"train", "val"};

// SplitMix64 (Steele, Lea, Flood 2014): a fixed integer sequence on every platform.
uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

struct SplitMix64 {
  uint64_t state;
  uint64_t next() { return mix64(state += 0x9E3779B97F4A7C15ull); }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  int range(int lo, int hi) {  // [lo, hi], by multiply-shift of the high 32 bits (no division)
    return lo + static_cast<int>(((next() >> 32) * static_cast<uint64_t>(hi - lo + 1)) >> 32);
  }
  bool chance(double p) { return uniform() < p; }
};

uint64_t image_seed(uint64_t seed, int split, int64_t index) {
  return mix64(mix64(seed ^ 0x5348415045530001ull) + mix64((static_cast<uint64_t>(split) << 40) + static_cast<uint64_t>(index)));
}

using Color = std::array<int, 3>;  // B, G, R

Color random_color(SplitMix64& rng) { return {rng.range(0, 255), rng.range(0, 255), rng.range(0, 255)}; }
int dist2(const Color& a, const Color& b) {
  int s = 0;
  for (int c = 0; c < 3; ++c) s += (a[c] - b[c]) * (a[c] - b[c]);
  return s;
}
uint8_t clamp8(int v) { return static_cast<uint8_t>(std::clamp(v, 0, 255)); }
cv::Scalar scalar(const Color& c) { return cv::Scalar(c[0], c[1], c[2]); }

// ---- Background and clutter ------------------------------------------------------------------

void draw_background(cv::Mat3b& img, SplitMix64& rng) {
  const int H = img.rows, W = img.cols;
  const Color base = random_color(rng);
  switch (rng.range(0, 3)) {
    case 0:  // solid
      img.setTo(scalar(base));
      break;
    case 1: {  // linear gradient between two colours in a random direction
      const Color other = random_color(rng);
      int dx = rng.range(-64, 64), dy = rng.range(-64, 64);
      if (dx == 0 && dy == 0) dx = 1;
      const int p[4] = {0, (W - 1) * dx, (H - 1) * dy, (W - 1) * dx + (H - 1) * dy};
      const int lo = *std::min_element(p, p + 4), span = std::max(*std::max_element(p, p + 4) - lo, 1);
      for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
          const int t = (x * dx + y * dy - lo) * 256 / span;
          for (int c = 0; c < 3; ++c) img(y, x)[c] = clamp8(base[c] + (other[c] - base[c]) * t / 256);
        }
      break;
    }
    case 2: {  // smooth blotches: colours on a coarse grid, bilinearly interpolated
      const int gx = rng.range(2, 5), gy = rng.range(2, 5);
      std::vector<Color> node(static_cast<size_t>((gx + 1) * (gy + 1)));
      for (Color& n : node)
        for (int c = 0; c < 3; ++c) n[c] = std::clamp(base[c] + rng.range(-70, 70), 0, 255);
      for (int y = 0; y < H; ++y) {
        const int fy = y * gy * 256 / H, j = fy >> 8, b = fy & 255;
        for (int x = 0; x < W; ++x) {
          const int fx = x * gx * 256 / W, i = fx >> 8, a = fx & 255;
          const Color &n00 = node[j * (gx + 1) + i], &n01 = node[j * (gx + 1) + i + 1];
          const Color &n10 = node[(j + 1) * (gx + 1) + i], &n11 = node[(j + 1) * (gx + 1) + i + 1];
          for (int c = 0; c < 3; ++c)
            img(y, x)[c] = clamp8(((n00[c] * (256 - a) + n01[c] * a) * (256 - b) + (n10[c] * (256 - a) + n11[c] * a) * b +
                                   32768) >> 16);
        }
      }
      break;
    }
    default: {  // grain: per-pixel brightness noise around one colour
      const int amp = rng.range(8, 24);
      for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
          const int n = rng.range(-amp, amp);
          for (int c = 0; c < 3; ++c) img(y, x)[c] = clamp8(base[c] + n);
        }
    }
  }
}

cv::Point fixed_point(double x, double y) {  // OpenCV pixel-centre coordinates -> kShift fixed point
  return {static_cast<int>(std::lround(x * (1 << kShift))), static_cast<int>(std::lround(y * (1 << kShift)))};
}

// Lines, scribbles and arcs that are not objects (an arc spans at most 240 degrees and is thin, so
// it never looks like a filled circle).
void draw_clutter(cv::Mat3b& img, double clutter, SplitMix64& rng) {
  if (!rng.chance(clutter)) return;
  const int H = img.rows, W = img.cols, n = rng.range(1, kMaxClutter);
  auto point = [&](double margin) {
    return fixed_point(rng.uniform(-margin * W, (1 + margin) * W), rng.uniform(-margin * H, (1 + margin) * H));
  };
  for (int k = 0; k < n; ++k) {
    const cv::Scalar color = scalar(random_color(rng));
    const int thickness = rng.range(1, 3);
    switch (rng.range(0, 2)) {
      case 0:
        cv::line(img, point(0.2), point(0.2), color, thickness, cv::LINE_AA, kShift);
        break;
      case 1: {
        std::vector<cv::Point> pts{point(0.0)};
        const int m = rng.range(2, 5), step = std::max(W, H) / 3 << kShift;
        for (int i = 0; i < m; ++i)
          pts.push_back(pts.back() + cv::Point(rng.range(-step, step), rng.range(-step, step)));
        cv::polylines(img, pts, false, color, std::min(thickness, 2), cv::LINE_AA, kShift);
        break;
      }
      default: {
        const int lo = std::max(std::min(W, H) / 10, 2), hi = std::max(std::min(W, H) / 2, lo);
        const int start = rng.range(0, 359);
        cv::ellipse(img, cv::Point(rng.range(0, W - 1), rng.range(0, H - 1)), cv::Size(rng.range(lo, hi), rng.range(lo, hi)),
                    rng.range(0, 179), start, start + rng.range(40, 240), color, std::min(thickness, 2), cv::LINE_AA);
      }
    }
  }
}

// ---- Shapes ------------------------------------------------------------------------------------

// Vertices of class `cls` with circumradius about 1, centred at the origin.
std::vector<cv::Point2d> unit_shape(int cls) {
  std::vector<cv::Point2d> v;
  auto ring = [&](int n, double phase, double r_odd) {  // n vertices; odd ones at radius r_odd
    for (int i = 0; i < n; ++i) {
      const double a = phase + 2 * kPi * i / n, r = i % 2 ? r_odd : 1.0;
      v.emplace_back(r * std::cos(a), r * std::sin(a));
    }
  };
  switch (cls) {
    case 0: ring(64, 0, 1.0); break;                 // circle
    case 1: ring(4, kPi / 4, 1.0); break;           // square
    case 2: ring(3, -kPi / 2, 1.0); break;          // triangle
    case 3: ring(10, -kPi / 2, 0.45); break;        // star (5 points)
    case 4: ring(6, 0, 1.0); break;                  // hexagon
    default: {                                       // cross (plus sign)
      const double L = 0.95, a = 0.32;
      const double xy[12][2] = {{a, L}, {a, a}, {L, a}, {L, -a}, {a, -a}, {a, -L},
                                {-a, -L}, {-a, -a}, {-L, -a}, {-L, a}, {-a, a}, {-a, L}};
      for (const auto& p : xy) v.emplace_back(p[0], p[1]);
    }
  }
  return v;
}

double polygon_area(const std::vector<cv::Point2d>& p) {
  double s = 0;
  for (size_t i = 0, j = p.size() - 1; i < p.size(); j = i++) s += p[j].x * p[i].y - p[i].x * p[j].y;
  return std::fabs(s) / 2;
}

double polygon_perimeter(const std::vector<cv::Point2d>& p) {
  double s = 0;
  for (size_t i = 0, j = p.size() - 1; i < p.size(); j = i++) s += std::hypot(p[i].x - p[j].x, p[i].y - p[j].y);
  return s;
}

// A placed shape. Owner codes in the coverage map: 2k + 1 its fill, 2k + 2 its outline.
struct Shape {
  int cls = 0;
  Color fill{}, line{};
  bool outline = false;
  int shade_x = 0, shade_y = 0, cx = 0, cy = 0;  // fill brightness: + ((x - cx) shade_x + (y - cy) shade_y) / 256
  double full = 0;      // area in coverage pixels (geometric, with the outer half of the outline)
  int64_t visible = 0;  // coverage pixels it owns now
};

// One image being rendered: the background, the coverage map (kSuper x) and the shapes on it.
class Canvas {
 public:
  Canvas(int H, int W) : bg_(H, W), owner_(H * kSuper, W * kSuper, uchar(0)) {}
  cv::Mat3b& background() { return bg_; }

  /// Tries to add a shape; false when it breaks the visibility or contrast rules.
  bool try_place(int cls, double min_size, double max_size, SplitMix64& rng) {
    const int H = bg_.rows, W = bg_.cols;
    const double short_side = std::min(H, W);
    const double r = std::max(0.5 * short_side * std::exp(rng.uniform(std::log(min_size), std::log(max_size))), 2.0);
    const double cx = rng.uniform(-0.3 * r, W + 0.3 * r), cy = rng.uniform(-0.3 * r, H + 0.3 * r);
    const double angle = rng.uniform(0, 2 * kPi), ca = std::cos(angle), sa = std::sin(angle);
    const bool outline = rng.chance(0.25);
    const int thickness = outline ? rng.range(1, 2) : 0;
    std::vector<cv::Point2d> poly;  // edge coordinates: the image spans [0, W] x [0, H]
    for (const cv::Point2d& p : unit_shape(cls)) poly.emplace_back(cx + r * (ca * p.x - sa * p.y), cy + r * (sa * p.x + ca * p.y));

    // Rasterise into a mask over the shape's region of the coverage map: 1 fill, 2 outline.
    std::vector<cv::Point> pts;
    int x0 = INT32_MAX, y0 = INT32_MAX, x1 = INT32_MIN, y1 = INT32_MIN;
    for (const cv::Point2d& p : poly) {
      pts.push_back(fixed_point(kSuper * p.x - 0.5, kSuper * p.y - 0.5));
      x0 = std::min(x0, pts.back().x), x1 = std::max(x1, pts.back().x);
      y0 = std::min(y0, pts.back().y), y1 = std::max(y1, pts.back().y);
    }
    const int pad = kSuper * thickness + 2;
    const cv::Rect roi = cv::Rect(cv::Point((x0 >> kShift) - pad, (y0 >> kShift) - pad),
                                  cv::Point((x1 >> kShift) + pad + 1, (y1 >> kShift) + pad + 1)) &
                         cv::Rect(0, 0, owner_.cols, owner_.rows);
    if (roi.empty()) return false;
    for (cv::Point& p : pts) p -= cv::Point(roi.x << kShift, roi.y << kShift);
    cv::Mat1b mask(roi.size(), uchar(0));
    cv::fillPoly(mask, std::vector<std::vector<cv::Point>>{pts}, cv::Scalar(1), cv::LINE_8, kShift);
    if (outline) cv::polylines(mask, pts, true, cv::Scalar(2), kSuper * thickness, cv::LINE_8, kShift);

    const double full = (polygon_area(poly) + 0.5 * thickness * polygon_perimeter(poly)) * kSuper * kSuper;
    const auto inside = static_cast<int64_t>(cv::countNonZero(mask));
    if (inside < kMinVisible * full) return false;

    // What it would cover: pixels taken from each shape, and the mean colour under it.
    std::vector<int64_t> taken(shapes_.size(), 0);
    std::array<int64_t, 3> sum{};
    for (int y = 0; y < roi.height; ++y)
      for (int x = 0; x < roi.width; ++x) {
        if (!mask(y, x)) continue;
        const int oy = roi.y + y, ox = roi.x + x, o = owner_(oy, ox);
        const Color c = o ? color_of(o, ox / kSuper, oy / kSuper) : pixel(bg_(oy / kSuper, ox / kSuper));
        for (int k = 0; k < 3; ++k) sum[k] += c[k];
        if (o) ++taken[(o - 1) / 2];
      }
    for (size_t k = 0; k < shapes_.size(); ++k)
      if (taken[k] && shapes_[k].visible - taken[k] < kMinVisible * shapes_[k].full) return false;
    Color under;
    for (int k = 0; k < 3; ++k) under[k] = static_cast<int>(sum[k] / inside);

    // A fill that stands out from the mean under it and from every shape it overlaps.
    Shape s;
    s.cls = cls;
    s.outline = outline;
    s.full = full;
    s.visible = inside;
    bool found = false;
    for (int attempt = 0; attempt < 16 && !found; ++attempt) {
      s.fill = random_color(rng);
      found = dist2(s.fill, under) >= kMinContrast2;
      for (size_t k = 0; k < shapes_.size() && found; ++k)
        if (taken[k]) found = dist2(s.fill, shapes_[k].fill) >= kMinContrast2 &&
                              (!shapes_[k].outline || dist2(s.fill, shapes_[k].line) >= kMinContrast2);
    }
    if (!found) return false;
    do s.line = random_color(rng);
    while (outline && dist2(s.line, s.fill) < kMinContrast2);
    // Brightness shading across the shape (light from a random side), up to +-32 levels.
    const double amp = rng.uniform(0, 32) * 256 / r, dir = rng.uniform(0, 2 * kPi);
    s.shade_x = static_cast<int>(std::lround(amp * std::cos(dir)));
    s.shade_y = static_cast<int>(std::lround(amp * std::sin(dir)));
    s.cx = static_cast<int>(std::lround(cx)), s.cy = static_cast<int>(std::lround(cy));

    const auto code = static_cast<uchar>(2 * shapes_.size() + 1);
    for (int y = 0; y < roi.height; ++y)
      for (int x = 0; x < roi.width; ++x)
        if (mask(y, x)) owner_(roi.y + y, roi.x + x) = static_cast<uchar>(code + mask(y, x) - 1);
    for (size_t k = 0; k < shapes_.size(); ++k) shapes_[k].visible -= taken[k];
    shapes_.push_back(s);
    return true;
  }

  /// The final image: each pixel averages the kSuper^2 samples of its coverage (shape colour or
  /// background), so edges are anti-aliased by exact area.
  cv::Mat3b composite() const {
    cv::Mat3b out = bg_.clone();
    static_assert(kSuper == 4, "the empty-block test reads kSuper samples as one uint32");
    for (int y = 0; y < bg_.rows; ++y)
      for (int x = 0; x < bg_.cols; ++x) {
        uint32_t rows[kSuper];
        for (int sy = 0; sy < kSuper; ++sy) std::memcpy(&rows[sy], &owner_(y * kSuper + sy, x * kSuper), kSuper);
        if ((rows[0] | rows[1] | rows[2] | rows[3]) == 0) continue;  // no shape here: the background
        std::array<int, 3> acc{};
        for (int sy = 0; sy < kSuper; ++sy)
          for (int sx = 0; sx < kSuper; ++sx) {
            const int o = owner_(y * kSuper + sy, x * kSuper + sx);
            const Color c = o ? color_of(o, x, y) : pixel(bg_(y, x));
            for (int k = 0; k < 3; ++k) acc[k] += c[k];
          }
        for (int k = 0; k < 3; ++k) out(y, x)[k] = static_cast<uchar>((acc[k] + kSuper * kSuper / 2) / (kSuper * kSuper));
      }
    return out;
  }

  /// Per shape: class and the box of its visible coverage (edge coordinates, pixels).
  std::vector<detail::Box> boxes() const {
    const size_t n = shapes_.size();
    std::vector<int> x0(n, INT32_MAX), y0(n, INT32_MAX), x1(n, -1), y1(n, -1);
    for (int y = 0; y < owner_.rows; ++y)
      for (int x = 0; x < owner_.cols; ++x) {
        if (uint64_t eight; x % 8 == 0 && x + 8 <= owner_.cols &&
                            (std::memcpy(&eight, &owner_(y, x), 8), eight == 0)) {  // skip 8 empty samples
          x += 7;
          continue;
        }
        if (const int o = owner_(y, x)) {
          const size_t k = static_cast<size_t>((o - 1) / 2);
          x0[k] = std::min(x0[k], x), x1[k] = std::max(x1[k], x);
          y0[k] = std::min(y0[k], y), y1[k] = std::max(y1[k], y);
        }
      }
    std::vector<detail::Box> out;
    for (size_t k = 0; k < n; ++k)
      if (x1[k] >= 0)
        out.push_back({static_cast<float>(x0[k]) / kSuper, static_cast<float>(y0[k]) / kSuper,
                       static_cast<float>(x1[k] + 1) / kSuper, static_cast<float>(y1[k] + 1) / kSuper,
                       static_cast<float>(shapes_[k].cls)});
    return out;
  }

 private:
  static Color pixel(const cv::Vec3b& p) { return {p[0], p[1], p[2]}; }
  Color color_of(int code, int x, int y) const {
    const Shape& s = shapes_[static_cast<size_t>((code - 1) / 2)];
    if (code % 2 == 0) return s.line;
    const int d = ((x - s.cx) * s.shade_x + (y - s.cy) * s.shade_y) / 256;
    return {std::clamp(s.fill[0] + d, 0, 255), std::clamp(s.fill[1] + d, 0, 255), std::clamp(s.fill[2] + d, 0, 255)};
  }

  cv::Mat3b bg_;
  cv::Mat1b owner_;
  std::vector<Shape> shapes_;
};

// Sensor-like noise on every channel, then for some images a light 3x3 binomial blur.
void finish(cv::Mat3b& img, SplitMix64& rng) {
  if (const int amp = rng.range(0, kMaxNoise); amp > 0)
    for (int y = 0; y < img.rows; ++y)
      for (int x = 0; x < img.cols; ++x)
        for (int c = 0; c < 3; ++c) img(y, x)[c] = clamp8(img(y, x)[c] + rng.range(-amp, amp));
  if (!rng.chance(kBlurChance)) return;
  const cv::Mat3b src = img.clone();
  const int H = img.rows, W = img.cols, w[3] = {1, 2, 1};
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < 3; ++c) {
        int acc = 0;
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx)
            acc += w[dy + 1] * w[dx + 1] * src(std::clamp(y + dy, 0, H - 1), std::clamp(x + dx, 0, W - 1))[c];
        img(y, x)[c] = static_cast<uchar>((acc + 8) >> 4);
      }
}

struct Rendered {
  cv::Mat3b image;
  std::vector<detail::Box> boxes;
};

// Three independent streams, so an image rendered without its shapes (synthetic_shapes_background)
// has the same size, background, clutter, noise and blur.
Rendered render(const SyntheticShapesOptions& o, int split, int64_t index, bool with_shapes) {
  const uint64_t seed = image_seed(o.seed, split, index);
  SplitMix64 scene{seed}, objects{mix64(seed ^ 0x0b1ec75ull)}, post{mix64(seed ^ 0x9057ull)};
  int H = o.imgsz, W = o.imgsz;
  if (scene.chance(0.3)) {
    const int short_side = std::max(static_cast<int>(std::lround(o.imgsz * scene.uniform(0.6, 0.75))), 1);
    (scene.chance(0.5) ? H : W) = short_side;
  }
  Canvas canvas(H, W);
  draw_background(canvas.background(), scene);
  draw_clutter(canvas.background(), o.clutter, scene);
  const int n = !with_shapes || objects.chance(kBackgroundOnly) ? 0 : objects.range(1, o.max_objects);
  for (int k = 0; k < n; ++k) {
    const int cls = objects.range(0, static_cast<int>(kNames.size()) - 1);
    for (int t = 0; t < kPlacementTries && !canvas.try_place(cls, o.min_size, o.max_size, objects); ++t) {
    }
  }
  Rendered out{canvas.composite(), canvas.boxes()};
  finish(out.image, post);
  return out;
}

void check_options(const SyntheticShapesOptions& o, const char* fn) {
  ADEPT_CHECK(o.train_images >= 1 && o.val_images >= 1 && o.train_images <= 10'000'000 && o.val_images <= 10'000'000,
              ValueError, "{}: train_images and val_images must lie in [1, 1e7], got {} and {}", fn, o.train_images,
              o.val_images);
  ADEPT_CHECK(o.imgsz >= 32 && o.imgsz <= 4096, ValueError, "{}: imgsz must lie in [32, 4096], got {}", fn, o.imgsz);
  ADEPT_CHECK(o.max_objects >= 1 && o.max_objects <= 100, ValueError, "{}: max_objects must lie in [1, 100], got {}", fn,
              o.max_objects);
  ADEPT_CHECK(o.min_size >= 0.01 && o.min_size <= o.max_size && o.max_size <= 1.0, ValueError,
              "{}: expected 0.01 <= min_size <= max_size <= 1, got min_size {} and max_size {}", fn, o.min_size,
              o.max_size);
  ADEPT_CHECK(o.clutter >= 0 && o.clutter <= 1, ValueError, "{}: clutter is a probability in [0, 1], got {}", fn,
              o.clutter);
}

int split_id(const std::string& split, const char* fn) {
  ADEPT_CHECK(split == "train" || split == "val", ValueError, "{}: split must be 'train' or 'val', got '{}'", fn, split);
  return split == "train" ? kTrain : kVal;
}

// ---- The folder ----------------------------------------------------------------------------

std::string image_name(int64_t i) { return fmt::format("{:06d}.jpg", i); }
std::string label_name(int64_t i) { return fmt::format("{:06d}.txt", i); }

void write_text(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary);
  out << text;
  out.close();
  ADEPT_CHECK(out.good(), IOError, "built-in dataset: cannot write '{}'", file.string());
}

struct SplitStats {
  int64_t images = 0, label_files = 0, backgrounds = 0;
  std::vector<int64_t> instances = std::vector<int64_t>(kNames.size(), 0);
};

// Renders and writes one split (images in parallel; each is a function of its index only).
SplitStats write_split(const fs::path& dir, const SyntheticShapesOptions& o, int split) {
  const int64_t n = split == kTrain ? o.train_images : o.val_images;
  const fs::path images = dir / "images" / kSplits[split], labels = dir / "labels" / kSplits[split];
  fs::create_directories(images);
  fs::create_directories(labels);
  std::vector<std::vector<detail::Box>> boxes(static_cast<size_t>(n));
  std::exception_ptr error;
  std::mutex error_mutex;
#pragma omp parallel for schedule(dynamic, 4)
  for (int64_t i = 0; i < n; ++i) {
    try {
      Rendered r = render(o, split, i, true);
      const fs::path file = images / image_name(i);
      detail::write_image(file.string(), {r.image.data, r.image.rows, r.image.cols, static_cast<int64_t>(r.image.step)},
                          kJpegQuality);
      if (!r.boxes.empty()) {
        std::string text;
        for (const detail::Box& b : r.boxes)
          text += fmt::format("{} {:.6f} {:.6f} {:.6f} {:.6f}\n", static_cast<int>(b.cls),
                              (b.x1 + b.x2) / 2.0 / r.image.cols, (b.y1 + b.y2) / 2.0 / r.image.rows,
                              (b.x2 - b.x1) / static_cast<double>(r.image.cols), (b.y2 - b.y1) / static_cast<double>(r.image.rows));
        write_text(labels / label_name(i), text);
      }
      boxes[static_cast<size_t>(i)] = std::move(r.boxes);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
  SplitStats s;
  s.images = n;
  for (const auto& b : boxes) {
    s.label_files += !b.empty();
    s.backgrounds += b.empty();
    for (const detail::Box& x : b) ++s.instances[static_cast<size_t>(x.cls)];
  }
  return s;
}

nlohmann::json options_json(const SyntheticShapesOptions& o) {
  return {{"version", kVersion},           {"seed", o.seed},         {"imgsz", o.imgsz},
          {"train_images", o.train_images}, {"val_images", o.val_images}, {"max_objects", o.max_objects},
          {"min_size", o.min_size},         {"max_size", o.max_size},     {"clutter", o.clutter}};
}

void generate(const fs::path& dir, const SyntheticShapesOptions& o) {
  fs::create_directories(dir);
  const nlohmann::json generator = {{"name", "adept synthetic shapes"}, {"version", kVersion},
                                    {"background_only", kBackgroundOnly}, {"min_visible", kMinVisible}};
  nlohmann::json manifest = {{"generator", generator}, {"options", options_json(o)}, {"names", kNames}};
  for (int split : {kTrain, kVal}) {
    const SplitStats s = write_split(dir, o, split);
    manifest["splits"][kSplits[split]] = {{"images", s.images}, {"label_files", s.label_files},
                                          {"backgrounds", s.backgrounds}, {"instances", s.instances}};
  }
  std::string yaml = fmt::format(
      "# Adept's built-in synthetic shapes dataset (ensure_synthetic_shapes: seed {}, imgsz {}).\n"
      "path: .\ntrain: images/train\nval: images/val\nnc: {}\nnames:\n",
      o.seed, o.imgsz, kNames.size());
  for (size_t k = 0; k < kNames.size(); ++k) yaml += fmt::format("  {}: {}\n", k, kNames[k]);
  write_text(dir / "data.yaml", yaml);
  write_text(dir / "shapes.json", manifest.dump(2) + "\n");  // last: its presence marks a complete folder
}

// Whether `root` holds the complete dataset of `o`: shapes.json with the same options, and every
// image and label file it counts.
bool is_complete(const fs::path& root, const SyntheticShapesOptions& o) {
  std::error_code ec;
  if (!fs::is_regular_file(root / "shapes.json", ec) || !fs::is_regular_file(root / "data.yaml", ec)) return false;
  nlohmann::json m;
  try {
    std::ifstream in(root / "shapes.json");
    m = nlohmann::json::parse(in);
    if (m.at("options") != options_json(o)) return false;
    for (int split : {kTrain, kVal}) {
      const auto& s = m.at("splits").at(kSplits[split]);
      const int64_t n = split == kTrain ? o.train_images : o.val_images;
      if (s.at("images").get<int64_t>() != n) return false;
      const fs::path images = root / "images" / kSplits[split];
      for (int64_t i = 0; i < n; ++i)
        if (fs::file_size(images / image_name(i), ec) == 0 || ec) return false;
      int64_t labels = 0;
      for (const auto& e : fs::directory_iterator(root / "labels" / kSplits[split], ec))
        labels += e.path().extension() == ".txt";
      if (ec || labels != s.at("label_files").get<int64_t>()) return false;
    }
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

std::string host_name() {
  char buf[256] = {0};
  if (::gethostname(buf, sizeof(buf) - 1) != 0) return "host";
  std::string h = buf;
  for (char& c : h)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.') c = '_';
  return h.empty() ? "host" : h;
}

// A sibling of `root` private to this call: <name>.<kind>-<host>-<pid>-<n>.
fs::path private_sibling(const fs::path& root, const char* kind) {
  static std::atomic<uint64_t> counter{0};
  return root.parent_path() /
         fmt::format("{}.{}-{}-{}-{}", root.filename().string(), kind, host_name(), ::getpid(), counter++);
}

// Removes the temporary siblings of `root` that processes of this host left when they died.
void remove_stale_siblings(const fs::path& root) {
  const std::string name = root.filename().string(), host = host_name();
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root.parent_path(), ec)) {
    const std::string f = e.path().filename().string();
    for (const char* kind : {".tmp-", ".old-"}) {
      const std::string prefix = name + kind + host + "-";
      if (f.rfind(prefix, 0) != 0) continue;
      const std::string rest = f.substr(prefix.size());  // <pid>-<n>
      const long pid = std::strtol(rest.c_str(), nullptr, 10);
      if (pid <= 0 || pid == ::getpid() || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
      spdlog::info("removing '{}', left by a generation that did not finish", e.path().string());
      std::error_code rm;
      fs::remove_all(e.path(), rm);
    }
  }
}

// Renames the generated folder `tmp` to `root`. When `root` exists: a complete dataset there (another
// process won the race) means `tmp` is discarded; an invalid one is moved aside and removed.
void publish(const fs::path& tmp, const fs::path& root, const SyntheticShapesOptions& o) {
  std::error_code ec;
  for (int attempt = 0; attempt < 8; ++attempt) {
    if (::rename(tmp.c_str(), root.c_str()) == 0) return;
    const int err = errno;
    if (err != EEXIST && err != ENOTEMPTY) {
      fs::remove_all(tmp, ec);
      throw IOError(fmt::format("built-in dataset: cannot rename '{}' to '{}': {}", tmp.string(), root.string(),
                                std::strerror(err)));
    }
    if (is_complete(root, o)) {
      spdlog::info("the shapes dataset in '{}' was completed by another process; discarding this copy", root.string());
      fs::remove_all(tmp, ec);
      return;
    }
    const fs::path old = private_sibling(root, "old");
    if (::rename(root.c_str(), old.c_str()) == 0) fs::remove_all(old, ec);
  }
  fs::remove_all(tmp, ec);
  throw IOError(fmt::format("built-in dataset: could not put the dataset in place at '{}'", root.string()));
}

}  // namespace

std::vector<std::string> synthetic_shapes_names() { return {kNames.begin(), kNames.end()}; }

std::string default_synthetic_shapes_root() {
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v && *v ? v : "";
  };
  fs::path base;
  if (const std::string d = env("ADEPT_DATASETS_DIR"); !d.empty()) base = d;
  else if (const std::string x = env("XDG_CACHE_HOME"); !x.empty()) base = fs::path(x) / "adept" / "datasets";
  else if (const std::string h = env("HOME"); !h.empty()) base = fs::path(h) / ".cache" / "adept" / "datasets";
  else base = fs::temp_directory_path() / "adept" / "datasets";
  return (base / kFolder).string();
}

namespace {

LabeledImage render_checked(const SyntheticShapesOptions& options, const std::string& split, int64_t index,
                            bool with_shapes, const char* fn) {
  check_options(options, fn);
  const int s = split_id(split, fn);
  const int64_t n = s == kTrain ? options.train_images : options.val_images;
  ADEPT_CHECK(index >= 0 && index < n, ValueError, "{}: index {} outside [0, {}) of split '{}'", fn, index, n, split);
  Rendered r = render(options, s, index, with_shapes);
  return detail::make_labeled(detail::from_mat(r.image), std::move(r.boxes));
}

}  // namespace

LabeledImage synthetic_shapes_image(const SyntheticShapesOptions& options, const std::string& split, int64_t index) {
  return render_checked(options, split, index, true, "synthetic_shapes_image");
}

LabeledImage detail::synthetic_shapes_background(const SyntheticShapesOptions& options, const std::string& split,
                                                 int64_t index) {
  return render_checked(options, split, index, false, "synthetic_shapes_background");
}

std::string ensure_synthetic_shapes(const std::string& root_arg, const SyntheticShapesOptions& options) {
  check_options(options, "ensure_synthetic_shapes");
  fs::path root = fs::absolute(root_arg.empty() ? default_synthetic_shapes_root() : root_arg).lexically_normal();
  if (root.filename().empty()) root = root.parent_path();
  const std::string yaml = (root / "data.yaml").string();
  if (is_complete(root, options)) return yaml;

  std::error_code ec;
  fs::create_directories(root.parent_path(), ec);
  ADEPT_CHECK(!ec, IOError, "built-in dataset: cannot create '{}': {}", root.parent_path().string(), ec.message());
  remove_stale_siblings(root);
  const fs::path tmp = private_sibling(root, "tmp");
  const int64_t total = options.train_images + options.val_images;
  spdlog::info("generating the built-in shapes dataset ({} images, {} px) in {} ...", total, options.imgsz,
               root.string());
  const auto start = std::chrono::steady_clock::now();
  try {
    generate(tmp, options);
  } catch (const fs::filesystem_error& e) {
    fs::remove_all(tmp, ec);
    throw IOError(fmt::format("built-in dataset: cannot write '{}': {}", tmp.string(), e.what()));
  } catch (...) {
    fs::remove_all(tmp, ec);
    throw;
  }
  uintmax_t bytes = 0;
  for (const auto& e : fs::recursive_directory_iterator(tmp, ec))
    if (e.is_regular_file(ec)) bytes += e.file_size(ec);
  publish(tmp, root, options);
  spdlog::info("built-in shapes dataset ready: {} images, {:.1f} MB, {:.1f} s", total, bytes / 1e6,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return yaml;
}

}  // namespace adept::vision
