// The validation curves and the confusion matrix (plots.h).
#include <algorithm>
#include <filesystem>
#include <numeric>

#include <fmt/format.h>

#include "models/yolo/engine/figure.h"
#include "models/yolo/engine/plots.h"

namespace adept::models::yolo::detail {

namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxLegendClasses = 20;  // more classes: grey lines without a legend, as Ultralytics
constexpr size_t kMaxNameChars = 20;      // longer class names are shortened in legends and tick labels

std::string class_name(int64_t cls, const std::vector<std::string>& names) {
  return cls >= 0 && cls < static_cast<int64_t>(names.size()) ? names[cls] : std::to_string(cls);
}

// One curve figure: a line per class and their mean (thick, labelled by `mean_label`).
void curve_figure(const std::vector<double>& x, const std::vector<std::vector<double>>& ys,
                  const std::vector<std::string>& labels, const std::string& mean_label, const Axes& axes,
                  const std::string& path) {
  Figure fig(1200, 900);
  fig.panel(axes, 0.1, 0.95, 0.1, 0.92);
  const bool legend = ys.size() <= kMaxLegendClasses;
  std::vector<std::string> names;
  std::vector<Rgb> colors;
  for (size_t c = 0; c < ys.size(); ++c) {
    const Rgb col = legend ? Figure::series_color(c + 1) : Rgb{170, 170, 170};
    fig.line(x, ys[c], col, 1.2);
    if (legend) names.push_back(labels[c]), colors.push_back(col);
  }
  std::vector<double> mean(x.size(), 0.0);
  for (const auto& y : ys)
    for (size_t i = 0; i < x.size(); ++i) mean[i] += y[i] / static_cast<double>(ys.size());
  if (!ys.empty()) {
    fig.line(x, mean, {8, 48, 160}, 3.5);
    names.push_back(mean_label);
    colors.push_back({8, 48, 160});
  }
  fig.legend(names, colors, axes.title.find("Precision-Recall") == std::string::npos);
  fig.save(path);
}

// The mean of the per-class curves at its maximum: (value, x).
std::pair<double, double> mean_peak(const std::vector<double>& x, const std::vector<std::vector<double>>& ys) {
  double best = -1, at = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    double m = 0;
    for (const auto& y : ys) m += y[i] / static_cast<double>(ys.size());
    if (m > best) best = m, at = x[i];
  }
  return {best, at};
}

}  // namespace

void plot_curves(const DetectionResults& r, const std::vector<std::string>& names, const std::string& dir) {
  const size_t k = r.classes.size();
  std::vector<double> conf(kConfPoints), recall(kRecallPoints);
  for (int j = 0; j < kConfPoints; ++j) conf[j] = static_cast<double>(j) / kConfPoints;
  for (int j = 0; j < kRecallPoints; ++j) recall[j] = static_cast<double>(j) / (kRecallPoints - 1);
  std::vector<std::vector<double>> pr(k), p(k), rc(k), f1(k, std::vector<double>(kConfPoints));
  std::vector<std::string> pr_labels(k), labels(k);
  for (size_t c = 0; c < k; ++c) {
    pr[c].assign(r.pr_curve[c].begin(), r.pr_curve[c].end());
    p[c] = r.p_curve[c];
    rc[c] = r.r_curve[c];
    for (int j = 0; j < kConfPoints; ++j) f1[c][j] = 2 * p[c][j] * rc[c][j] / (p[c][j] + rc[c][j] + 1e-16);
    labels[c] = shorten(class_name(r.classes[c], names), kMaxNameChars);
    pr_labels[c] = fmt::format("{} {:.3f}", labels[c], r.ap[c][0]);
  }
  Axes a;
  a.grid = true;
  a.title = "Precision-Recall Curve";
  a.xlabel = "Recall";
  a.ylabel = "Precision";
  a.ymax = 1.02;
  // Each file on its own: one that cannot be written does not keep the others from being drawn.
  try_plot("BoxPR_curve.png", [&] {
    curve_figure(recall, pr, pr_labels, fmt::format("all classes {:.3f} mAP@0.5", r.map50), a,
                 (fs::path(dir) / "BoxPR_curve.png").string());
  });
  const struct {
    const char *file, *title, *ylabel;
    const std::vector<std::vector<double>>& ys;
  } kinds[] = {{"BoxF1_curve.png", "F1-Confidence Curve", "F1", f1},
               {"BoxP_curve.png", "Precision-Confidence Curve", "Precision", p},
               {"BoxR_curve.png", "Recall-Confidence Curve", "Recall", rc}};
  for (const auto& kind : kinds) {
    const auto [v, at] = mean_peak(conf, kind.ys);
    a.title = kind.title;
    a.xlabel = "Confidence";
    a.ylabel = kind.ylabel;
    try_plot(kind.file, [&] {
      curve_figure(conf, kind.ys, labels, fmt::format("all classes {:.2f} at {:.3f}", std::max(v, 0.0), at), a,
                   (fs::path(dir) / kind.file).string());
    });
  }
}

