// Detection augmentations (adept/vision/transforms.h): property tests on synthetic scenes (filled
// rectangles of distinct colours on noise, boxes = their extents), exact formula checks for
// letterbox / resize / mosaic placement / HSV tables, determinism, and bad-input errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "adept/adept.h"
#include "adept/vision/transforms.h"
#include "vision_test_util.h"

namespace {

using namespace adept;
using namespace adept::vision;
namespace fs = std::filesystem;

// ---- synthetic scenes ----

/// The 8 corners of the colour cube (BGR). Every channel is >= 60 away from the background
/// noise (60..160) and from the fill value 114, so a pixel matches at most one of them.
constexpr std::array<std::array<uint8_t, 3>, 8> kPalette = {{{0, 0, 255},
                                                             {0, 255, 0},
                                                             {255, 0, 0},
                                                             {0, 255, 255},
                                                             {255, 0, 255},
                                                             {255, 255, 0},
                                                             {0, 0, 0},
                                                             {255, 255, 255}}};
constexpr int kTolerance = 40;

struct Rect {
  int x1, y1, x2, y2;  // pixels [x1, x2) x [y1, y2)
};

struct PlainBox {
  float x1, y1, x2, y2;
  int cls;
};

uint8_t* px(const Tensor& img, int y, int x) {
  return img.data_ptr<uint8_t>() + (static_cast<int64_t>(y) * img.size(1) + x) * 3;
}

/// Index of the palette colour `p` matches, or -1.
int colour_of(const uint8_t* p) {
  for (int c = 0; c < 8; ++c) {
    bool match = true;
    for (int k = 0; k < 3; ++k) match = match && std::abs(int(p[k]) - int(kPalette[c][k])) <= kTolerance;
    if (match) return c;
  }
  return -1;
}

Tensor boxes_tensor(const std::vector<PlainBox>& b) {
  Tensor t = zeros({static_cast<int64_t>(b.size()), 4});
  for (size_t i = 0; i < b.size(); ++i) {
    float* p = t.data_ptr<float>() + 4 * i;
    p[0] = b[i].x1, p[1] = b[i].y1, p[2] = b[i].x2, p[3] = b[i].y2;
  }
  return t;
}

Tensor cls_tensor(const std::vector<PlainBox>& b) {
  Tensor t = zeros({static_cast<int64_t>(b.size())});
  for (size_t i = 0; i < b.size(); ++i) t.data_ptr<float>()[i] = static_cast<float>(b[i].cls);
  return t;
}

std::vector<PlainBox> boxes_of(const LabeledImage& li) {
  std::vector<PlainBox> out;
  const Tensor b = li.boxes.contiguous(), c = li.cls.contiguous();
  for (int64_t i = 0; i < b.size(0); ++i) {
    const float* p = b.data_ptr<float>() + 4 * i;
    out.push_back({p[0], p[1], p[2], p[3], static_cast<int>(c.data_ptr<float>()[i])});
  }
  return out;
}

/// (h, w) image of uniform noise in 60..160 with rectangle i filled with palette colour cls[i];
/// boxes = the rectangles' extents.
LabeledImage scene(int h, int w, const std::vector<Rect>& rects, const std::vector<int>& cls,
                   uint64_t seed) {
  Tensor img = empty({h, w, 3}, kUInt8);
  std::mt19937 g(static_cast<uint32_t>(seed));
  std::uniform_int_distribution<int> noise(60, 160);
  uint8_t* p = img.data_ptr<uint8_t>();
  for (int64_t i = 0; i < img.numel(); ++i) p[i] = static_cast<uint8_t>(noise(g));
  std::vector<PlainBox> boxes;
  for (size_t i = 0; i < rects.size(); ++i) {
    const Rect& r = rects[i];
    for (int y = r.y1; y < r.y2; ++y)
      for (int x = r.x1; x < r.x2; ++x) std::memcpy(px(img, y, x), kPalette[cls[i]].data(), 3);
    boxes.push_back({float(r.x1), float(r.y1), float(r.x2), float(r.y2), cls[i]});
  }
  return {img, boxes_tensor(boxes), cls_tensor(boxes)};
}

/// `n` random rectangles with sides in [lo, hi], inside the image, >= 10 px apart.
std::vector<Rect> random_rects(int h, int w, int n, int lo, int hi, std::mt19937& g) {
  std::vector<Rect> out;
  for (int attempt = 0; static_cast<int>(out.size()) < n && attempt < 10000; ++attempt) {
    const int rw = std::uniform_int_distribution<int>(lo, hi)(g);
    const int rh = std::uniform_int_distribution<int>(lo, hi)(g);
    const int x = std::uniform_int_distribution<int>(0, w - rw)(g);
    const int y = std::uniform_int_distribution<int>(0, h - rh)(g);
    const Rect r{x, y, x + rw, y + rh};
    bool apart = true;
    for (const Rect& o : out)
      apart = apart && (r.x2 + 10 <= o.x1 || o.x2 + 10 <= r.x1 || r.y2 + 10 <= o.y1 || o.y2 + 10 <= r.y1);
    if (apart) out.push_back(r);
  }
  EXPECT_EQ(static_cast<int>(out.size()), n) << "could not place the rectangles";
  return out;
}

/// A random scene of `n` objects using palette colours first_cls .. first_cls + n - 1; sides
/// 24 px up to a third of the image (smaller in images under 72 px).
LabeledImage random_scene(int h, int w, int n, int first_cls, uint64_t seed) {
  std::mt19937 g(static_cast<uint32_t>(seed) * 7919u + 1);
  const int lo = std::min(24, std::min(h, w) / 3), hi = std::max(lo, std::min(h, w) / 3);
  std::vector<int> cls(n);
  for (int i = 0; i < n; ++i) cls[i] = first_cls + i;
  return scene(h, w, random_rects(h, w, n, lo, hi, g), cls, seed);
}

/// The properties every transform must keep:
///  * cls and boxes agree in n, every box lies in the image with positive size;
///  * (axis_aligned) the pixels well inside each box are mostly (> 80%) its object's colour;
///  * every object visible in the image without touching its border has a box of its class
///    whose edges are within 2.5 px of the object's pixels.
/// Returns the number of boxes whose interior was checked.
int expect_boxes_on_objects(const LabeledImage& out, bool axis_aligned = true) {
  EXPECT_EQ(out.image.dim(), 3);
  EXPECT_EQ(out.boxes.size(0), out.cls.size(0));
  const int h = static_cast<int>(out.image.size(0)), w = static_cast<int>(out.image.size(1));
  const std::vector<PlainBox> boxes = boxes_of(out);
  int checked = 0;
  for (const PlainBox& b : boxes) {
    EXPECT_TRUE(b.x1 >= 0 && b.y1 >= 0 && b.x2 <= w && b.y2 <= h && b.x2 > b.x1 && b.y2 > b.y1)
        << "box " << b.x1 << "," << b.y1 << "," << b.x2 << "," << b.y2 << " in " << w << "x" << h;
    if (!axis_aligned) continue;
    const int x1 = static_cast<int>(std::ceil(b.x1)) + 1, x2 = static_cast<int>(std::floor(b.x2)) - 1;
    const int y1 = static_cast<int>(std::ceil(b.y1)) + 1, y2 = static_cast<int>(std::floor(b.y2)) - 1;
    if (x2 <= x1 || y2 <= y1) continue;
    int match = 0;
    for (int y = y1; y < y2; ++y)
      for (int x = x1; x < x2; ++x) match += colour_of(px(out.image, y, x)) == b.cls;
    const double fraction = double(match) / ((x2 - x1) * (y2 - y1));
    EXPECT_GT(fraction, 0.8) << "box of class " << b.cls << " at " << b.x1 << "," << b.y1 << ","
                             << b.x2 << "," << b.y2;
    ++checked;
  }
  // The extent of each colour's pixels.
  std::array<Rect, 8> ext;
  std::array<int, 8> count{};
  ext.fill({w, h, -1, -1});
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const int c = colour_of(px(out.image, y, x));
      if (c < 0) continue;
      ++count[c];
      ext[c] = {std::min(ext[c].x1, x), std::min(ext[c].y1, y), std::max(ext[c].x2, x + 1),
                std::max(ext[c].y2, y + 1)};
    }
  for (int c = 0; c < 8; ++c) {
    const Rect& e = ext[c];
    if (count[c] < 25 || e.x1 < 1 || e.y1 < 1 || e.x2 > w - 1 || e.y2 > h - 1) continue;
    bool found = false;
    for (const PlainBox& b : boxes)
      found = found || (b.cls == c && std::abs(b.x1 - e.x1) <= 2.5 && std::abs(b.y1 - e.y1) <= 2.5 &&
                        std::abs(b.x2 - e.x2) <= 2.5 && std::abs(b.y2 - e.y2) <= 2.5);
    EXPECT_TRUE(found) << "object of colour " << c << " fully visible at " << e.x1 << "," << e.y1
                       << "," << e.x2 << "," << e.y2 << " has no matching box";
  }
  return checked;
}

bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && a.dtype() == b.dtype() &&
         std::memcmp(a.contiguous().data_ptr(), b.contiguous().data_ptr(), a.numel() * a.element_size()) == 0;
}

bool same_labeled(const LabeledImage& a, const LabeledImage& b) {
  return same_bytes(a.image, b.image) && same_bytes(a.boxes, b.boxes) && same_bytes(a.cls, b.cls);
}

void expect_boxes_near(const std::vector<PlainBox>& got, const std::vector<PlainBox>& want, float tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].cls, want[i].cls);
    EXPECT_NEAR(got[i].x1, want[i].x1, tol);
    EXPECT_NEAR(got[i].y1, want[i].y1, tol);
    EXPECT_NEAR(got[i].x2, want[i].x2, tol);
    EXPECT_NEAR(got[i].y2, want[i].y2, tol);
  }
}

LabeledImage no_boxes(int h, int w) {
  return {full({h, w, 3}, 7, kUInt8), zeros({0, 4}), zeros({0})};
}

// ---- bad inputs, shared by every transform ----

enum class Err { Shape, Dtype, Value };

struct BadInput {
  std::string what;
  LabeledImage in;
  Err err;
};

std::vector<BadInput> bad_inputs() {
  const LabeledImage ok = random_scene(40, 50, 2, 0, 1);
  std::vector<BadInput> v;
  v.push_back({"2-d image", {full({40, 50}, 1, kUInt8), ok.boxes, ok.cls}, Err::Shape});
  v.push_back({"4 channels", {full({40, 50, 4}, 1, kUInt8), ok.boxes, ok.cls}, Err::Shape});
  v.push_back({"empty image", {empty({0, 50, 3}, kUInt8), ok.boxes, ok.cls}, Err::Shape});
  v.push_back({"float image", {ok.image.to(kFloat32), ok.boxes, ok.cls}, Err::Dtype});
  v.push_back({"transposed image", {full({50, 40, 3}, 1, kUInt8).transpose(0, 1), ok.boxes, ok.cls}, Err::Value});
  v.push_back({"boxes (n, 5)", {ok.image, zeros({2, 5}), ok.cls}, Err::Shape});
  v.push_back({"boxes 1-d", {ok.image, zeros({8}), ok.cls}, Err::Shape});
  v.push_back({"float64 boxes", {ok.image, ok.boxes.to(kFloat64), ok.cls}, Err::Dtype});
  v.push_back({"int64 cls", {ok.image, ok.boxes, ok.cls.to(kInt64)}, Err::Dtype});
  v.push_back({"cls n mismatch", {ok.image, ok.boxes, zeros({3})}, Err::Shape});
  v.push_back({"undefined boxes", {ok.image, Tensor(), ok.cls}, Err::Value});
  return v;
}

