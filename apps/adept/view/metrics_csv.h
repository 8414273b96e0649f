// One metrics CSV of a training run (batches.csv or results.csv as the trainer writes them): a
// header line of column names, then one line of numbers per row.
#pragma once
#include <string>
#include <vector>

namespace adept::app::view {

/// The columns of a metrics CSV, column by column. A value that is empty or not a number
/// ("nan", "-") is NaN. A row whose field count differs from the header's is left out and
/// counted (a row the trainer is writing right now, a damaged line).
struct MetricsTable {
  std::vector<std::string> columns;          ///< the header's names, spaces around them trimmed
  std::vector<std::vector<double>> values;   ///< values[c][r]: column c of row r
  size_t rows = 0;
  size_t skipped_rows = 0;
};

/// Reads `path`. IOError when it cannot be read; ValueError when it has no header line or a
/// header column is empty.
MetricsTable read_metrics_csv(const std::string& path);

}  // namespace adept::app::view
