// Metrics CSV files of a training run (results.csv per epoch, batches.csv per batch): rows are
// appended and flushed as they come; a resumed run first drops the rows written after the
// checkpoint it resumes from, so no row appears twice.
#pragma once
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace adept::models::yolo::detail {

class CsvLog {
 public:
  /// Opens `path` for appending; writes `columns` as the header when the file is new or empty.
  /// IOError when it cannot be opened.
  CsvLog(std::string path, const std::vector<std::string>& columns);
  ~CsvLog();
  CsvLog(const CsvLog&) = delete;
  CsvLog& operator=(const CsvLog&) = delete;
  /// Appends one row (numbers printed with 6 significant digits) and flushes it.
  void append(const std::vector<double>& values);
  const std::string& path() const { return path_; }

  /// Rewrites `path` (atomically) keeping the header and the rows for which keep(first two
  /// columns) is true; nothing happens when the file does not exist.
  static void keep_rows(const std::string& path, const std::function<bool(double, double)>& keep);

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
};

}  // namespace adept::models::yolo::detail
