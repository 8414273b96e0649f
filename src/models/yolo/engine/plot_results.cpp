// results.png from results.csv (plots.h).
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string_view>

#include "adept/errors.h"
#include "models/yolo/engine/figure.h"
#include "models/yolo/engine/plots.h"

namespace adept::models::yolo::detail {

namespace {

// Columns of a CSV with a header line, by name; empty or unparsable cells are NaN.
std::map<std::string, std::vector<double>> read_columns(const std::string& path) {
  std::ifstream in(path);
  ADEPT_CHECK(in.good(), IOError, "plots: cannot read {}", path);
  std::string line;
  std::vector<std::string> header;
  std::map<std::string, std::vector<double>> cols;
  for (size_t row = 0; std::getline(in, line); ++row) {
    std::stringstream ss(line);
    std::string cell;
    for (size_t c = 0; std::getline(ss, cell, ','); ++c) {
      if (row == 0) {
        header.push_back(cell);
        continue;
      }
      if (c >= header.size()) break;
      char* end = nullptr;
      const double v = std::strtod(cell.c_str(), &end);
      cols[header[c]].push_back(end != cell.c_str() ? v : std::numeric_limits<double>::quiet_NaN());
    }
  }
  return cols;
}

// A centred moving average over about a tenth of the points (NaNs skipped), as a guide to the eye.
std::vector<double> smooth(const std::vector<double>& y) {
  const auto half = static_cast<ptrdiff_t>(y.size() / 20);
  std::vector<double> out(y.size(), std::numeric_limits<double>::quiet_NaN());
  for (ptrdiff_t i = 0; i < static_cast<ptrdiff_t>(y.size()); ++i) {
    double sum = 0;
    int n = 0;
    for (ptrdiff_t j = std::max<ptrdiff_t>(0, i - half); j <= std::min<ptrdiff_t>(y.size() - 1, i + half); ++j)
      if (std::isfinite(y[j])) sum += y[j], ++n;
    if (n && std::isfinite(y[i])) out[i] = sum / n;
  }
  return out;
}

}  // namespace

void plot_results(const std::string& results_csv, const std::string& out_png) {
  const auto cols = read_columns(results_csv);
  static const char* kPanels[] = {"train/box_loss", "train/cls_loss",       "train/dfl_loss",
                                  "metrics/precision(B)", "metrics/recall(B)", "val/box_loss",
                                  "val/cls_loss",   "val/dfl_loss",         "metrics/mAP50(B)",
                                  "metrics/mAP50-95(B)"};
  auto it = cols.find("epoch");
  ADEPT_CHECK(it != cols.end(), IOError, "plots: {} has no 'epoch' column", results_csv);
  const std::vector<double>& x = it->second;
  Figure fig(2000, 900, 5, 2);
  for (const char* name : kPanels) {
    const auto c = cols.find(name);
    const std::vector<double> y = c != cols.end() ? c->second : std::vector<double>(x.size(), NAN);
    double lo = INFINITY, hi = -INFINITY, xlo = INFINITY, xhi = -INFINITY;
    for (size_t i = 0; i < y.size() && i < x.size(); ++i)
      if (std::isfinite(y[i])) lo = std::min(lo, y[i]), hi = std::max(hi, y[i]), xlo = std::min(xlo, x[i]),
                               xhi = std::max(xhi, x[i]);
    if (!std::isfinite(lo)) lo = 0, hi = 1, xlo = 0, xhi = 1;
    const bool metric = std::string_view(name).rfind("metrics/", 0) == 0;  // a fraction in [0, 1]
    double ymin = 0, ymax = 1;
    if (hi - lo > 1e-12 * std::max(1.0, std::fabs(hi))) {
      const double pad = (hi - lo) * 0.08;
      ymin = metric ? std::max(0.0, lo - pad) : lo - pad;
      ymax = hi + pad;
    } else if (!metric || hi > 0) {  // a constant: a range around it (a metric that is 0 throughout keeps [0, 1])
      const double pad = hi != 0 ? std::fabs(hi) * 0.1 : 1.0;
      ymin = metric ? std::max(0.0, lo - pad) : lo - pad;
      ymax = hi + pad;
    }
    const bool legend = std::string_view(name) == "train/box_loss";
    if (legend) ymax += (ymax - ymin) * 0.25;  // headroom for the legend box above the curve
    Axes a;
    a.title = name;
    a.xlabel = "epoch";
    a.xmin = xlo - 0.5;
    a.xmax = xhi + 0.5;
    a.ymin = ymin;
    a.ymax = ymax;
    fig.panel(a, 0.18, 0.95, 0.18, 0.86);
    fig.line(x, y, Figure::series_color(0), 2.0, true);
    fig.line(x, smooth(y), Figure::series_color(1), 1.5);
    if (legend) fig.legend({"results", "smooth"}, {Figure::series_color(0), Figure::series_color(1)});
  }
  fig.save(out_png);
}

}  // namespace adept::models::yolo::detail
