// Reads a metrics CSV into columns.
#include "metrics_csv.h"

#include <algorithm>
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

// The fields of one CSV line (RFC 4180: a field in double quotes may hold commas, "" is a quote).
std::vector<std::string> split(std::string_view line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false, was_quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted) {
      if (ch != '"') field += ch;
      else if (i + 1 < line.size() && line[i + 1] == '"') field += '"', ++i;
      else quoted = false;
    } else if (ch == '"' && trim(field).empty()) {
      quoted = was_quoted = true;
      field.clear();
    } else if (ch == ',') {
      fields.emplace_back(was_quoted ? field : std::string(trim(field)));
      field.clear();
      was_quoted = false;
    } else {
      field += ch;
    }
  }
  fields.emplace_back(was_quoted ? field : std::string(trim(field)));
  return fields;
}

// `s` as a warning may show it: control characters and bytes that are not UTF-8 text as \xNN, at most
// 40 characters.
std::string printable(std::string_view s) {
  std::string out;
  size_t i = 0;
  for (size_t shown = 0; i < s.size() && shown < 40; ++shown) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = len > 0 && i + len <= s.size() && (len > 1 || (c >= 0x20 && c != 0x7F));
    for (size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(s[i + k]) >> 6) == 0x2;
    if (ok) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      out += fmt::format("\\x{:02x}", c);
      ++i;
    }
  }
  if (i < s.size()) out += "...";
  return out;
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

  ADEPT_CHECK(text.find('\0') == std::string::npos, ValueError, "{} is not a text CSV (it holds NUL bytes)", path);

  MetricsTable table;
  size_t pos = text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;  // a UTF-8 byte order mark (Excel writes one)
  size_t line_number = 0, problems = 0;
  std::vector<size_t> non_finite, first_non_finite;  // per column: count, line of the first
  bool header = true;
  while (pos < text.size()) {
    ++line_number;
    size_t eol = text.find('\n', pos);
    const bool terminated = eol != std::string::npos;
    if (!terminated) eol = text.size();
    const std::string_view line = trim(std::string_view(text).substr(pos, eol - pos));
    pos = eol + 1;
    if (line.empty()) continue;
    const std::vector<std::string> fields = split(line);
    if (header) {
      for (const std::string& f : fields) {
        ADEPT_CHECK(!f.empty(), ValueError, "{}: the header line '{}' has an empty column name", path,
                    printable(line));
        std::string name = f;
        for (int k = 2; std::find(table.columns.begin(), table.columns.end(), name) != table.columns.end(); ++k)
          name = fmt::format("{} ({})", f, k);
        if (name != f)
          warn(table, problems, fmt::format("{}: the header names column '{}' twice; the second is drawn as '{}'",
                                            path, printable(f), printable(name)));
        table.columns.push_back(std::move(name));
      }
      table.values.resize(fields.size());
      non_finite.assign(fields.size(), 0);
      first_non_finite.assign(fields.size(), 0);
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
                                          line_number, printable(table.columns[c]), printable(fields[c])));
      else if (!std::isfinite(*v) && !fields[c].empty() && fields[c] != "-" && non_finite[c]++ == 0)
        first_non_finite[c] = line_number;
      table.values[c].push_back(v.value_or(std::nan("")));
    }
    ++table.rows;
  }
  for (size_t c = 0; c < non_finite.size(); ++c)  // a column that is never finite (val=False) is not news
    if (non_finite[c] && std::any_of(table.values[c].begin(), table.values[c].end(), [](double v) { return std::isfinite(v); }))
      warn(table, problems, fmt::format("{}, column {}: {} value{} nan or inf (the first on line {}); drawn as gaps",
                                        path, printable(table.columns[c]), non_finite[c],
                                        non_finite[c] == 1 ? " is" : "s are", first_non_finite[c]));
  if (problems > MetricsTable::kMaxWarnings)
    table.warnings.push_back(fmt::format("{}: {} more problems", path, problems - MetricsTable::kMaxWarnings));
  ADEPT_CHECK(!header, ValueError, "{} is empty: expected a header line of column names (epoch,...)", path);
  return table;
}

}  // namespace adept::app::view
