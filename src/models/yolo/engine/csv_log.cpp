// Metrics CSV files (csv_log.h).
#include "models/yolo/engine/csv_log.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "adept/errors.h"
#include "io/atomic_file.h"

namespace adept::models::yolo::detail {

CsvLog::CsvLog(std::string path, const std::vector<std::string>& columns) : path_(std::move(path)) {
  file_ = std::fopen(path_.c_str(), "a");
  ADEPT_CHECK(file_ != nullptr, IOError, "cannot open {} for appending: {}", path_, std::strerror(errno));
  if (std::ftell(file_) == 0) {
    std::string header;
    for (size_t i = 0; i < columns.size(); ++i) header += (i ? "," : "") + columns[i];
    std::fprintf(file_, "%s\n", header.c_str());
    std::fflush(file_);
  }
}

CsvLog::~CsvLog() {
  if (file_) std::fclose(file_);
}

void CsvLog::append(const std::vector<double>& values) {
  std::string row;
  for (size_t i = 0; i < values.size(); ++i) row += fmt::format("{}{:.6g}", i ? "," : "", values[i]);
  std::fprintf(file_, "%s\n", row.c_str());
  std::fflush(file_);
}

void CsvLog::keep_rows(const std::string& path, const std::function<bool(double, double)>& keep) {
  std::ifstream in(path);
  if (!in) return;
  std::string line, out;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    bool kept = header;
    if (!header) {
      std::istringstream fields(line);
      std::string a, b;
      std::getline(fields, a, ',');
      std::getline(fields, b, ',');
      try {
        kept = keep(std::stod(a), b.empty() ? 0.0 : std::stod(b));
      } catch (const std::exception&) {
        kept = false;  // a torn last line of a killed run
      }
    }
    if (kept) out += line + "\n";
    header = false;
  }
  io::AtomicFile f(path);
  f.write(out.data(), out.size());
  f.commit();
}

}  // namespace adept::models::yolo::detail