/// Runs `f` on every bad input: the right error type, with `fn` named in the message.
void expect_bad_inputs_rejected(const std::string& fn, const std::function<void(const LabeledImage&)>& f) {
  for (const BadInput& b : bad_inputs()) {
    SCOPED_TRACE(fn + ": " + b.what);
    try {
      f(b.in);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      const bool right_type = (b.err == Err::Shape && dynamic_cast<const ShapeError*>(&e)) ||
                              (b.err == Err::Dtype && dynamic_cast<const DtypeError*>(&e)) ||
                              (b.err == Err::Value && dynamic_cast<const ValueError*>(&e));
      EXPECT_TRUE(right_type) << e.what();
      EXPECT_NE(std::string(e.what()).find(fn), std::string::npos) << e.what();
    }
  }
}

AugmentOptions no_aug() {
  AugmentOptions o;
  o.hsv_h = o.hsv_s = o.hsv_v = 0;
  o.translate = o.scale = 0;
  o.fliplr = 0;
  return o;
}

// ---- letterbox and resize_long_side ----

TEST(VisionLetterbox, GainAndPaddingFollowTheFormula) {
  struct Case {
    int h, w, out_h, out_w;
    bool scaleup;
  };
  const Case cases[] = {{480, 640, 640, 640, true},  {640, 480, 640, 640, true},
                        {333, 517, 640, 640, true},  {101, 99, 640, 640, false},
                        {101, 99, 640, 640, true},   {1000, 50, 320, 256, true},
                        {720, 1280, 384, 640, true}, {37, 53, 64, 96, false}};
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << c.h << "x" << c.w << " -> " << c.out_h << "x" << c.out_w);
    const LabeledImage in = random_scene(c.h, c.w, 1, 0, c.h * 7 + c.w);
    const Letterboxed lb = letterbox(in, c.out_h, c.out_w, c.scaleup);
    double r = std::min(double(c.out_h) / c.h, double(c.out_w) / c.w);
    if (!c.scaleup) r = std::min(r, 1.0);
    const double nw = std::nearbyint(c.w * r), nh = std::nearbyint(c.h * r);
    EXPECT_DOUBLE_EQ(lb.gain, r);
    EXPECT_DOUBLE_EQ(lb.pad_x, std::round((c.out_w - nw) / 2 - 0.1));
    EXPECT_DOUBLE_EQ(lb.pad_y, std::round((c.out_h - nh) / 2 - 0.1));
    ASSERT_EQ(lb.out.image.sizes(), (Shape{c.out_h, c.out_w, 3}));
    // Padding is exactly 114 and the resized image starts right after it.
    const int left = int(lb.pad_x), top = int(lb.pad_y), right = c.out_w - left - int(nw);
    EXPECT_GE(right, left);
    EXPECT_LE(right - left, 1);
    for (int y = 0; y < c.out_h; ++y)
      for (int x = 0; x < c.out_w; ++x) {
        const bool pad = x < left || x >= left + nw || y < top || y >= top + nh;
        const uint8_t* p = px(lb.out.image, y, x);
        if (!pad) continue;
        ASSERT_TRUE(p[0] == 114 && p[1] == 114 && p[2] == 114) << x << "," << y;
      }
    // The image area holds the (noisy) input: hardly any pixel there is exactly (114, 114, 114),
    // also on its first and last rows and columns.
    auto grey_fraction = [&](int y1, int y2, int x1, int x2) {
      int n = 0;
      for (int y = y1; y < y2; ++y)
        for (int x = x1; x < x2; ++x) {
          const uint8_t* p = px(lb.out.image, y, x);
          n += p[0] == 114 && p[1] == 114 && p[2] == 114;
        }
      return double(n) / ((y2 - y1) * (x2 - x1));
    };
    const int iw = int(nw), ih = int(nh);
    EXPECT_LT(grey_fraction(top, top + ih, left, left + iw), 0.01);
    EXPECT_LT(grey_fraction(top, top + 1, left, left + iw), 0.5);
    EXPECT_LT(grey_fraction(top + ih - 1, top + ih, left, left + iw), 0.5);
    EXPECT_LT(grey_fraction(top, top + ih, left, left + 1), 0.5);
    EXPECT_LT(grey_fraction(top, top + ih, left + iw - 1, left + iw), 0.5);
    // Boxes map back through gain and padding.
    const std::vector<PlainBox> bi = boxes_of(in), bo = boxes_of(lb.out);
    ASSERT_EQ(bo.size(), bi.size());
    for (size_t i = 0; i < bi.size(); ++i) {
      EXPECT_NEAR((bo[i].x1 - lb.pad_x) / lb.gain, bi[i].x1, 1e-3);
      EXPECT_NEAR((bo[i].y2 - lb.pad_y) / lb.gain, bi[i].y2, 1e-3);
    }
  }
  // Hand-computed: 333x517 -> 640: r = 640/517, 412.2 -> 412 rows, d = 228 -> 114 / 114.
  const Letterboxed a = letterbox(random_scene(333, 517, 1, 0, 3), 640, 640);
  EXPECT_EQ(a.pad_y, 114);
  EXPECT_EQ(a.pad_x, 0);
  // 101x99 without scaleup: d = 539 rows -> 269 top, 541 cols -> 270 left.
  const Letterboxed b = letterbox(random_scene(101, 99, 1, 0, 4), 640, 640, false);
  EXPECT_EQ(b.gain, 1);
  EXPECT_EQ(b.pad_y, 269);
  EXPECT_EQ(b.pad_x, 270);
}

TEST(VisionLetterbox, PadValue) {
  const Letterboxed lb = letterbox(random_scene(20, 40, 1, 0, 5), 64, 64, true, 0);
  const uint8_t* p = px(lb.out.image, 0, 0);
  EXPECT_TRUE(p[0] == 0 && p[1] == 0 && p[2] == 0);
}

