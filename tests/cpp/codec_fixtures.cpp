// Writes the PNG, JPEG and BMP fixtures of the codec tests with libpng and libjpeg directly (see
// codec_fixtures.h); the same bytes on every run with Debian's libraries.
#include "codec_fixtures.h"

#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <jpeglib.h>
#include <png.h>

namespace adept::vision::testing {
namespace {

std::vector<uint8_t> noise(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

struct PngSpec {
  std::string name;
  int w, h, depth, color;
  bool interlace = false, trns = false;
  int exif = 0;  // orientation in an eXIf chunk, 0: none
};

void write_png(const fs::path& file, const PngSpec& s, uint32_t seed) {
  FILE* f = std::fopen(file.c_str(), "wb");
  png_structp p = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(p);
  png_init_io(p, f);
  png_set_IHDR(p, info, s.w, s.h, s.depth, s.color, s.interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  std::vector<png_color> palette;
  if (s.color == PNG_COLOR_TYPE_PALETTE) {
    const int n = 1 << s.depth;
    const std::vector<uint8_t> c = noise(3 * n, seed + 1);
    for (int i = 0; i < n; ++i) palette.push_back({c[3 * i], c[3 * i + 1], c[3 * i + 2]});
    png_set_PLTE(p, info, palette.data(), n);
  }
  std::vector<png_byte> alpha(4, 7);
  png_color_16 tv{};
  tv.index = 1, tv.red = 5, tv.green = 6, tv.blue = 7, tv.gray = 3;
  if (s.trns) png_set_tRNS(p, info, alpha.data(), s.color == PNG_COLOR_TYPE_PALETTE ? 4 : 0, &tv);
  std::vector<png_byte> exif;
  if (s.exif) {
    // TIFF header (Intel), IFD0 with one entry: orientation (SHORT, count 1).
    exif = {'I', 'I', 0x2a, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0,
            static_cast<png_byte>(s.exif), 0, 0, 0, 0, 0, 0, 0};
    png_set_eXIf_1(p, info, static_cast<png_uint_32>(exif.size()), exif.data());
  }
  png_write_info(p, info);
  const int channels = s.color == PNG_COLOR_TYPE_GRAY || s.color == PNG_COLOR_TYPE_PALETTE ? 1
                       : s.color == PNG_COLOR_TYPE_GRAY_ALPHA                             ? 2
                       : s.color == PNG_COLOR_TYPE_RGB                                    ? 3
                                                                                          : 4;
  const size_t row = (static_cast<size_t>(s.w) * channels * s.depth + 7) / 8;
  std::vector<uint8_t> px = noise(row * s.h, seed);
  std::vector<png_bytep> rows(s.h);
  for (int y = 0; y < s.h; ++y) rows[y] = px.data() + y * row;
  png_write_image(p, rows.data());
  png_write_end(p, info);
  png_destroy_write_struct(&p, &info);
  std::fclose(f);
}

struct JpegSpec {
  std::string name;
  int w, h, components;  // 1 grey, 3 RGB, 4 CMYK
  int exif = 0;          // orientation in an APP1 Exif block, 0: none
  bool progressive = false, big_endian_exif = false, xmp_first = false;
};

void write_jpeg(const fs::path& file, const JpegSpec& s, uint32_t seed) {
  FILE* f = std::fopen(file.c_str(), "wb");
  jpeg_compress_struct c;
  jpeg_error_mgr err;
  c.err = jpeg_std_error(&err);
  jpeg_create_compress(&c);
  jpeg_stdio_dest(&c, f);
  c.image_width = s.w, c.image_height = s.h, c.input_components = s.components;
  c.in_color_space = s.components == 1 ? JCS_GRAYSCALE : s.components == 3 ? JCS_RGB : JCS_CMYK;
  jpeg_set_defaults(&c);
  jpeg_set_quality(&c, 85, TRUE);
  if (s.progressive) jpeg_simple_progression(&c);
  jpeg_start_compress(&c, TRUE);
  if (s.xmp_first) {
    const char xmp[] = "http://ns.adobe.com/xap/1.0/\0<x:xmpmeta/>";
    jpeg_write_marker(&c, JPEG_APP0 + 1, reinterpret_cast<const JOCTET*>(xmp), sizeof xmp);
  }
  if (s.exif) {
    const auto o = static_cast<uint8_t>(s.exif);
    std::vector<uint8_t> app1 = {'E', 'x', 'i', 'f', 0, 0};
    const std::vector<uint8_t> intel = {'I', 'I', 0x2a, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, o, 0, 0, 0, 0, 0, 0, 0};
    const std::vector<uint8_t> moto = {'M', 'M', 0, 0x2a, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, o, 0, 0, 0, 0, 0, 0};
    const auto& t = s.big_endian_exif ? moto : intel;
    app1.insert(app1.end(), t.begin(), t.end());
    jpeg_write_marker(&c, JPEG_APP0 + 1, app1.data(), static_cast<unsigned>(app1.size()));
  }
  // Smooth gradients with some noise: JPEG-like content, every MCU different.
  std::vector<uint8_t> n = noise(static_cast<size_t>(s.w) * s.h * s.components, seed);
  for (int y = 0; y < s.h; ++y)
    for (int x = 0; x < s.w; ++x)
      for (int k = 0; k < s.components; ++k) {
        uint8_t& v = n[(static_cast<size_t>(y) * s.w + x) * s.components + k];
        v = static_cast<uint8_t>((x * (3 + k) + y * (5 - k)) % 256 / 2 + v / 4);
      }
  while (c.next_scanline < c.image_height) {
    JSAMPROW r = n.data() + static_cast<size_t>(c.next_scanline) * s.w * s.components;
    jpeg_write_scanlines(&c, &r, 1);
  }
  jpeg_finish_compress(&c);
  jpeg_destroy_compress(&c);
  std::fclose(f);
}

void put(std::string& b, size_t at, uint32_t v, int n) {
  for (int k = 0; k < n; ++k) b[at + k] = static_cast<char>((v >> (8 * k)) & 0xff);
}

// bpp 1, 4, 8 (palette of 2^bpp entries), 24 or 32; top_down: negative height.
void write_bmp(const fs::path& file, int w, int h, int bpp, bool top_down, uint32_t seed) {
  const int colors = bpp <= 8 ? 1 << bpp : 0;
  const int row = (w * bpp + 31) / 32 * 4;
  const uint32_t offset = 54 + 4 * colors, size = offset + row * h;
  std::string b(size, '\0');
  b[0] = 'B', b[1] = 'M';
  put(b, 2, size, 4), put(b, 10, offset, 4), put(b, 14, 40, 4), put(b, 18, w, 4);
  put(b, 22, top_down ? static_cast<uint32_t>(-h) : static_cast<uint32_t>(h), 4), put(b, 26, 1, 2), put(b, 28, bpp, 2);
  put(b, 34, row * h, 4);
  const std::vector<uint8_t> n = noise(size - 54, seed);
  for (uint32_t i = 54; i < size; ++i) b[i] = static_cast<char>(n[i - 54]);
  for (int i = 0; i < colors; ++i) b[54 + 4 * i + 3] = 0;
  std::ofstream(file, std::ios::binary) << b;
}

}  // namespace

void write_codec_fixtures(const fs::path& dir) {
  fs::create_directories(dir);
  uint32_t seed = 100;
  const std::vector<PngSpec> pngs = {
      {"gray8.png", 23, 17, 8, PNG_COLOR_TYPE_GRAY},
      {"gray1.png", 29, 9, 1, PNG_COLOR_TYPE_GRAY},
      {"gray2.png", 13, 5, 2, PNG_COLOR_TYPE_GRAY},
      {"gray4.png", 15, 7, 4, PNG_COLOR_TYPE_GRAY},
      {"gray16.png", 11, 13, 16, PNG_COLOR_TYPE_GRAY},
      {"gray8_trns.png", 9, 9, 8, PNG_COLOR_TYPE_GRAY, false, true},
      {"gray_alpha8.png", 12, 10, 8, PNG_COLOR_TYPE_GRAY_ALPHA},
      {"gray_alpha16.png", 12, 10, 16, PNG_COLOR_TYPE_GRAY_ALPHA},
      {"rgb8.png", 31, 19, 8, PNG_COLOR_TYPE_RGB},
      {"rgb16.png", 17, 21, 16, PNG_COLOR_TYPE_RGB},
      {"rgb8_trns.png", 10, 10, 8, PNG_COLOR_TYPE_RGB, false, true},
      {"rgb8_interlaced.png", 33, 27, 8, PNG_COLOR_TYPE_RGB, true},
      {"rgba8.png", 25, 14, 8, PNG_COLOR_TYPE_RGBA},
      {"rgba16.png", 14, 25, 16, PNG_COLOR_TYPE_RGBA},
      {"palette8.png", 20, 16, 8, PNG_COLOR_TYPE_PALETTE},
      {"palette4_trns.png", 21, 11, 4, PNG_COLOR_TYPE_PALETTE, false, true},
      {"palette1.png", 19, 8, 1, PNG_COLOR_TYPE_PALETTE},
      {"rgb8_exif6.png", 16, 9, 8, PNG_COLOR_TYPE_RGB, false, false, 6},
  };
  for (const PngSpec& s : pngs) write_png(dir / s.name, s, seed++);
  std::vector<JpegSpec> jpegs = {
      {"gray.jpg", 40, 24, 1},
      {"cmyk.jpg", 33, 20, 4},
      {"progressive.jpg", 50, 30, 3, 0, true},
      {"exif_xmp_first.jpg", 24, 16, 3, 6, false, false, true},
      {"exif6_motorola.jpg", 24, 16, 3, 6, false, true},
  };
  for (int o = 1; o <= 8; ++o) jpegs.push_back({"exif" + std::to_string(o) + ".jpg", 24, 16, 3, o});
  for (const JpegSpec& s : jpegs) write_jpeg(dir / s.name, s, seed++);
  write_bmp(dir / "bmp1.bmp", 21, 7, 1, false, seed++);
  write_bmp(dir / "bmp4.bmp", 13, 9, 4, false, seed++);
  write_bmp(dir / "bmp8.bmp", 15, 11, 8, false, seed++);
  write_bmp(dir / "bmp24_top_down.bmp", 17, 6, 24, true, seed++);
  write_bmp(dir / "bmp32.bmp", 9, 12, 32, false, seed++);

}

}  // namespace adept::vision::testing
