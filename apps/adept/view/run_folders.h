// The training runs `adept view` shows: run folders (they hold batches.csv or results.csv) found
// from the folders given on the command line.
#pragma once
#include <string>
#include <vector>

namespace adept::app::view {

struct RunFolder {
  std::string name;  ///< the folder's name; its path below the folders' common parent where two names collide
  std::string path;  ///< the folder as found (absolute)
};

/// The metrics files a run folder may hold.
inline constexpr const char* kBatchesCsv = "batches.csv";
inline constexpr const char* kResultsCsv = "results.csv";

/// Each argument is a run folder (it holds batches.csv or results.csv) or a folder of runs: its
/// subfolders, and theirs one level further down (so `runs` finds runs/detect/<name>), that are
/// run folders, in name order. A run reached twice appears once.
/// Errors: ValueError when `folders` is empty; IOError when an argument does not exist or is not
/// a folder, or when neither it nor its subfolders hold a run.
std::vector<RunFolder> find_run_folders(const std::vector<std::string>& folders);

}  // namespace adept::app::view