TEST(VisionLetterbox, BoxesStayOnObjects) {
  const int shapes[][4] = {{480, 640, 320, 320}, {640, 360, 320, 320}, {301, 403, 640, 640}, {250, 250, 128, 192}};
  int checked = 0;
  for (const auto& s : shapes) {
    const LabeledImage in = random_scene(s[0], s[1], 5, 0, s[0] + s[1]);
    checked += expect_boxes_on_objects(letterbox(in, s[2], s[3]).out);
  }
  EXPECT_GT(checked, 15);
}

TEST(VisionLetterbox, ClipsAndDropsBoxes) {
  LabeledImage in = random_scene(100, 100, 1, 0, 6);
  in.boxes = boxes_tensor({{-10, 20, 50, 200, 0}, {30, 30, 30, 60, 1}, {10, 10, 20, 20, 2}});
  in.cls = cls_tensor({{0, 0, 0, 0, 0}, {0, 0, 0, 0, 1}, {0, 0, 0, 0, 2}});
  const Letterboxed lb = letterbox(in, 200, 200);
  expect_boxes_near(boxes_of(lb.out), {{0, 40, 100, 200, 0}, {20, 20, 40, 40, 2}}, 1e-4f);
}

TEST(VisionLetterbox, ZeroBoxesAndBadInput) {
  const Letterboxed lb = letterbox(no_boxes(30, 60), 64, 64);
  EXPECT_EQ(lb.out.boxes.sizes(), (Shape{0, 4}));
  EXPECT_EQ(lb.out.cls.sizes(), (Shape{0}));
  EXPECT_EQ(lb.out.boxes.dtype(), kFloat32);
  expect_bad_inputs_rejected("letterbox", [](const LabeledImage& in) { letterbox(in, 64, 64); });
  EXPECT_THROW(letterbox(no_boxes(30, 60), 0, 64), ValueError);
  EXPECT_THROW(letterbox(no_boxes(30, 60), 64, -1), ValueError);
}

TEST(VisionLetterbox, ResizeLongSide) {
  const int shapes[][2] = {{375, 500}, {333, 517}, {101, 99}, {1000, 50}, {640, 640}, {20, 30}};
  for (const auto& s : shapes) {
    SCOPED_TRACE(::testing::Message() << s[0] << "x" << s[1]);
    const LabeledImage in = random_scene(s[0], s[1], 1, 0, s[0]);
    const LabeledImage out = resize_long_side(in, 640);
    const double r = 640.0 / std::max(s[0], s[1]);
    const int w = std::min(int(std::ceil(s[1] * r)), 640), h = std::min(int(std::ceil(s[0] * r)), 640);
    ASSERT_EQ(out.image.sizes(), (Shape{h, w, 3}));
    EXPECT_EQ(std::max(h, w), 640);
    expect_boxes_on_objects(out);
    EXPECT_NE(out.image.data_ptr(), in.image.data_ptr());  // a new image even when r == 1
  }
  EXPECT_EQ(resize_long_side(random_scene(333, 517, 1, 0, 1), 640).image.size(0), 413);
  EXPECT_EQ(resize_long_side(no_boxes(20, 10), 64).boxes.sizes(), (Shape{0, 4}));
  expect_bad_inputs_rejected("resize_long_side", [](const LabeledImage& in) { resize_long_side(in, 64); });
  EXPECT_THROW(resize_long_side(no_boxes(20, 10), 0), ValueError);
}

// ---- random_affine ----

TEST(VisionAffine, ScaleTranslateZeroIsIdentity) {
  const LabeledImage in = random_scene(120, 160, 4, 0, 11);
  AugmentOptions o = no_aug();
  Rng rng(1);
  const LabeledImage out = random_affine(in, o, 0, rng);
  EXPECT_TRUE(same_labeled(out, in));
  EXPECT_NE(out.image.data_ptr(), in.image.data_ptr());
  // A negative border then crops the centre: boxes shift by the border.
  const LabeledImage crop = random_affine(in, o, -20, rng);
  ASSERT_EQ(crop.image.sizes(), (Shape{80, 120, 3}));
  expect_boxes_on_objects(crop);
  EXPECT_EQ(px(crop.image, 5, 7)[0], px(in.image, 25, 27)[0]);
}

TEST(VisionAffine, KeepRule) {
  // scale = translate = 0 and border -50: a pure crop of [50, 150)^2, so each rule can be hit exactly.
  const LabeledImage base = no_boxes(200, 200);
  const std::vector<PlainBox> in_boxes = {
      {40, 60, 80, 100, 0},   // 75% inside: kept, clipped to x1 = 0
      {45, 60, 55, 100, 1},   // 50% inside but 5 px wide -> w 5 > 2: kept
      {49, 60, 52, 100, 2},   // 2 px inside: w = 2, dropped (w > 2 needed)
      {20, 60, 56, 100, 3},   // 6/36 = 16.7% area: kept
      {20, 60, 53, 100, 4},   // 3/33 = 9.1% area: dropped (area ratio 0.1)
      {60, 60, 63.5, 100, 5},  // 3.5 x 40: kept
      {60, 60, 62.5, 100, 6},  // 2.5 x 40: kept (w > 2, ar 16)
      {60, 10, 63, 149, 7},   // 3 x 99 (clipped from 139): ar 33, kept
      {70, 50, 73, 150, 8},   // 3 x 100 inside: ar 33.3, kept
      {80, 20, 82.5, 300, 9}, // clipped to 2.5 x 100: ar 40, kept
      {90, -300, 92.1, 400, 10},  // 2.1 x 100, kept; aspect 47.6
  };
  const LabeledImage in{base.image, boxes_tensor(in_boxes), cls_tensor(in_boxes)};
  Rng rng(3);
  const LabeledImage out = random_affine(in, no_aug(), -50, rng);
  std::vector<int> kept;
  for (const PlainBox& b : boxes_of(out)) kept.push_back(b.cls);
  EXPECT_EQ(kept, (std::vector<int>{0, 1, 3, 5, 6, 7, 8, 9, 10}));
  expect_boxes_near({boxes_of(out)[0]}, {{0, 10, 30, 50, 0}}, 1e-4f);
  // Aspect ratio: with M = I, 3 x 320 (ar 106.7) is dropped, 4 x 320 (ar 80) kept.
  const std::vector<PlainBox> tall = {{60, 40, 63, 360, 0}, {70, 40, 74, 360, 1}};
  const LabeledImage t{no_boxes(400, 400).image, boxes_tensor(tall), cls_tensor(tall)};
  const LabeledImage t_out = random_affine(t, no_aug(), 0, rng);
  expect_boxes_near(boxes_of(t_out), {tall[1]}, 0);
}

