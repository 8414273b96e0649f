// Internal to imread/imwrite: the image codecs, called directly on libjpeg-turbo (codec_jpeg.cpp),
// libpng (codec_png.cpp) and a small BMP reader/writer (codec_bmp.cpp), in place of OpenCV's
// imgcodecs, whose Debian build pulls GDAL and ~150 shared libraries. Each decoder gives exactly the
// pixels cv::imdecode(IMREAD_COLOR) gave (same library calls and conversions, EXIF orientation
// applied the same way); each encoder writes the bytes cv::imwrite wrote with default parameters.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "adept/tensor.h"

namespace adept::vision::detail {

/// A BGR uint8 image in memory: `height` rows of `width` pixels (3 bytes each), `stride` bytes apart.
struct BgrView {
  const uint8_t* data;
  int64_t height, width, stride;
};

/// The largest image decoded (pixels), as OpenCV's CV_IO_MAX_IMAGE_PIXELS: larger ones raise IOError.
inline constexpr int64_t kMaxImagePixels = int64_t{1} << 30;

/// Decodes an encoded image to (H, W, 3) uint8 BGR, the format found from its first bytes (JPEG,
/// PNG, BMP). IOError naming `name` when the format is not one of these (the message lists them) or
/// the data is corrupt or truncated past what the codec recovers from.
Tensor decode_image(const uint8_t* data, size_t size, const std::string& name);
Tensor decode_jpeg(const uint8_t* data, size_t size, const std::string& name);
Tensor decode_png(const uint8_t* data, size_t size, const std::string& name);
Tensor decode_bmp(const uint8_t* data, size_t size, const std::string& name);

/// Encoders; `name` only names the file in errors.
std::vector<uint8_t> encode_jpeg(const BgrView& image, int quality, const std::string& name);
std::vector<uint8_t> encode_png(const BgrView& image, const std::string& name);
std::vector<uint8_t> encode_bmp(const BgrView& image);

/// Encodes `image` in the format of `path`'s extension (case-insensitive: .jpg/.jpeg/.jpe, .png,
/// .bmp/.dib) and writes it there. IOError naming the file for another extension or a failed write.
void write_image(const std::string& path, const BgrView& image, int jpeg_quality = 95);

/// The orientation (1..8) in an EXIF block that starts at its TIFF header ("II*\0" or "MM\0*"), read as
/// OpenCV's ExifReader does (IFD0's tag 0x0112); 1 when absent or unreadable.
int exif_orientation(const uint8_t* tiff, size_t size);
/// `image` turned upright for EXIF orientation `orientation` (1, or out of range: unchanged), as
/// OpenCV's ApplyExifOrientation.
Tensor apply_exif_orientation(const Tensor& image, int orientation);

}  // namespace adept::vision::detail
