// imread's codecs (libjpeg-turbo, libpng and BMP, src/vision/codec_*.cpp) against what OpenCV's
// imgcodecs decoded: tests/cpp/data/codecs/expected.txt records cv::imdecode(IMREAD_COLOR) on the
// fixtures that codec_fixtures.cpp writes at run time (grey, RGB, RGBA, palette, 1/2/4/16-bit, tRNS,
// interlaced PNG; grey, CMYK, progressive, EXIF-oriented JPEG; 1/4/8/24/32-bit BMP) and on every
// coco128 image (tests/cpp/gen/gen_codec_fixtures.cpp recorded both); each must decode to the same
// pixels.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "adept/adept.h"
#include "adept/vision/transforms.h"
#include "codec_fixtures.h"
#include "vision/codecs.h"
#include "vision_test_util.h"

using namespace adept;
using namespace adept::vision;
using namespace adept::vision::testing;

namespace {

bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && a.dtype() == b.dtype() &&
         std::memcmp(a.contiguous().data_ptr(), b.contiguous().data_ptr(), a.numel() * a.element_size()) == 0;
}

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

const fs::path kExpected = fs::path(ADEPT_SOURCE_DIR) / "tests/cpp/data/codecs/expected.txt";

uint64_t fnv(const Tensor& t) {
  uint64_t x = 1469598103934665603ull;
  auto mix = [&](uint8_t b) { x = (x ^ b) * 1099511628211ull; };
  for (int k = 0; k < 8; ++k) mix(static_cast<uint8_t>(t.size(0) >> (8 * k)));
  for (int k = 0; k < 8; ++k) mix(static_cast<uint8_t>(t.size(1) >> (8 * k)));
  const uint8_t* p = t.data_ptr<uint8_t>();
  for (int64_t i = 0; i < t.numel(); ++i) mix(p[i]);
  return x;
}

struct Expected {
  std::string file;
  bool error = false;
  int64_t h = 0, w = 0;
  uint64_t hash = 0;
};

std::vector<Expected> read_expected() {
  std::ifstream f(kExpected);
  std::vector<Expected> out;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    Expected e;
    std::string h;
    s >> e.file >> h;
    if (h == "error") {
      e.error = true;
    } else {
      e.h = std::stoll(h);
      s >> e.w >> e.hash;
    }
    out.push_back(e);
  }
  return out;
}

void expect_like_opencv(const Expected& e, const fs::path& file) {
  SCOPED_TRACE(e.file);
  if (e.error) {
    try {
      imread(file.string());
      ADD_FAILURE() << "decoded, OpenCV did not";
    } catch (const IOError& err) {
      EXPECT_NE(std::string(err.what()).find(file.filename().string()), std::string::npos) << err.what();
    }
    return;
  }
  const Tensor t = imread(file.string());
  EXPECT_EQ(t.sizes(), (Shape{e.h, e.w, 3}));
  EXPECT_EQ(t.dtype(), kUInt8);
  EXPECT_EQ(fnv(t), e.hash) << "pixels differ from OpenCV's";
}

Tensor pattern(int64_t h, int64_t w) {
  Tensor t = empty({h, w, 3}, kUInt8);
  for (int64_t i = 0; i < t.numel(); ++i) t.data_ptr<uint8_t>()[i] = static_cast<uint8_t>(i * 7 + i / 5);
  return t;
}

class VisionCodecs : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("adept_codecs_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string message_of(const std::string& file) {
    try {
      imread(file);
    } catch (const IOError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no IOError for " << file;
    return "";
  }
  fs::path dir_;
};

}  // namespace

TEST(VisionCodecsOpenCV, FixturesDecodeAsOpenCV) {
  const fs::path dir = fs::temp_directory_path() / ("adept_codec_fixtures_" + std::to_string(::getpid()));
  write_codec_fixtures(dir);
  const std::vector<Expected> all = read_expected();
  int n = 0;
  for (const Expected& e : all)
    if (e.file.rfind("coco128/", 0) != 0) expect_like_opencv(e, dir / e.file), ++n;
  EXPECT_EQ(n, 36);
  fs::remove_all(dir);
}

TEST(VisionCodecsOpenCV, Coco128DecodesAsOpenCV) {
  const fs::path coco = coco128_source();
  if (coco.empty()) GTEST_SKIP() << "no ../shared/data/coco128";
  int n = 0;
  for (const Expected& e : read_expected())
    if (e.file.rfind("coco128/", 0) == 0) expect_like_opencv(e, coco / "images" / e.file.substr(8)), ++n;
  EXPECT_EQ(n, 128);
}

