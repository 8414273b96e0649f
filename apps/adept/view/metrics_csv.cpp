// Reads a metrics CSV into columns.
#include "metrics_csv.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

#include "adept/errors.h"

namespace adept::app::view {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    fields.push_back(trim(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) return fields;
    start = comma + 1;
  }
}

// The number in `field`; NaN for a missing value; nullopt for text that is not a number.
std::optional<double> parse_number(std::string_view field) {
  if (field.empty() || field == "-") return std::nan("");
  const std::string s(field);
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);  // also reads nan, inf, -inf
  if (end != s.c_str() + s.size()) return std::nullopt;
  return v;
}

void warn(MetricsTable& table, size_t& problems, std::string message) {
  ++problems;
  if (problems <= MetricsTable::kMaxWarnings) table.warnings.push_back(std::move(message));
}

}  // namespace

MetricsTable read_metrics_csv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  ADEPT_CHECK(in, IOError, "cannot read {}", path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();

  MetricsTable table;
  size_t pos = 0, line_number = 0, problems = 0;
  bool header = true;
  while (pos < text.size()) {
    ++line_number;
    size_t eol = text.find('\n', pos);
    const bool terminated = eol != std::string::npos;
    if (!terminated) eol = text.size();
    const std::string_view line = trim(std::string_view(text).substr(pos, eol - pos));
    pos = eol + 1;
    if (line.empty()) continue;
    const std::vector<std::string_view> fields = split(line);
    if (header) {
      for (std::string_view f : fields) {
        ADEPT_CHECK(!f.empty(), ValueError, "{}: the header line '{}' has an empty column name", path, line);
        table.columns.emplace_back(f);
      }
      table.values.resize(fields.size());
      header = false;
      continue;
    }
    if (fields.size() != table.columns.size()) {
      ++table.skipped_rows;
      if (terminated)
        warn(table, problems, fmt::format("{} line {}: {} fields where the header has {}; the row is left out", path,
                                          line_number, fields.size(), table.columns.size()));
      continue;
    }
    for (size_t c = 0; c < fields.size(); ++c) {
      const std::optional<double> v = parse_number(fields[c]);
      if (!v)
        warn(table, problems, fmt::format("{} line {}, column {}: '{}' is not a number; drawn as a gap", path,
                                          line_number, table.columns[c], fields[c]));
      table.values[c].push_back(v.value_or(std::nan("")));
    }
    ++table.rows;
  }
  if (problems > MetricsTable::kMaxWarnings)
    table.warnings.push_back(fmt::format("{}: {} more problems", path, problems - MetricsTable::kMaxWarnings));
  ADEPT_CHECK(!header, ValueError, "{} is empty: expected a header line of column names (epoch,...)", path);
  return table;
}

}  // namespace adept::app::view
