// The image fixtures of the codec tests: 36 small PNG (grey, RGB, RGBA, palette, 1/2/4/16-bit, tRNS,
// interlaced, eXIf), JPEG (grey, CMYK, progressive, EXIF orientations 1-8 in Intel and Motorola order,
// XMP before Exif) and BMP (1/4/8/24/32-bit, top-down) files of seeded noise, written by the tests at
// run time. tests/cpp/data/codecs/expected.txt records what OpenCV decodes from each
// (tests/cpp/gen/gen_codec_fixtures.cpp).
#pragma once
#include <filesystem>

namespace adept::vision::testing {

namespace fs = std::filesystem;

/// Writes every fixture into `dir` (created when missing), named as in expected.txt.
void write_codec_fixtures(const fs::path& dir);

}  // namespace adept::vision::testing