TEST(VisionAffine, BoxesStayOnObjects) {
  AugmentOptions o;  // Ultralytics defaults: scale 0.5, translate 0.1
  int checked = 0;
  for (uint64_t seed = 0; seed < 8; ++seed) {
    const LabeledImage in = random_scene(320, 320, 6, 0, 100 + seed);
    Rng rng(seed);
    const LabeledImage out = random_affine(in, o, 0, rng);
    ASSERT_EQ(out.image.sizes(), (Shape{320, 320, 3}));
    checked += expect_boxes_on_objects(out);
  }
  EXPECT_GT(checked, 20);
}

TEST(VisionAffine, RotationShearPerspectiveBoxesEnclose) {
  AugmentOptions o;
  o.degrees = 30, o.shear = 5, o.perspective = 0.0005, o.scale = 0.2;
  for (uint64_t seed = 0; seed < 6; ++seed) {
    const LabeledImage in = random_scene(320, 320, 5, 0, 200 + seed);
    Rng rng(seed);
    // Boxes lie in the image; every fully visible (rotated) object's extent matches its box.
    expect_boxes_on_objects(random_affine(in, o, 0, rng), /*axis_aligned=*/false);
  }
}

TEST(VisionAffine, DeterministicPerSeed) {
  const LabeledImage in = random_scene(160, 200, 4, 0, 9);
  AugmentOptions o;
  o.degrees = 10;
  Rng a(42), b(42), c(43);
  const LabeledImage oa = random_affine(in, o, 0, a), ob = random_affine(in, o, 0, b);
  EXPECT_TRUE(same_labeled(oa, ob));
  EXPECT_FALSE(same_bytes(oa.image, random_affine(in, o, 0, c).image));
  EXPECT_EQ(a(), b());  // the same number of draws
}

TEST(VisionAffine, ZeroBoxesAndBadInput) {
  AugmentOptions o;
  Rng rng(0);
  const LabeledImage out = random_affine(no_boxes(64, 64), o, -16, rng);
  EXPECT_EQ(out.image.sizes(), (Shape{32, 32, 3}));
  EXPECT_EQ(out.boxes.sizes(), (Shape{0, 4}));
  EXPECT_EQ(out.cls.sizes(), (Shape{0}));
  expect_bad_inputs_rejected("random_affine", [&](const LabeledImage& in) { random_affine(in, o, 0, rng); });
  EXPECT_THROW(random_affine(no_boxes(64, 64), o, -32, rng), ValueError);
  AugmentOptions bad = o;
  bad.scale = 1;
  EXPECT_THROW(random_affine(no_boxes(64, 64), bad, 0, rng), ValueError);
  bad = o;
  bad.degrees = -1;
  EXPECT_THROW(random_affine(no_boxes(64, 64), bad, 0, rng), ValueError);
  bad = o;
  bad.translate = NAN;
  EXPECT_THROW(random_affine(no_boxes(64, 64), bad, 0, rng), ValueError);
}

// ---- HSV ----

/// BGR of a fully saturated, full-value colour of OpenCV hue h (0..179, degrees / 2).
std::array<int, 3> bgr_of_hue(double h) {
  const double deg = h * 2, f = std::fmod(deg, 60) / 60;
  const int sector = static_cast<int>(deg / 60) % 6;
  const double up = 255 * f, down = 255 * (1 - f);
  double r = 0, g = 0, b = 0;
  switch (sector) {
    case 0: r = 255, g = up; break;
    case 1: r = down, g = 255; break;
    case 2: g = 255, b = up; break;
    case 3: g = down, b = 255; break;
    case 4: r = up, b = 255; break;
    default: r = 255, b = down; break;
  }
  return {int(std::lround(b)), int(std::lround(g)), int(std::lround(r))};
}

Tensor solid(const std::array<int, 3>& bgr) {
  Tensor t = empty({4, 6, 3}, kUInt8);
  for (int i = 0; i < 24; ++i)
    for (int k = 0; k < 3; ++k) t.data_ptr<uint8_t>()[3 * i + k] = static_cast<uint8_t>(bgr[k]);
  return t;
}

void expect_colour(const Tensor& t, const std::array<int, 3>& bgr, int tol) {
  for (int i = 0; i < 24; ++i)
    for (int k = 0; k < 3; ++k) ASSERT_NEAR(t.data_ptr<uint8_t>()[3 * i + k], bgr[k], tol) << i << "," << k;
}

TEST(VisionHsv, ZeroGainsIsIdentity) {
  LabeledImage io = random_scene(64, 80, 3, 0, 12);
  const LabeledImage before{io.image.clone(), io.boxes.clone(), io.cls.clone()};
  AugmentOptions o = no_aug();
  Rng rng(5), untouched(5);
  hsv_jitter(io, o, rng);
  EXPECT_TRUE(same_labeled(io, before));
  EXPECT_EQ(rng(), untouched());  // nothing drawn
}

