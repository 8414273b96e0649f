// The codec chosen for a file (by its signature when decoding, by its extension when encoding, as
// OpenCV's imdecode/imwrite) and the EXIF orientation, read and applied as OpenCV 4.6's ExifReader
// and ApplyExifOrientation.
#include "vision/codecs.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "adept/errors.h"
#include "adept/ops/creation.h"

namespace adept::vision::detail {

namespace {

bool starts_with(const uint8_t* data, size_t size, const char* magic, size_t n) {
  return size >= n && std::memcmp(data, magic, n) == 0;
}

// A name for formats OpenCV read and these codecs do not, for the error message.
const char* other_format(const uint8_t* d, size_t n) {
  if (starts_with(d, n, "II*\0", 4) || starts_with(d, n, "MM\0*", 4)) return "TIFF";
  if (n >= 12 && std::memcmp(d, "RIFF", 4) == 0 && std::memcmp(d + 8, "WEBP", 4) == 0) return "WebP";
  if (starts_with(d, n, "GIF8", 4)) return "GIF";
  if (n >= 2 && d[0] == 'P' && d[1] >= '1' && d[1] <= '7') return "PNM";
  if (starts_with(d, n, "\0\0\0\x0cjP  ", 8) || starts_with(d, n, "\xff\x4f\xff\x51", 4)) return "JPEG 2000";
  if (starts_with(d, n, "#?RADIANCE", 10) || starts_with(d, n, "#?RGBE", 6)) return "Radiance HDR";
  if (starts_with(d, n, "v/1\x01", 4)) return "OpenEXR";
  return nullptr;
}

}  // namespace

Tensor decode_image(const uint8_t* data, size_t size, const std::string& name) {
  if (starts_with(data, size, "\xff\xd8\xff", 3)) return decode_jpeg(data, size, name);
  if (starts_with(data, size, "\x89PNG\r\n\x1a\n", 8)) return decode_png(data, size, name);
  if (starts_with(data, size, "BM", 2)) return decode_bmp(data, size, name);
  const char* other = other_format(data, size);
  throw IOError(fmt::format("image '{}' ({} bytes) is {} (Adept decodes JPEG, PNG and BMP)", name, size,
                            other ? fmt::format("a {} image, an unsupported format", other)
                                  : std::string("not a decodable image")));
}

void write_image(const std::string& path, const BgrView& image, int jpeg_quality) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  std::vector<uint8_t> bytes;
  if (ext == ".jpg" || ext == ".jpeg" || ext == ".jpe")
    bytes = encode_jpeg(image, jpeg_quality, path);
  else if (ext == ".png")
    bytes = encode_png(image, path);
  else if (ext == ".bmp" || ext == ".dib")
    bytes = encode_bmp(image);
  else
    throw IOError(fmt::format("imwrite: cannot write '{}': unsupported extension '{}' (supported: .jpg, .jpeg, "
                              ".jpe, .png, .bmp, .dib)", path, ext));
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  ADEPT_CHECK(f.good(), IOError, "imwrite: cannot open '{}' for writing", path);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  f.close();
  ADEPT_CHECK(!f.fail(), IOError, "imwrite: error while writing '{}'", path);
}

int exif_orientation(const uint8_t* tiff, size_t size) {
  if (size < 8) return 1;
  const bool intel = tiff[0] == 'I' && tiff[1] == 'I';
  if (!intel && !(tiff[0] == 'M' && tiff[1] == 'M')) return 1;
  auto u16 = [&](size_t at) -> int64_t {
    if (at + 2 > size) return -1;
    return intel ? tiff[at] | (tiff[at + 1] << 8) : (tiff[at] << 8) | tiff[at + 1];
  };
  auto u32 = [&](size_t at) -> int64_t {
    if (at + 4 > size) return -1;
    const int64_t a = u16(at), b = u16(at + 2);
    return intel ? a | (b << 16) : (a << 16) | b;
  };
  if (u16(2) != 0x2a) return 1;
  const int64_t ifd = u32(4);
  if (ifd < 0) return 1;
  const int64_t entries = u16(static_cast<size_t>(ifd));
  for (int64_t i = 0; i < entries; ++i) {
    const size_t at = static_cast<size_t>(ifd) + 2 + 12 * static_cast<size_t>(i);
    const int64_t tag = u16(at);
    if (tag < 0) return 1;
    if (tag == 0x0112) {
      const int64_t v = u16(at + 8);
      return v >= 1 && v <= 8 ? static_cast<int>(v) : 1;
    }
  }
  return 1;
}

Tensor apply_exif_orientation(const Tensor& image, int orientation) {
  if (orientation < 2 || orientation > 8) return image;
  const int64_t h = image.size(0), w = image.size(1);
  const bool transpose = orientation >= 5;
  const int64_t oh = transpose ? w : h, ow = transpose ? h : w;
  Tensor out = empty({oh, ow, 3}, kUInt8);
  const uint8_t* src = image.data_ptr<uint8_t>();
  uint8_t* dst = out.data_ptr<uint8_t>();
  for (int64_t y = 0; y < oh; ++y) {
    for (int64_t x = 0; x < ow; ++x) {
      int64_t sy = 0, sx = 0;  // the source pixel of output (y, x)
      switch (orientation) {
        case 2: sy = y, sx = w - 1 - x; break;          // flip left-right
        case 3: sy = h - 1 - y, sx = w - 1 - x; break;  // rotate 180
        case 4: sy = h - 1 - y, sx = x; break;          // flip up-down
        case 5: sy = x, sx = y; break;                  // transpose
        case 6: sy = h - 1 - x, sx = y; break;          // transpose, flip left-right: rotate 90 clockwise
        case 7: sy = h - 1 - x, sx = w - 1 - y; break;  // transpose, rotate 180
        default: sy = x, sx = w - 1 - y; break;         // 8: transpose, flip up-down: rotate 90 anticlockwise
      }
      std::memcpy(dst + (y * ow + x) * 3, src + (sy * w + sx) * 3, 3);
    }
  }
  return out;
}

}  // namespace adept::vision::detail
