// The label cache: a JSON file holding a split's scanned labels, valid while its key matches.
#include "vision/label_cache.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "io/atomic_file.h"

namespace adept::vision::detail {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kCacheVersion = 1;

uint64_t fnv1a(uint64_t h, std::string_view bytes) {
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}
constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ULL;

}  // namespace

FileStamp stamp_file(const std::string& file) {
  FileStamp s;
  s.file = file;
  struct stat st {};
  if (::stat(file.c_str(), &st) == 0) {
    s.size = static_cast<int64_t>(st.st_size);
    s.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
  }
  return s;
}

std::string cache_key(const std::vector<FileStamp>& stamps, int64_t nc) {
  uint64_t h = fnv1a(kFnvOffset, fmt::format("adept-label-cache-v{} nc={}\n", kCacheVersion, nc));
  for (const FileStamp& s : stamps) h = fnv1a(h, fmt::format("{}\t{}\t{}\n", s.file, s.size, s.mtime_ns));
  return fmt::format("{:016x}", h);
}

std::optional<CachedScan> read_label_cache(const std::string& cache_file, const std::string& key) {
  std::ifstream in(cache_file);
  if (!in.good()) return std::nullopt;
  try {
    const json j = json::parse(in);
    if (j.at("version").get<int>() != kCacheVersion || j.at("key").get<std::string>() != key) return std::nullopt;
    CachedScan scan;
    for (const auto& im : j.at("images")) {
      ImageLabels l;
      l.im_file = im.at("f").get<std::string>();
      l.height = im.at("h").get<int64_t>();
      l.width = im.at("w").get<int64_t>();
      const auto& b = im.at("b");
      if (b.size() % 5 != 0) return std::nullopt;
      for (size_t i = 0; i < b.size(); i += 5)
        l.boxes.push_back({b[i].get<int64_t>(), b[i + 1].get<float>(), b[i + 2].get<float>(), b[i + 3].get<float>(),
                           b[i + 4].get<float>()});
      scan.summary.boxes += static_cast<int64_t>(l.boxes.size());
      scan.summary.backgrounds += l.boxes.empty();
      scan.images.push_back(std::move(l));
    }
    const auto& s = j.at("summary");
    scan.summary.images = static_cast<int64_t>(scan.images.size());
    scan.summary.corrupt = s.at("corrupt").get<int64_t>();
    scan.summary.bad_lines = s.at("bad_lines").get<int64_t>();
    scan.summary.duplicates = s.at("duplicates").get<int64_t>();
    scan.summary.warnings = s.at("warnings").get<std::vector<std::string>>();
    return scan;
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

void write_label_cache(const std::string& cache_file, const std::string& key, const CachedScan& scan) {
  json images = json::array();
  for (const ImageLabels& l : scan.images) {
    json b = json::array();
    for (const BoxLabel& x : l.boxes)
      for (json v : {json(x.cls), json(x.cx), json(x.cy), json(x.w), json(x.h)}) b.push_back(std::move(v));
    images.push_back({{"f", l.im_file}, {"h", l.height}, {"w", l.width}, {"b", std::move(b)}});
  }
  const json j = {{"version", kCacheVersion},
                  {"key", key},
                  {"images", std::move(images)},
                  {"summary",
                   {{"corrupt", scan.summary.corrupt},
                    {"bad_lines", scan.summary.bad_lines},
                    {"duplicates", scan.summary.duplicates},
                    {"warnings", scan.summary.warnings}}}};
  const std::string text = j.dump();
  io::AtomicFile f(cache_file);
  f.write(text.data(), text.size());
  f.commit();
}

std::string user_cache_file(const std::string& primary) {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  fs::path base = (xdg && *xdg) ? fs::path(xdg) : fs::path(home && *home ? home : "/tmp") / ".cache";
  return (base / "adept" / "labels" / fmt::format("{:016x}.json", fnv1a(kFnvOffset, primary))).string();
}

}  // namespace adept::vision::detail
