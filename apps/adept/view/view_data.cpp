// The runs' CSVs as the JSON document a viewer page draws.
#include "view_data.h"

#include <cmath>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "metrics_csv.h"

namespace adept::app::view {

namespace fs = std::filesystem;

namespace {

// The table of `csv`, or null when it is absent or cannot be read (the reason added to `warnings`:
// one damaged file must not hide the other runs).
nlohmann::json table_json(const fs::path& csv, std::vector<std::string>& warnings) {
  std::error_code ec;
  if (!fs::is_regular_file(csv, ec)) return nullptr;
  MetricsTable t;
  try {
    t = read_metrics_csv(csv.string());
  } catch (const std::exception& e) {
    warnings.push_back(fmt::format("{}; not drawn", e.what()));
    return nullptr;
  }
  warnings.insert(warnings.end(), t.warnings.begin(), t.warnings.end());
  nlohmann::json data = nlohmann::json::object();
  for (size_t c = 0; c < t.columns.size(); ++c) {
    nlohmann::json column = nlohmann::json::array();
    for (double v : t.values[c]) column.push_back(std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr));
    data[t.columns[c]] = std::move(column);
  }
  return {{"columns", t.columns}, {"rows", t.rows}, {"data", std::move(data)}};
}

}  // namespace

std::string data_fingerprint(const std::vector<RunFolder>& runs) {
  std::string out;
  for (const RunFolder& run : runs) {
    for (const char* file : {kBatchesCsv, kResultsCsv}) {
      const fs::path p = fs::path(run.path) / file;
      std::error_code ec;
      const auto size = fs::file_size(p, ec);
      if (ec) continue;
      const auto mtime = fs::last_write_time(p, ec).time_since_epoch().count();
      out += fmt::format("{}:{}:{};", p.string(), size, mtime);
    }
  }
  return fmt::format("{:016x}", std::hash<std::string>{}(out));
}

std::string view_data_json(const std::vector<RunFolder>& runs, std::vector<std::string>* all_warnings) {
  nlohmann::json doc;
  doc["version"] = data_fingerprint(runs);  // before reading: a change while reading shows at the next poll
  doc["runs"] = nlohmann::json::array();
  for (const RunFolder& run : runs) {
    std::vector<std::string> warnings;
    nlohmann::json batches = table_json(fs::path(run.path) / kBatchesCsv, warnings);
    nlohmann::json results = table_json(fs::path(run.path) / kResultsCsv, warnings);
    if (all_warnings) all_warnings->insert(all_warnings->end(), warnings.begin(), warnings.end());
    doc["runs"].push_back({{"name", run.name},
                           {"path", run.path},
                           {"batches", std::move(batches)},
                           {"results", std::move(results)},
                           {"warnings", std::move(warnings)}});
  }
  return doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace adept::app::view