TEST(VisionHsv, HueWrapsAndSaturationValueClip) {
  // Hues 150, 30, 120, 0 with gain 1.9 -> 285, 57, 228, 0 -> mod 180: 105, 57, 48, 0.
  const double hues[] = {150, 30, 120, 0, 170};
  for (double h : hues) {
    SCOPED_TRACE(h);
    Tensor t = solid(bgr_of_hue(h));
    hsv_gains(t, 1.9, 1, 1);
    expect_colour(t, bgr_of_hue(std::fmod(std::floor(h * 1.9), 180)), 3);
  }
  // A negative hue gain wraps too (floored mod): 30 * -0.5 = -15 -> 165.
  Tensor neg = solid(bgr_of_hue(30));
  hsv_gains(neg, -0.5, 1, 1);
  expect_colour(neg, bgr_of_hue(165), 3);
  // S halved: magenta (255, 0, 255) -> S = 127 -> min channel = 255 - 127 = 128.
  Tensor s = solid({255, 0, 255});
  hsv_gains(s, 1, 0.5, 1);
  expect_colour(s, {255, 128, 255}, 1);
  // V halved -> 127; V doubled clips at 255 (unchanged); S doubled clips (stays saturated).
  Tensor v = solid({255, 0, 255});
  hsv_gains(v, 1, 1, 0.5);
  expect_colour(v, {127, 0, 127}, 1);
  Tensor v2 = solid({255, 0, 255});
  hsv_gains(v2, 1, 2, 2);
  expect_colour(v2, {255, 0, 255}, 0);
  EXPECT_THROW(hsv_gains(v2, NAN, 1, 1), ValueError);
  Tensor f = v2.to(kFloat32);
  EXPECT_THROW(hsv_gains(f, 1, 1, 1), DtypeError);
}

TEST(VisionHsv, JitterDeterministicBoxesUnchanged) {
  const LabeledImage in = random_scene(64, 80, 3, 0, 13);
  AugmentOptions o;
  LabeledImage a{in.image.clone(), in.boxes, in.cls}, b{in.image.clone(), in.boxes, in.cls},
      c{in.image.clone(), in.boxes, in.cls};
  Rng ra(7), rb(7), rc(8);
  hsv_jitter(a, o, ra);
  hsv_jitter(b, o, rb);
  hsv_jitter(c, o, rc);
  EXPECT_TRUE(same_bytes(a.image, b.image));
  EXPECT_FALSE(same_bytes(a.image, c.image));
  EXPECT_FALSE(same_bytes(a.image, in.image));
  EXPECT_TRUE(same_bytes(a.boxes, in.boxes));
  // The draw: gains 1 + U(-1, 1) * (h, s, v) in that order, then hsv_gains.
  Rng rd(7);
  const double gh = 1 + (-1 + 2 * std::generate_canonical<double, 53>(rd)) * o.hsv_h;
  const double gs = 1 + (-1 + 2 * std::generate_canonical<double, 53>(rd)) * o.hsv_s;
  const double gv = 1 + (-1 + 2 * std::generate_canonical<double, 53>(rd)) * o.hsv_v;
  Tensor d = in.image.clone();
  hsv_gains(d, gh, gs, gv);
  EXPECT_TRUE(same_bytes(a.image, d));
}

TEST(VisionHsv, ZeroBoxesAndBadInput) {
  LabeledImage io = no_boxes(16, 16);
  AugmentOptions o;
  Rng rng(0);
  hsv_jitter(io, o, rng);
  EXPECT_EQ(io.boxes.sizes(), (Shape{0, 4}));
  expect_bad_inputs_rejected("hsv_jitter", [&](const LabeledImage& in) {
    LabeledImage copy = in;
    hsv_jitter(copy, o, rng);
  });
  AugmentOptions bad = o;
  bad.hsv_s = -0.1;
  EXPECT_THROW(hsv_jitter(io, bad, rng), ValueError);
}

// ---- flips ----

TEST(VisionFlip, TwiceIsIdentityAndMirrorsPixels) {
  const LabeledImage in = random_scene(61, 87, 4, 0, 14);
  EXPECT_TRUE(same_labeled(flip_lr(flip_lr(in)), in));
  EXPECT_TRUE(same_labeled(flip_ud(flip_ud(in)), in));
  const LabeledImage lr = flip_lr(in), ud = flip_ud(in);
  for (int y = 0; y < 61; y += 7)
    for (int x = 0; x < 87; x += 5) {
      EXPECT_EQ(std::memcmp(px(lr.image, y, x), px(in.image, y, 86 - x), 3), 0);
      EXPECT_EQ(std::memcmp(px(ud.image, y, x), px(in.image, 60 - y, x), 3), 0);
    }
  EXPECT_EQ(expect_boxes_on_objects(lr), 4);
  EXPECT_EQ(expect_boxes_on_objects(ud), 4);
}

TEST(VisionFlip, RandomFlipProbabilities) {
  const LabeledImage in = random_scene(60, 80, 2, 0, 15);
  AugmentOptions o;
  o.flipud = 1, o.fliplr = 1;
  Rng rng(0);
  EXPECT_TRUE(same_labeled(random_flip(in, o, rng), flip_lr(flip_ud(in))));
  o.flipud = 0, o.fliplr = 0;
  const LabeledImage same = random_flip(in, o, rng);
  EXPECT_TRUE(same_labeled(same, in));
  EXPECT_NE(same.image.data_ptr(), in.image.data_ptr());
  o.fliplr = 0.5;
  int flipped = 0;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    Rng a(seed), b(seed);
    const LabeledImage fa = random_flip(in, o, a);
    EXPECT_TRUE(same_labeled(fa, random_flip(in, o, b)));
    flipped += same_labeled(fa, flip_lr(in));
  }
  EXPECT_GT(flipped, 5);
  EXPECT_LT(flipped, 35);
}

