// Finds the run folders below the command line's folders and names them.
#include "run_folders.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "adept/errors.h"

namespace adept::app::view {

namespace fs = std::filesystem;

namespace {

bool is_run_folder(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / kBatchesCsv, ec) || fs::is_regular_file(dir / kResultsCsv, ec);
}

std::vector<fs::path> subfolders(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec)) out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

// Runs at `dir` itself or up to `depth` folder levels below it.
void collect(const fs::path& dir, int depth, std::vector<fs::path>& runs) {
  if (is_run_folder(dir)) {
    runs.push_back(dir);
    return;
  }
  if (depth == 0) return;
  for (const fs::path& sub : subfolders(dir)) collect(sub, depth - 1, runs);
}

fs::path common_parent(const std::vector<fs::path>& paths) {
  fs::path common = paths.front().parent_path();
  for (const fs::path& p : paths) {
    while (!common.empty() && std::mismatch(common.begin(), common.end(), p.begin(), p.end()).first != common.end())
      common = common.parent_path() == common ? fs::path() : common.parent_path();
  }
  return common;
}

}  // namespace

std::vector<RunFolder> find_run_folders(const std::vector<std::string>& folders) {
  ADEPT_CHECK(!folders.empty(), ValueError, "view: no run folder given (e.g. `adept view runs/detect/train`)");
  std::vector<fs::path> runs;
  std::set<fs::path> seen;
  for (const std::string& arg : folders) {
    std::error_code ec;
    const fs::path dir = fs::weakly_canonical(fs::absolute(arg), ec);
    ADEPT_CHECK(!ec && fs::exists(dir), IOError, "view: {} does not exist (expected a run folder such as "
                "runs/detect/train, or a folder of runs)", arg);
    ADEPT_CHECK(fs::is_directory(dir), IOError, "view: {} is not a folder (expected a run folder such as "
                "runs/detect/train, or a folder of runs)", arg);
    std::vector<fs::path> found;
    collect(dir, 2, found);
    ADEPT_CHECK(!found.empty(), IOError, "view: {} holds no {} or {}, nor do its subfolders (expected a run folder "
                "of `adept train` such as runs/detect/train, or a folder of runs)", arg, kBatchesCsv, kResultsCsv);
    for (const fs::path& p : found)
      if (seen.insert(p).second) runs.push_back(p);
  }
  std::map<std::string, int> name_count;
  for (const fs::path& p : runs) ++name_count[p.filename().string()];
  const fs::path parent = common_parent(runs);
  std::vector<RunFolder> out;
  for (const fs::path& p : runs) {
    const std::string base = p.filename().string();
    out.push_back({name_count[base] > 1 ? p.lexically_relative(parent).string() : base, p.string()});
  }
  return out;
}

}  // namespace adept::app::view
