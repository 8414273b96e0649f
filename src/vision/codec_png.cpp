// PNG decoding and encoding on libpng, with the transformations OpenCV 4.6's grfmt_png.cpp asks
// for (so the same pixels and bytes): 16-bit samples cut to their high byte (png_set_strip_16),
// alpha and transparency dropped without compositing, palette and 1/2/4-bit grey expanded, grey
// replicated to BGR; the eXIf chunk's orientation applied. Errors longjmp back here (png_error) and
// become IOError naming the file; libpng's warnings (profile quirks) go to the debug log.
#include <csetjmp>
#include <cstdio>
#include <cstring>

#include <png.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "adept/errors.h"
#include "adept/ops/creation.h"
#include "vision/codecs.h"

namespace adept::vision::detail {

namespace {

struct Io {
  const uint8_t* data;
  size_t size, pos;
  std::vector<uint8_t>* out;
  const char* name;
  char message[256];
};

void on_error(png_structp p, png_const_charp msg) {
  auto* io = static_cast<Io*>(png_get_error_ptr(p));
  std::snprintf(io->message, sizeof io->message, "%s", msg);
  png_longjmp(p, 1);
}

void on_warning(png_structp p, png_const_charp msg) {
  auto* io = static_cast<Io*>(png_get_error_ptr(p));
  try {
    spdlog::debug("'{}': libpng: {}", io->name, msg);
  } catch (...) {
  }
}

void read_fn(png_structp p, png_bytep out, size_t n) {
  auto* io = static_cast<Io*>(png_get_io_ptr(p));
  if (io->size - io->pos < n) png_error(p, "truncated file");
  std::memcpy(out, io->data + io->pos, n);
  io->pos += n;
}

void write_fn(png_structp p, png_bytep in, size_t n) {
  auto* io = static_cast<Io*>(png_get_io_ptr(p));
  io->out->insert(io->out->end(), in, in + n);
}

void flush_fn(png_structp) {}

struct ReadGuard {
  png_structp png = nullptr;
  png_infop info = nullptr, end = nullptr;
  ~ReadGuard() { png_destroy_read_struct(&png, &info, &end); }
};

// The steps that may longjmp hold no object with a destructor.
bool read_header(const ReadGuard* g, png_uint_32* w, png_uint_32* h, size_t* rowbytes) {
  if (setjmp(png_jmpbuf(g->png))) return false;
  png_set_read_fn(g->png, png_get_error_ptr(g->png), read_fn);
  png_read_info(g->png, g->info);
  int depth = 0, color = 0;
  png_get_IHDR(g->png, g->info, w, h, &depth, &color, nullptr, nullptr, nullptr);
  if (depth == 16) png_set_strip_16(g->png);
  png_set_strip_alpha(g->png);
  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(g->png);
  if ((color & PNG_COLOR_MASK_COLOR) == 0 && depth < 8) png_set_expand_gray_1_2_4_to_8(g->png);
  if (color & PNG_COLOR_MASK_COLOR)
    png_set_bgr(g->png);
  else
    png_set_gray_to_rgb(g->png);
  png_set_interlace_handling(g->png);
  png_read_update_info(g->png, g->info);
  *rowbytes = png_get_rowbytes(g->png, g->info);
  return true;
}

bool read_pixels(const ReadGuard* g, png_bytepp rows) {
  if (setjmp(png_jmpbuf(g->png))) return false;
  png_read_image(g->png, rows);
  png_read_end(g->png, g->end);
  return true;
}

}  // namespace

Tensor decode_png(const uint8_t* data, size_t size, const std::string& name) {
  Io io{data, size, 0, nullptr, name.c_str(), "out of memory"};
  ReadGuard g;
  g.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &io, on_error, on_warning);
  if (g.png) g.info = png_create_info_struct(g.png);
  if (g.info) g.end = png_create_info_struct(g.png);
  if (!g.end) throw IOError(fmt::format("imread: cannot decode PNG '{}': out of memory", name));
  png_uint_32 w = 0, h = 0;
  size_t rowbytes = 0;
  if (!read_header(&g, &w, &h, &rowbytes))
    throw IOError(fmt::format("imread: cannot decode PNG '{}': {}", name, io.message));
  if (h == 0 || w == 0 || int64_t{h} * w > kMaxImagePixels || rowbytes != size_t{w} * 3)
    throw IOError(fmt::format("imread: PNG '{}' has an unsupported size {}x{}", name, w, h));
  Tensor image = empty({int64_t{h}, int64_t{w}, 3}, kUInt8);
  std::vector<png_bytep> rows(h);
  for (png_uint_32 y = 0; y < h; ++y) rows[y] = image.data_ptr<uint8_t>() + size_t{y} * rowbytes;
  if (!read_pixels(&g, rows.data()))
    throw IOError(fmt::format("imread: cannot decode PNG '{}': {}", name, io.message));
  png_uint_32 n_exif = 0;
  png_bytep exif = nullptr;
  if (png_get_valid(g.png, g.info, PNG_INFO_eXIf))
    png_get_eXIf_1(g.png, g.info, &n_exif, &exif);
  else if (png_get_valid(g.png, g.end, PNG_INFO_eXIf))
    png_get_eXIf_1(g.png, g.end, &n_exif, &exif);
  if (exif && n_exif > 0) return apply_exif_orientation(image, exif_orientation(exif, n_exif));
  return image;
}

namespace {

struct WriteGuard {
  png_structp png = nullptr;
  png_infop info = nullptr;
  ~WriteGuard() { png_destroy_write_struct(&png, &info); }
};

// OpenCV's defaults: the SUB filter, zlib level 1 (Z_BEST_SPEED), strategy Z_RLE.
bool write_png(const WriteGuard* g, const BgrView* im, png_bytepp rows) {
  if (setjmp(png_jmpbuf(g->png))) return false;
  png_set_write_fn(g->png, png_get_error_ptr(g->png), write_fn, flush_fn);
  png_set_filter(g->png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
  png_set_compression_level(g->png, 1);
  png_set_compression_strategy(g->png, 3);
  png_set_IHDR(g->png, g->info, static_cast<png_uint_32>(im->width), static_cast<png_uint_32>(im->height), 8,
               PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(g->png, g->info);
  png_set_bgr(g->png);
  png_write_image(g->png, rows);
  png_write_end(g->png, g->info);
  return true;
}

}  // namespace

std::vector<uint8_t> encode_png(const BgrView& image, const std::string& name) {
  std::vector<uint8_t> out;
  Io io{nullptr, 0, 0, &out, name.c_str(), "out of memory"};
  WriteGuard g;
  g.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &io, on_error, on_warning);
  if (g.png) g.info = png_create_info_struct(g.png);
  if (!g.info) throw IOError(fmt::format("imwrite: cannot encode PNG '{}': out of memory", name));
  std::vector<png_bytep> rows(static_cast<size_t>(image.height));
  for (int64_t y = 0; y < image.height; ++y) rows[y] = const_cast<uint8_t*>(image.data) + y * image.stride;
  if (!write_png(&g, &image, rows.data()))
    throw IOError(fmt::format("imwrite: cannot encode PNG '{}': {}", name, io.message));
  return out;
}

}  // namespace adept::vision::detail