TEST(VisionFlip, ZeroBoxesAndBadInput) {
  EXPECT_EQ(flip_lr(no_boxes(8, 9)).boxes.sizes(), (Shape{0, 4}));
  EXPECT_EQ(flip_ud(no_boxes(8, 9)).cls.sizes(), (Shape{0}));
  expect_bad_inputs_rejected("flip_lr", [](const LabeledImage& in) { flip_lr(in); });
  expect_bad_inputs_rejected("flip_ud", [](const LabeledImage& in) { flip_ud(in); });
  AugmentOptions o;
  Rng rng(0);
  expect_bad_inputs_rejected("random_flip", [&](const LabeledImage& in) { random_flip(in, o, rng); });
  o.fliplr = 1.5;
  EXPECT_THROW(random_flip(no_boxes(8, 9), o, rng), ValueError);
}

// ---- mosaic ----

std::array<LabeledImage, 4> mosaic_inputs(int imgsz, uint64_t seed) {
  // Long side = imgsz, mixed orientations; image i uses colours 2i and 2i + 1.
  const int shapes[4][2] = {{imgsz, imgsz * 3 / 4}, {imgsz * 2 / 3, imgsz}, {imgsz, imgsz}, {imgsz / 2, imgsz}};
  std::array<LabeledImage, 4> in;
  for (int i = 0; i < 4; ++i) in[i] = random_scene(shapes[i][0], shapes[i][1], 2, 2 * i, seed * 4 + i);
  return in;
}

TEST(VisionMosaic, SizeAndBoxesStayOnObjects) {
  int checked = 0;
  for (uint64_t seed = 0; seed < 6; ++seed) {
    Rng rng(seed);
    const LabeledImage out = mosaic4(mosaic_inputs(160, seed), 160, rng);
    ASSERT_EQ(out.image.sizes(), (Shape{320, 320, 3}));
    checked += expect_boxes_on_objects(out);
  }
  EXPECT_GT(checked, 20);
}

TEST(VisionMosaic, PlacementAroundCentre) {
  // Uniformly coloured inputs of different sizes: each occupies exactly its quadrant region.
  const int s = 100;
  const int sizes[4][2] = {{100, 70}, {60, 100}, {100, 100}, {50, 90}};  // (h, w)
  std::array<LabeledImage, 4> in;
  for (int i = 0; i < 4; ++i) in[i] = {full({sizes[i][0], sizes[i][1], 3}, 10 * (i + 1), kUInt8), zeros({0, 4}), zeros({0})};
  std::vector<int> xcs;
  for (uint64_t seed = 0; seed < 30; ++seed) {
    Rng rng(seed);
    const LabeledImage out = mosaic4(in, s, rng);
    // The centre is the bottom-right corner of image 0's region.
    int xc = -1, yc = -1;
    for (int y = 0; y < 2 * s; ++y)
      for (int x = 0; x < 2 * s; ++x)
        if (px(out.image, y, x)[0] == 10) xc = std::max(xc, x + 1), yc = std::max(yc, y + 1);
    ASSERT_GE(xc, s / 2);
    ASSERT_LT(xc, 2 * s - s / 2);
    ASSERT_GE(yc, s / 2);
    ASSERT_LT(yc, 2 * s - s / 2);
    xcs.push_back(xc);
    const Rect region[4] = {{std::max(xc - 70, 0), std::max(yc - 100, 0), xc, yc},
                            {xc, std::max(yc - 60, 0), std::min(xc + 100, 2 * s), yc},
                            {std::max(xc - 100, 0), yc, xc, std::min(yc + 100, 2 * s)},
                            {xc, yc, std::min(xc + 90, 2 * s), std::min(yc + 50, 2 * s)}};
    for (int y = 0; y < 2 * s; ++y)
      for (int x = 0; x < 2 * s; ++x) {
        int want = 114;
        for (int i = 0; i < 4; ++i)
          if (x >= region[i].x1 && x < region[i].x2 && y >= region[i].y1 && y < region[i].y2) want = 10 * (i + 1);
        ASSERT_EQ(px(out.image, y, x)[2], want) << "seed " << seed << " at " << x << "," << y;
      }
  }
  std::sort(xcs.begin(), xcs.end());
  EXPECT_GT(xcs.back() - xcs.front(), s / 2);  // the centre moves over its range
}

TEST(VisionMosaic, BoxesShiftedClippedDropped) {
  // Boxes of image 0 (top-left) shift by (xc - w, yc - h); those cropped away are dropped.
  const int s = 100;
  std::array<LabeledImage, 4> in;
  for (int i = 0; i < 4; ++i) in[i] = no_boxes(s, s);
  const std::vector<PlainBox> b0 = {{90, 90, 100, 100, 0},  // next to the centre: always kept
                                    {0, 0, 5, 5, 1},        // top-left corner: cropped unless xc, yc >= 95
                                    {50, 50, 50, 60, 2}};   // zero width: always dropped
  in[0] = {in[0].image, boxes_tensor(b0), cls_tensor(b0)};
  for (uint64_t seed = 0; seed < 10; ++seed) {
    Rng rng(seed), peek(seed);
    const int yc = static_cast<int>(50 + 100 * std::generate_canonical<double, 53>(peek));
    const int xc = static_cast<int>(50 + 100 * std::generate_canonical<double, 53>(peek));
    const LabeledImage out = mosaic4(in, s, rng);
    std::vector<PlainBox> want = {{float(xc - 10), float(yc - 10), float(xc), float(yc), 0}};
    const float dx = float(xc - s), dy = float(yc - s);
    if (5 + dx > 0 && 5 + dy > 0) want.push_back({std::max(dx, 0.f), std::max(dy, 0.f), 5 + dx, 5 + dy, 1});
    expect_boxes_near(boxes_of(out), want, 1e-4f);
  }
}

TEST(VisionMosaic, DeterministicPerSeed) {
  const auto in = mosaic_inputs(96, 3);
  Rng a(1), b(1), c(2);
  const LabeledImage oa = mosaic4(in, 96, a);
  EXPECT_TRUE(same_labeled(oa, mosaic4(in, 96, b)));
  EXPECT_FALSE(same_bytes(oa.image, mosaic4(in, 96, c).image));
}