TEST_F(VisionCodecs, EncodersRoundTrip) {
  const Tensor im = pattern(13, 21);
  for (const char* name : {"a.png", "a.PNG", "a.bmp", "a.dib"}) {
    imwrite(path(name), im);
    EXPECT_TRUE(same_bytes(imread(path(name)), im)) << name;
  }
  for (const char* name : {"a.jpg", "a.JPEG", "a.jpe"}) {
    imwrite(path(name), im);
    EXPECT_EQ(imread(path(name)).sizes(), im.sizes()) << name;
  }
  // A smooth image survives JPEG closely.
  Tensor smooth = empty({32, 48, 3}, kUInt8);
  for (int64_t y = 0; y < 32; ++y)
    for (int64_t x = 0; x < 48; ++x)
      for (int64_t c = 0; c < 3; ++c) smooth.data_ptr<uint8_t>()[(y * 48 + x) * 3 + c] = static_cast<uint8_t>(3 * x + 2 * y + 40 * c);
  imwrite(path("s.jpg"), smooth);
  const Tensor back = imread(path("s.jpg"));
  double err = 0;
  for (int64_t i = 0; i < back.numel(); ++i)
    err += std::abs(int(back.data_ptr<uint8_t>()[i]) - int(smooth.data_ptr<uint8_t>()[i]));
  EXPECT_LT(err / back.numel(), 3);
}

TEST_F(VisionCodecs, UnsupportedFormatsNameTheFileAndTheSupportedOnes) {
  write_file(dir_ / "a.webp", std::string("RIFF\x10\0\0\0WEBPVP8 ", 16) + std::string(64, '\0'));
  std::string m = message_of(path("a.webp"));
  EXPECT_NE(m.find("a.webp"), std::string::npos) << m;
  EXPECT_NE(m.find("WebP"), std::string::npos) << m;
  EXPECT_NE(m.find("JPEG, PNG and BMP"), std::string::npos) << m;
  write_file(dir_ / "a.tif", std::string("II*\0", 4) + std::string(64, '\0'));
  EXPECT_NE(message_of(path("a.tif")).find("TIFF"), std::string::npos);
  EXPECT_THROW(imwrite(path("x.webp"), pattern(4, 4)), IOError);
  try {
    imwrite(path("x.tiff"), pattern(4, 4));
  } catch (const IOError& e) {
    EXPECT_NE(std::string(e.what()).find(".png"), std::string::npos) << e.what();
  }
}

TEST_F(VisionCodecs, CorruptAndTruncatedFilesRaiseIOError) {
  imwrite(path("a.png"), pattern(40, 40));
  const std::string png = read_file(dir_ / "a.png");
  write_file(dir_ / "cut.png", png.substr(0, png.size() / 2));
  EXPECT_NE(message_of(path("cut.png")).find("cut.png"), std::string::npos);
  write_file(dir_ / "head.png", png.substr(0, 12));
  EXPECT_NE(message_of(path("head.png")).find("head.png"), std::string::npos);
  std::string bad = png;
  for (size_t i = 40; i < 60; ++i) bad[i] = static_cast<char>(bad[i] ^ 0x33);
  write_file(dir_ / "bad.png", bad);
  EXPECT_NE(message_of(path("bad.png")).find("bad.png"), std::string::npos);

  write_file(dir_ / "junk.jpg", std::string("\xff\xd8\xff\xe0", 4) + std::string(200, '\x42'));
  EXPECT_NE(message_of(path("junk.jpg")).find("junk.jpg"), std::string::npos);

  imwrite(path("a.bmp"), pattern(10, 10));
  const std::string bmp = read_file(dir_ / "a.bmp");
  write_file(dir_ / "cut.bmp", bmp.substr(0, bmp.size() - 5));
  EXPECT_NE(message_of(path("cut.bmp")).find("truncated"), std::string::npos);
  std::string rle = bmp;
  rle[30] = 1;  // BI_RLE8
  write_file(dir_ / "rle.bmp", rle);
  EXPECT_NE(message_of(path("rle.bmp")).find("compression"), std::string::npos);
}

TEST(VisionCodecsExif, OrientationTurnsTheImageUpright) {
  // 2 x 3 image whose pixels are numbered 0..5 row by row (all channels equal).
  Tensor im = empty({2, 3, 3}, kUInt8);
  for (int64_t i = 0; i < 18; ++i) im.data_ptr<uint8_t>()[i] = static_cast<uint8_t>(i / 3);
  auto pixels = [](const Tensor& t) {
    std::vector<int> v;
    for (int64_t i = 0; i < t.numel(); i += 3) v.push_back(t.data_ptr<uint8_t>()[i]);
    return v;
  };
  const std::vector<std::vector<int>> expected = {
      {0, 1, 2, 3, 4, 5}, {2, 1, 0, 5, 4, 3}, {5, 4, 3, 2, 1, 0}, {3, 4, 5, 0, 1, 2},
      {0, 3, 1, 4, 2, 5}, {3, 0, 4, 1, 5, 2}, {5, 2, 4, 1, 3, 0}, {2, 5, 1, 4, 0, 3}};
  for (int o = 1; o <= 8; ++o) {
    const Tensor t = vision::detail::apply_exif_orientation(im, o);
    EXPECT_EQ(t.sizes(), o >= 5 ? (Shape{3, 2, 3}) : (Shape{2, 3, 3})) << o;
    EXPECT_EQ(pixels(t), expected[o - 1]) << o;
  }
  const uint8_t intel[] = {'I', 'I', 0x2a, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0};
  EXPECT_EQ(vision::detail::exif_orientation(intel, sizeof intel), 6);
  EXPECT_EQ(vision::detail::exif_orientation(intel, 12), 1);  // cut short
  const uint8_t moto[] = {'M', 'M', 0, 0x2a, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 3, 0, 0};
  EXPECT_EQ(vision::detail::exif_orientation(moto, sizeof moto), 3);
}
