// One metrics CSV of a training run (batches.csv or results.csv as the trainer writes them): a
// header line of column names, then one line of numbers per row.
#pragma once
#include <string>
#include <vector>

namespace adept::app::view {

/// The columns of a metrics CSV, column by column. An empty value, "nan", "inf" or "-" is NaN
/// without comment. A row whose field count differs from the header's is left out and counted;
/// a value that is not a number is NaN. Both are reported in `warnings` (naming the file, the
/// line and the column), except a last line without its newline, which is a row the trainer is
/// writing right now and is left out silently.
struct MetricsTable {
  std::vector<std::string> columns;          ///< the header's names, spaces around them trimmed
  std::vector<std::vector<double>> values;   ///< values[c][r]: column c of row r
  size_t rows = 0;
  size_t skipped_rows = 0;
  std::vector<std::string> warnings;         ///< at most kMaxWarnings lines, then one "... more" line
  static constexpr size_t kMaxWarnings = 5;
};

/// Reads `path`. IOError when it cannot be read; ValueError when it has no header line or a
/// header column is empty.
MetricsTable read_metrics_csv(const std::string& path);

}  // namespace adept::app::view