TEST(VisionMosaic, ZeroBoxesAndBadInput) {
  std::array<LabeledImage, 4> in = {no_boxes(32, 20), no_boxes(32, 32), no_boxes(10, 32), no_boxes(32, 32)};
  Rng rng(0);
  const LabeledImage out = mosaic4(in, 32, rng);
  EXPECT_EQ(out.image.sizes(), (Shape{64, 64, 3}));
  EXPECT_EQ(out.boxes.sizes(), (Shape{0, 4}));
  expect_bad_inputs_rejected("mosaic4", [&](const LabeledImage& bad) {
    std::array<LabeledImage, 4> mixed = in;
    mixed[2] = bad;
    mosaic4(mixed, 32, rng);
  });
  EXPECT_THROW(mosaic4(in, 0, rng), ValueError);
}

TEST(VisionMosaic, ChainKeepsBoxesOnObjects) {
  // The training chain: mosaic -> affine (border -imgsz/2) -> hsv (zero gains) -> flips.
  const int s = 160;
  AugmentOptions o;
  o.hsv_h = o.hsv_s = o.hsv_v = 0;
  o.flipud = 0.5;
  int checked = 0;
  for (uint64_t seed = 0; seed < 8; ++seed) {
    Rng rng(seed);
    LabeledImage x = mosaic4(mosaic_inputs(s, 10 + seed), s, rng);
    x = random_affine(x, o, -s / 2, rng);
    ASSERT_EQ(x.image.sizes(), (Shape{s, s, 3}));
    hsv_jitter(x, o, rng);
    x = random_flip(x, o, rng);
    checked += expect_boxes_on_objects(x);
  }
  EXPECT_GT(checked, 8);
}

// ---- imread / imwrite ----

class VisionImread : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("adept_vision_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

/// Expects IOError with `name` in its message.
void expect_io_error(const std::string& path, const std::string& name) {
  try {
    imread(path);
    ADD_FAILURE() << "no error for " << path;
  } catch (const IOError& e) {
    EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
  }
}

TEST_F(VisionImread, PngRoundTripsExactly) {
  const LabeledImage in = random_scene(37, 53, 2, 0, 16);
  imwrite(path("a.png"), in.image);
  EXPECT_TRUE(same_bytes(imread(path("a.png")), in.image));
}

TEST_F(VisionImread, JpegRoundTripsClosely) {
  const LabeledImage in = random_scene(64, 48, 2, 0, 17);
  imwrite(path("a.jpg"), in.image);
  const Tensor back = imread(path("a.jpg"));
  ASSERT_EQ(back.sizes(), in.image.sizes());
  double err = 0;
  for (int64_t i = 0; i < back.numel(); ++i)
    err += std::abs(int(back.data_ptr<uint8_t>()[i]) - int(in.image.data_ptr<uint8_t>()[i]));
  EXPECT_LT(err / back.numel(), 20);  // JPEG loss on noise
  EXPECT_EQ(expect_boxes_on_objects({back, in.boxes, in.cls}), 2);  // the objects survive
}

TEST_F(VisionImread, MissingTextEmptyAndDirectoryRaise) {
  expect_io_error(path("missing.jpg"), "missing.jpg");
  std::ofstream(path("notes.jpg")) << "this is not an image\n";
  expect_io_error(path("notes.jpg"), "notes.jpg");
  std::ofstream(path("empty.png")).close();
  expect_io_error(path("empty.png"), "empty.png");
  fs::create_directories(path("dir.jpg"));
  expect_io_error(path("dir.jpg"), "dir.jpg");
  EXPECT_THROW(imwrite(path("x.unknown_ext"), random_scene(8, 8, 0, 0, 1).image), IOError);
  EXPECT_THROW(imwrite(path("no/such/dir/x.png"), random_scene(8, 8, 0, 0, 1).image), IOError);
}

TEST_F(VisionImread, TruncatedJpeg) {
  const LabeledImage in = random_scene(200, 300, 3, 0, 18);
  imwrite(path("t.jpg"), in.image);
  const auto size = fs::file_size(path("t.jpg"));
  // Cut in the middle of the scan: decodes (partially, with a libjpeg warning) or raises IOError.
  fs::resize_file(path("t.jpg"), size / 2);
  try {
    EXPECT_EQ(imread(path("t.jpg")).sizes(), (Shape{200, 300, 3}));
  } catch (const IOError& e) {
    EXPECT_NE(std::string(e.what()).find("t.jpg"), std::string::npos);
  }
  // Cut inside the header: nothing decodes.
  fs::resize_file(path("t.jpg"), 40);
  expect_io_error(path("t.jpg"), "t.jpg");
}

TEST_F(VisionImread, RealCocoImage) {
  const fs::path coco = adept::vision::testing::coco128_source();
  if (coco.empty()) GTEST_SKIP() << "coco128 is not available ($ADEPT_COCO128 or ../shared/data)";
  const fs::path images = coco / "images";
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(images))
    if (e.path().extension() == ".jpg") files.push_back(e.path());
  if (files.empty()) GTEST_SKIP() << "no .jpg in " << images;
  std::sort(files.begin(), files.end());
  const Tensor img = imread(files.front().string());
  ASSERT_EQ(img.dim(), 3);
  EXPECT_EQ(img.size(2), 3);
  EXPECT_GT(img.size(0), 100);
  const LabeledImage li{img, zeros({0, 4}), zeros({0})};
  const LabeledImage r = resize_long_side(li, 640);
  EXPECT_EQ(std::max(r.image.size(0), r.image.size(1)), 640);
  EXPECT_EQ(letterbox(r, 640, 640).out.image.sizes(), (Shape{640, 640, 3}));
}

}  // namespace
