// Writes the image fixtures of test_vision_codecs.cpp (tests/cpp/data/codecs/: PNG, JPEG and BMP
// variants made with libpng and libjpeg directly) and records what OpenCV 4.6's
// cv::imdecode(IMREAD_COLOR) decodes from each of them and from every image of ../shared/data/coco128
// (expected.txt: file, height, width, FNV-1a of the pixels; "error" where OpenCV fails). It also checks
// that adept's imread gives the same pixels and that imwrite writes the same bytes as cv::imwrite.
// The fixtures themselves are written by tests/cpp/codec_fixtures.cpp (the tests write them at run time).
// Not part of the build (OpenCV's imgcodecs left the link); rebuild it by hand when a fixture changes:
//   apt-get install libopencv-imgcodecs-dev
//   g++ -std=c++20 -O1 -Iinclude -Isrc -I/usr/include/opencv4 tests/cpp/gen/gen_codec_fixtures.cpp \
//     tests/cpp/codec_fixtures.cpp \
//     -Lbuild/release -ladept_vision -ladept -lopencv_imgcodecs -lopencv_core -lpng -ljpeg -lfmt \
//     -Wl,-rpath,$PWD/build/release -o /tmp/gen_codec_fixtures && /tmp/gen_codec_fixtures
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <jpeglib.h>
#include <png.h>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "../codec_fixtures.h"
#include "adept/errors.h"
#include "adept/vision/transforms.h"
#include "vision/codecs.h"

namespace fs = std::filesystem;

namespace {

using adept::vision::testing::write_codec_fixtures;

uint64_t fnv(const uint8_t* p, size_t n, int64_t h, int64_t w) {
  uint64_t x = 1469598103934665603ull;
  auto mix = [&](uint8_t b) { x = (x ^ b) * 1099511628211ull; };
  for (int k = 0; k < 8; ++k) mix(static_cast<uint8_t>(h >> (8 * k)));
  for (int k = 0; k < 8; ++k) mix(static_cast<uint8_t>(w >> (8 * k)));
  for (size_t i = 0; i < n; ++i) mix(p[i]);
  return x;
}

std::vector<uint8_t> read_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

int failures = 0;

// OpenCV's decoding of `file`, recorded, and adept's compared with it.
// Truncated JPEGs are compared with cv::imread instead: cv::imdecode's suspending source leaves the
// rows past the end uninitialised (and fails on progressive files), cv::imread's (libjpeg's own)
// inserts an end marker and decodes what is there, as imread does.
std::string check(const fs::path& file, const std::string& label, bool from_file = false) {
  const std::vector<uint8_t> bytes = read_bytes(file);
  cv::Mat m;
  try {
    m = from_file ? cv::imread(file.string(), cv::IMREAD_COLOR) : cv::imdecode(bytes, cv::IMREAD_COLOR);
  } catch (const cv::Exception&) {
  }
  std::string line, mine;
  if (m.empty()) {
    line = label + " error";
  } else {
    if (!m.isContinuous()) m = m.clone();
    line = label + " " + std::to_string(m.rows) + " " + std::to_string(m.cols) + " " +
           std::to_string(fnv(m.data, m.total() * 3, m.rows, m.cols));
  }
  try {
    const adept::Tensor t = adept::vision::imread(file.string());
    mine = label + " " + std::to_string(t.size(0)) + " " + std::to_string(t.size(1)) + " " +
           std::to_string(fnv(t.data_ptr<uint8_t>(), t.numel(), t.size(0), t.size(1)));
  } catch (const adept::IOError& e) {
    mine = label + " error";
  }
  if (mine != line) {
    std::cout << "MISMATCH opencv: " << line << "  adept: " << mine << "\n";
    ++failures;
  }
  return line;
}

}  // namespace

int main() {
  const fs::path dir = "tests/cpp/data/codecs";
  fs::create_directories(dir);
  std::vector<std::string> lines;
  write_codec_fixtures(dir);

  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() != ".txt") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) lines.push_back(check(f, f.filename().string()));

  const fs::path coco = "../shared/data/coco128/images";
  std::vector<fs::path> cocos;
  for (const auto& e : fs::directory_iterator(coco)) cocos.push_back(e.path());
  std::sort(cocos.begin(), cocos.end());
  for (const fs::path& f : cocos) lines.push_back(check(f, "coco128/" + f.filename().string()));

  // Corrupt and truncated copies: both fail, or both decode the same pixels.
  const fs::path tmp = fs::temp_directory_path() / "adept_codec_fixtures";
  fs::create_directories(tmp);
  for (const fs::path& f : std::vector<fs::path>{dir / "rgb8.png", dir / "rgb8_interlaced.png", dir / "progressive.jpg",
                                                 cocos.front(), dir / "bmp24_top_down.bmp", dir / "palette8.png"}) {
    const std::vector<uint8_t> b = read_bytes(f);
    for (double frac : {0.1, 0.5, 0.9, 0.99}) {
      const fs::path t = tmp / ("cut_" + f.filename().string());
      std::ofstream(t, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size() * frac));
      check(t, "truncated", true);
    }
    std::vector<uint8_t> c = b;
    for (size_t i = c.size() / 3; i < c.size() / 3 + 16 && i < c.size(); ++i) c[i] ^= 0x5a;
    const fs::path t = tmp / ("bad_" + f.filename().string());
    std::ofstream(t, std::ios::binary).write(reinterpret_cast<const char*>(c.data()), static_cast<std::streamsize>(c.size()));
    check(t, "corrupt", true);
  }

  // Encoders: the same bytes as cv::imwrite with its defaults.
  for (const fs::path& f : {cocos.front(), dir / "rgb8.png", dir / "bmp8.bmp"}) {
    const adept::Tensor im = adept::vision::imread(f.string());
    for (const char* ext : {".jpg", ".png", ".bmp"}) {
      const fs::path a = tmp / (std::string("cv") + ext), b = tmp / (std::string("adept") + ext);
      cv::Mat m(static_cast<int>(im.size(0)), static_cast<int>(im.size(1)), CV_8UC3, im.data_ptr<uint8_t>());
      cv::imwrite(a.string(), m);
      adept::vision::imwrite(b.string(), im);
      if (read_bytes(a) != read_bytes(b)) {
        std::cout << "ENCODE MISMATCH " << f << " " << ext << "\n";
        ++failures;
      }
    }
    // The synthetic shapes' quality.
    const fs::path a = tmp / "cv90.jpg", b = tmp / "adept90.jpg";
    cv::Mat m(static_cast<int>(im.size(0)), static_cast<int>(im.size(1)), CV_8UC3, im.data_ptr<uint8_t>());
    cv::imwrite(a.string(), m, {cv::IMWRITE_JPEG_QUALITY, 90});
    adept::vision::detail::write_image(b.string(), {im.data_ptr<uint8_t>(), im.size(0), im.size(1), im.size(1) * 3}, 90);
    if (read_bytes(a) != read_bytes(b)) {
      std::cout << "ENCODE MISMATCH " << f << " .jpg quality 90\n";
      ++failures;
    }
  }
  fs::remove_all(tmp);

  std::ofstream out(dir / "expected.txt");
  out << "# What OpenCV 4.6 cv::imdecode(IMREAD_COLOR) decodes: file height width fnv1a64(h, w, BGR pixels)\n"
         "# (tests/cpp/gen/gen_codec_fixtures.cpp). coco128/ names ../shared/data/coco128/images.\n";
  for (const std::string& l : lines) out << l << "\n";
  std::cout << lines.size() << " images, " << failures << " mismatches\n";
  return failures ? 1 : 0;
}