void plot_confusion_matrix(const ConfusionMatrix& m, const std::vector<std::string>& names, const std::string& dir) {
  const int64_t n = m.nc() + 1;
  std::vector<std::string> ticks;
  for (int64_t c = 0; c < m.nc(); ++c) ticks.push_back(shorten(class_name(c, names), kMaxNameChars));
  ticks.push_back("background");
  const std::vector<double> normalized = m.normalized();
  for (const bool norm : {false, true}) {
    const char* file = norm ? "confusion_matrix_normalized.png" : "confusion_matrix.png";
    try_plot(file, [&] {
    // Row 0 of the picture (top) is predicted class 0: the heatmap's rows run upwards.
    std::vector<double> z(n * n);
    double zmax = 0;
    for (int64_t q = 0; q < n; ++q)
      for (int64_t t = 0; t < n; ++t) {
        const double v = norm ? normalized[q * n + t] : static_cast<double>(m.at(q, t));
        z[(n - 1 - q) * n + t] = v;
        zmax = std::max(zmax, v);
      }
    Figure fig(1400, 1250);
    Axes a;
    a.title = norm ? "Confusion Matrix Normalized" : "Confusion Matrix";
    a.xmax = static_cast<double>(n);
    a.ymax = static_cast<double>(n);
    a.frame_only = true;
    fig.panel(a, 0.18, 0.96, 0.2, 0.94);
    fig.heatmap(z, static_cast<int>(n), static_cast<int>(n), norm ? 1.0 : zmax);
    const double tick_size = n > 40 ? 0.4 : n > 15 ? 0.6 : 0.8;
    // The axis titles go beyond the longest tick label.
    size_t longest = 0;
    for (const std::string& t : ticks) longest = std::max(longest, t.size());
    const double title_disp = 1.5 + (n <= 100 ? 0.75 * static_cast<double>(longest) * tick_size / 0.9 : 0.0);
    fig.edge_text('b', 0.5, "True", 0.9, false, title_disp, 0.5);
    fig.edge_text('l', 0.5, "Predicted", 0.9, true, title_disp, 0.5);
    if (n <= 100)
      for (int64_t i = 0; i < n; ++i) {
        const double at = (static_cast<double>(i) + 0.5) / static_cast<double>(n);
        fig.edge_text('b', at, ticks[i], tick_size, /*vertical=*/true);
        fig.edge_text('l', 1.0 - at, ticks[i], tick_size);
      }
    if (n <= 30)
      for (int64_t q = 0; q < n; ++q)
        for (int64_t t = 0; t < n; ++t) {
          const double v = z[(n - 1 - q) * n + t];
          if (norm ? v < 0.005 : v == 0) continue;
          const Rgb ink = v / (norm ? 1.0 : zmax) > 0.5 ? Rgb{255, 255, 255} : Rgb{0, 0, 0};
          fig.text(static_cast<double>(t) + 0.5, static_cast<double>(n - 1 - q) + 0.5,
                   norm ? fmt::format("{:.2f}", v) : fmt::format("{}", static_cast<int64_t>(v)), ink,
                   n > 15 ? 0.5 : 0.8);
        }
    fig.save((fs::path(dir) / file).string());
    });
  }
}

}  // namespace adept::models::yolo::detail
