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

nlohmann::json table_json(const fs::path& csv) {
  std::error_code ec;
  if (!fs::is_regular_file(csv, ec)) return nullptr;
  const MetricsTable t = read_metrics_csv(csv.string());
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

std::string view_data_json(const std::vector<RunFolder>& runs) {
  nlohmann::json doc;
  doc["version"] = data_fingerprint(runs);  // before reading: a change while reading shows at the next poll
  doc["runs"] = nlohmann::json::array();
  for (const RunFolder& run : runs) {
    doc["runs"].push_back({{"name", run.name},
                           {"path", run.path},
                           {"batches", table_json(fs::path(run.path) / kBatchesCsv)},
                           {"results", table_json(fs::path(run.path) / kResultsCsv)}});
  }
  return doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace adept::app::view
