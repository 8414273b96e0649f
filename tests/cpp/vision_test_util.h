// Helpers of the detection-dataset tests: temporary folders, tiny BMP images (written without
// OpenCV), label files, and a private view of ../shared/data/coco128.
#pragma once
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace adept::vision::testing {

namespace fs = std::filesystem;

/// A fresh folder under /tmp, removed (write permission restored first) when destroyed.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "adept_vision_XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(path, ec); it != fs::recursive_directory_iterator(); ++it)
      if (!it->is_symlink()) fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
    fs::permissions(path, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path, ec);
  }
  fs::path operator/(const std::string& p) const { return path / p; }
};

inline void write_file(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

/// A w x h 24-bit BMP of seeded noise (OpenCV decodes it; no encoder needed here).
inline void write_bmp(const fs::path& p, int w, int h, uint32_t seed = 0) {
  const int row = (3 * w + 3) / 4 * 4;
  const uint32_t data = static_cast<uint32_t>(row * h), size = 54 + data;
  std::string b(size, '\0');
  auto put = [&](size_t at, uint32_t v, int n) {
    for (int k = 0; k < n; ++k) b[at + k] = static_cast<char>((v >> (8 * k)) & 0xff);
  };
  b[0] = 'B', b[1] = 'M';
  put(2, size, 4), put(10, 54, 4), put(14, 40, 4), put(18, static_cast<uint32_t>(w), 4);
  put(22, static_cast<uint32_t>(h), 4), put(26, 1, 2), put(28, 24, 2), put(34, data, 4);
  std::mt19937 rng(seed);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < 3 * w; ++x) b[54 + static_cast<size_t>(y) * row + x] = static_cast<char>(rng() & 0xff);
  write_file(p, b);
}

/// The coco128 folder (images/, labels/, classes.txt): $ADEPT_COCO128 when set, else
/// ../shared/data/coco128; absolute, or "" when it is not there.
inline fs::path coco128_source() {
  const char* env = std::getenv("ADEPT_COCO128");
  const fs::path p = env && *env ? fs::path(env) : fs::path(ADEPT_SOURCE_DIR) / "../shared/data/coco128";
  std::error_code ec;
  return fs::is_directory(p / "images", ec) ? fs::canonical(p) : fs::path();
}

/// `dir` made a coco128 dataset folder whose images/, labels/ and classes.txt link to the shared
/// copy, so the label cache lands in `dir`, never in the shared data.
inline void link_coco128(const fs::path& dir) {
  const fs::path src = coco128_source();
  fs::create_directories(dir);
  for (const char* name : {"images", "labels", "classes.txt"}) fs::create_symlink(src / name, dir / name);
}

/// Sets an environment variable for the scope of the object (restoring the old value).
struct ScopedEnv {
  std::string name;
  std::string old;
  bool had;
  ScopedEnv(std::string n, const std::string& value) : name(std::move(n)) {
    const char* o = std::getenv(name.c_str());
    had = o != nullptr;
    if (had) old = o;
    ::setenv(name.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had) ::setenv(name.c_str(), old.c_str(), 1);
    else ::unsetenv(name.c_str());
  }
};

}  // namespace adept::vision::testing

#define ADEPT_SKIP_WITHOUT_COCO128()                                                   \
  do {                                                                                 \
    if (::adept::vision::testing::coco128_source().empty())                            \
      GTEST_SKIP() << "coco128 is not available ($ADEPT_COCO128 or ../shared/data)";   \
  } while (0)
