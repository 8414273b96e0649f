// BMP decoding and encoding, as OpenCV 4.6's grfmt_bmp.cpp for the common files: uncompressed
// 1-, 4-, 8-bit (palette), 24-bit and 32-bit (alpha dropped) pixels, bottom-up or top-down, any
// BITMAPINFOHEADER version (40 bytes or more). RLE-compressed, 16-bit and OS/2 files raise IOError.
// Written: 24-bit, bottom-up, rows padded to 4 bytes, byte for byte as OpenCV writes them.
#include <array>
#include <cstring>

#include <fmt/format.h>

#include "adept/errors.h"
#include "adept/ops/creation.h"
#include "vision/codecs.h"

namespace adept::vision::detail {

namespace {

uint32_t u32(const uint8_t* p) { return p[0] | (p[1] << 8) | (p[2] << 16) | (uint32_t{p[3]} << 24); }
uint16_t u16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }

void put32(std::vector<uint8_t>& b, uint32_t v) {
  for (int k = 0; k < 4; ++k) b.push_back(static_cast<uint8_t>(v >> (8 * k)));
}
void put16(std::vector<uint8_t>& b, uint16_t v) {
  b.push_back(static_cast<uint8_t>(v));
  b.push_back(static_cast<uint8_t>(v >> 8));
}

constexpr uint32_t kRgb = 0, kBitfields = 3;

}  // namespace

Tensor decode_bmp(const uint8_t* data, size_t size, const std::string& name) {
  auto fail = [&](const std::string& why) {
    return IOError(fmt::format("imread: cannot decode BMP '{}': {}", name, why));
  };
  if (size < 14 + 40) throw fail("truncated header");
  const uint32_t offset = u32(data + 10), header = u32(data + 14);
  if (header < 40) throw fail(fmt::format("unsupported header of {} bytes (OS/2 bitmap)", header));
  if (size < 14 + size_t{header}) throw fail("truncated header");
  const int32_t width = static_cast<int32_t>(u32(data + 18)), signed_height = static_cast<int32_t>(u32(data + 22));
  const int bpp = u16(data + 28);
  const uint32_t compression = u32(data + 30), colors_used = u32(data + 46);
  const bool top_down = signed_height < 0;
  const int64_t w = width, h = top_down ? -int64_t{signed_height} : signed_height;
  if (w <= 0 || h <= 0 || w * h > kMaxImagePixels) throw fail(fmt::format("unsupported size {}x{}", w, h));
  if (bpp != 1 && bpp != 4 && bpp != 8 && bpp != 24 && bpp != 32)
    throw fail(fmt::format("unsupported {}-bit pixels (supported: 1, 4, 8, 24, 32)", bpp));
  bool ok_compression = compression == kRgb;
  if (compression == kBitfields && bpp == 32) {
    // Only the standard masks (B, G, R bytes in order); the masks follow a 40-byte header.
    const size_t at = 14 + 40;
    ok_compression = size >= at + 12 && u32(data + at) == 0xff0000 && u32(data + at + 4) == 0xff00 &&
                     u32(data + at + 8) == 0xff;
  }
  if (!ok_compression)
    throw fail(fmt::format("unsupported compression {} (only uncompressed BMP files are read)", compression));

  std::array<uint8_t, 256 * 4> palette{};  // BGRA; indices past the palette read black, as OpenCV
  if (bpp <= 8) {
    const size_t n = std::min<size_t>(colors_used == 0 ? size_t{1} << bpp : colors_used, 256);
    const size_t at = 14 + size_t{header};
    if (size < at + 4 * n) throw fail("truncated palette");
    std::memcpy(palette.data(), data + at, 4 * n);
  }
  const size_t row_bytes = (static_cast<size_t>(w) * bpp + 31) / 32 * 4;
  if (offset > size || (size - offset) / row_bytes < static_cast<size_t>(h)) throw fail("truncated pixel data");

  Tensor image = empty({h, w, 3}, kUInt8);
  uint8_t* out = image.data_ptr<uint8_t>();
  for (int64_t y = 0; y < h; ++y) {
    const uint8_t* src = data + offset + static_cast<size_t>(top_down ? y : h - 1 - y) * row_bytes;
    uint8_t* dst = out + y * w * 3;
    if (bpp == 24) {
      std::memcpy(dst, src, static_cast<size_t>(w) * 3);
    } else if (bpp == 32) {
      for (int64_t x = 0; x < w; ++x) std::memcpy(dst + 3 * x, src + 4 * x, 3);
    } else {
      const int per_byte = 8 / bpp, mask = (1 << bpp) - 1;
      for (int64_t x = 0; x < w; ++x) {
        const int shift = 8 - bpp * (1 + static_cast<int>(x % per_byte));
        const int index = (src[x / per_byte] >> shift) & mask;
        std::memcpy(dst + 3 * x, palette.data() + 4 * index, 3);
      }
    }
  }
  return image;
}

std::vector<uint8_t> encode_bmp(const BgrView& image) {
  const auto w = static_cast<uint32_t>(image.width), h = static_cast<uint32_t>(image.height);
  const uint32_t step = (w * 3 + 3) & ~3u, header = 14 + 40;
  std::vector<uint8_t> b;
  b.reserve(header + size_t{step} * h);
  b.push_back('B'), b.push_back('M');
  put32(b, header + step * h), put32(b, 0), put32(b, header);
  put32(b, 40), put32(b, w), put32(b, h), put16(b, 1), put16(b, 24);
  for (int k = 0; k < 6; ++k) put32(b, 0);  // BI_RGB, image size, resolution, colours
  for (int64_t y = image.height - 1; y >= 0; --y) {
    const uint8_t* row = image.data + y * image.stride;
    b.insert(b.end(), row, row + 3 * size_t{w});
    b.insert(b.end(), step - 3 * w, 0);
  }
  return b;
}

}  // namespace adept::vision::detail
