// JPEG decoding and encoding on libjpeg-turbo's libjpeg API, with the calls OpenCV 4.6's
// grfmt_jpeg.cpp makes (so the same pixels and bytes): BGR output straight from libjpeg
// (JCS_EXT_BGR; greyscale replicated), CMYK converted as OpenCV's icvCvt_CMYK2BGR, the first APP1
// marker read for the EXIF orientation. libjpeg's default error handler calls exit(): errors
// longjmp back here instead and become IOError; warnings (a truncated scan) are logged, and the
// image decodes as far as it goes, as with OpenCV.
#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <jpeglib.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "adept/errors.h"
#include "adept/ops/creation.h"
#include "vision/codecs.h"

namespace adept::vision::detail {

namespace {

struct ErrorManager {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
  const char* name;
};

void on_error(j_common_ptr c) {
  auto* e = reinterpret_cast<ErrorManager*>(c->err);
  (*c->err->format_message)(c, e->message);
  std::longjmp(e->jump, 1);
}

// Warnings (libjpeg emits the first of each image): "Premature end of JPEG file" and the like.
void on_warning(j_common_ptr c) {
  auto* e = reinterpret_cast<ErrorManager*>(c->err);
  char text[JMSG_LENGTH_MAX];
  (*c->err->format_message)(c, text);
  try {
    spdlog::warn("'{}': libjpeg: {}", e->name, text);
  } catch (...) {
  }
}

void init_errors(ErrorManager& e, const char* name) {
  jpeg_std_error(&e.pub);
  e.pub.error_exit = on_error;
  e.pub.output_message = on_warning;
  e.message[0] = '\0';
  e.name = name;
}

// The steps that may longjmp hold no object with a destructor.
bool read_header(jpeg_decompress_struct* d, ErrorManager* e, const uint8_t* data, size_t size) {
  if (setjmp(e->jump)) return false;
  jpeg_create_decompress(d);
  jpeg_mem_src(d, data, static_cast<unsigned long>(size));
  jpeg_save_markers(d, JPEG_APP0 + 1, 0xffff);
  jpeg_read_header(d, TRUE);
  d->scale_num = 1;
  d->scale_denom = 1;
  d->out_color_space = d->num_components == 4 ? JCS_CMYK : JCS_EXT_BGR;
  jpeg_calc_output_dimensions(d);
  return true;
}

void cmyk_to_bgr(const uint8_t* cmyk, uint8_t* bgr, JDIMENSION width) {
  for (JDIMENSION i = 0; i < width; ++i, cmyk += 4, bgr += 3) {
    const int k = cmyk[3];
    bgr[2] = static_cast<uint8_t>(k - ((255 - cmyk[0]) * k >> 8));
    bgr[1] = static_cast<uint8_t>(k - ((255 - cmyk[1]) * k >> 8));
    bgr[0] = static_cast<uint8_t>(k - ((255 - cmyk[2]) * k >> 8));
  }
}

bool read_pixels(jpeg_decompress_struct* d, ErrorManager* e, uint8_t* out, size_t stride, uint8_t* cmyk_row) {
  if (setjmp(e->jump)) return false;
  jpeg_start_decompress(d);
  while (d->output_scanline < d->output_height) {
    uint8_t* dst = out + static_cast<size_t>(d->output_scanline) * stride;
    JSAMPROW row = cmyk_row ? cmyk_row : dst;
    jpeg_read_scanlines(d, &row, 1);
    if (cmyk_row) cmyk_to_bgr(cmyk_row, dst, d->output_width);
  }
  jpeg_finish_decompress(d);
  return true;
}

struct DecompressGuard {
  jpeg_decompress_struct* d;
  ~DecompressGuard() { jpeg_destroy_decompress(d); }
};

}  // namespace

Tensor decode_jpeg(const uint8_t* data, size_t size, const std::string& name) {
  jpeg_decompress_struct d;
  std::memset(&d, 0, sizeof d);
  ErrorManager e;
  init_errors(e, name.c_str());
  d.err = &e.pub;
  const DecompressGuard guard{&d};
  if (!read_header(&d, &e, data, size))
    throw IOError(fmt::format("imread: cannot decode JPEG '{}': {}", name, e.message));
  const int64_t h = d.output_height, w = d.output_width;
  if (h <= 0 || w <= 0 || h * w > kMaxImagePixels)
    throw IOError(fmt::format("imread: JPEG '{}' has an unsupported size {}x{}", name, w, h));
  // OpenCV: the first APP1 marker, its TIFF header 6 bytes in (after "Exif\0\0"). Read before
  // decompressing: jpeg_finish_decompress frees the saved markers.
  int orientation = 1;
  for (jpeg_saved_marker_ptr m = d.marker_list; m; m = m->next) {
    if (m->marker != JPEG_APP0 + 1) continue;
    if (m->data_length > 6) orientation = exif_orientation(m->data + 6, m->data_length - 6);
    break;
  }
  Tensor image = empty({h, w, 3}, kUInt8);
  std::vector<uint8_t> cmyk(d.out_color_space == JCS_CMYK ? static_cast<size_t>(w) * 4 : 0);
  if (!read_pixels(&d, &e, image.data_ptr<uint8_t>(), static_cast<size_t>(w) * 3, cmyk.empty() ? nullptr : cmyk.data()))
    throw IOError(fmt::format("imread: cannot decode JPEG '{}': {}", name, e.message));
  return apply_exif_orientation(image, orientation);
}

namespace {

struct CompressGuard {
  jpeg_compress_struct* c;
  unsigned char** buffer;
  ~CompressGuard() {
    jpeg_destroy_compress(c);
    std::free(*buffer);
  }
};

bool compress(jpeg_compress_struct* c, ErrorManager* e, const BgrView* im, int quality, unsigned char** buffer,
              unsigned long* size) {
  if (setjmp(e->jump)) return false;
  jpeg_create_compress(c);
  jpeg_mem_dest(c, buffer, size);
  c->image_width = static_cast<JDIMENSION>(im->width);
  c->image_height = static_cast<JDIMENSION>(im->height);
  c->input_components = 3;
  c->in_color_space = JCS_EXT_BGR;
  jpeg_set_defaults(c);
  c->restart_interval = 0;
  jpeg_set_quality(c, quality, TRUE);
  jpeg_start_compress(c, TRUE);
  while (c->next_scanline < c->image_height) {
    JSAMPROW row = const_cast<uint8_t*>(im->data) + static_cast<size_t>(c->next_scanline) * im->stride;
    jpeg_write_scanlines(c, &row, 1);
  }
  jpeg_finish_compress(c);
  return true;
}

}  // namespace

std::vector<uint8_t> encode_jpeg(const BgrView& image, int quality, const std::string& name) {
  jpeg_compress_struct c;
  std::memset(&c, 0, sizeof c);
  ErrorManager e;
  init_errors(e, name.c_str());
  c.err = &e.pub;
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  const CompressGuard guard{&c, &buffer};
  if (!compress(&c, &e, &image, std::clamp(quality, 1, 100), &buffer, &size))
    throw IOError(fmt::format("imwrite: cannot encode JPEG '{}': {}", name, e.message));
  return {buffer, buffer + size};
}

}  // namespace adept::vision::detail
