// One metrics CSV of a training run (batches.csv or results.csv as the trainer writes them): a
// header line of column names, then one line of numbers per row.
#pragma once
#include <string>
#include <vector>

namespace adept::app::view {

/// The columns of a metrics CSV, column by column (RFC 4180 quoting, a UTF-8 byte order mark
/// skipped). An empty value or "-" is NaN without comment. These are reported in `warnings`
/// (naming the file, the line and the column, non-text bytes shown as \xNN): a row whose field
/// count differs from the header's (left out and counted, except a last line without its newline:
/// a row the trainer is writing right now), a value that is not a number (NaN), nan / inf values in
/// a column that also has finite ones (gaps; one line per column), a column name used twice (the
/// second becomes "name (2)").
struct MetricsTable {
  std::vector<std::string> columns;          ///< the header's names, spaces around them trimmed
  std::vector<std::vector<double>> values;   ///< values[c][r]: column c of row r
  size_t rows = 0;
  size_t skipped_rows = 0;
  std::vector<std::string> warnings;         ///< at most kMaxWarnings lines, then one "... more" line
  static constexpr size_t kMaxWarnings = 5;
};

/// Reads `path`. IOError when it cannot be read; ValueError when it has no header line, a header
/// column is empty or the file holds NUL bytes (not a text file).
MetricsTable read_metrics_csv(const std::string& path);

}  // namespace adept::app::view
