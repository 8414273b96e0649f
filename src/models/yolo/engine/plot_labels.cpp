// labels.jpg: the class and box statistics of the training labels (plots.h).
#include <algorithm>
#include <cmath>

#include "models/yolo/engine/figure.h"
#include "models/yolo/engine/plots.h"

namespace adept::models::yolo::detail {

namespace {

constexpr int kBins = 50;
constexpr size_t kMaxDrawnBoxes = 1000;

// A kBins x kBins histogram of (u, v) in [0, 1]^2, row-major with v upwards.
std::vector<double> histogram2d(const std::vector<std::pair<double, double>>& uv, double& zmax) {
  std::vector<double> z(kBins * kBins, 0.0);
  for (const auto& [u, v] : uv) {
    const int c = std::clamp(static_cast<int>(u * kBins), 0, kBins - 1);
    const int r = std::clamp(static_cast<int>(v * kBins), 0, kBins - 1);
    z[r * kBins + c] += 1;
  }
  zmax = *std::max_element(z.begin(), z.end());
  return z;
}

Rgb class_rgb(int64_t cls) {
  const Rgb c = Figure::series_color(static_cast<size_t>(cls));
  return c;
}

}  // namespace

void plot_labels(const std::vector<vision::ImageLabels>& labels, const std::vector<std::string>& names,
                 const std::string& out_jpg) {
  const auto nc = static_cast<int64_t>(names.size());
  std::vector<double> per_class(std::max<int64_t>(nc, 1), 0.0);
  std::vector<std::pair<double, double>> centres, sizes;
  std::vector<vision::BoxLabel> boxes;
  for (const vision::ImageLabels& im : labels)
    for (const vision::BoxLabel& b : im.boxes) {
      if (b.cls >= 0 && b.cls < nc) per_class[b.cls] += 1;
      centres.emplace_back(b.cx, 1.0 - b.cy);  // image y runs down
      sizes.emplace_back(b.w, b.h);
      if (boxes.size() < kMaxDrawnBoxes) boxes.push_back(b);
    }
  Figure fig(1600, 1600, 2, 2);

  // Instances per class.
  Axes a;
  a.title = "instances per class";
  a.ylabel = "instances";
  a.xmin = -0.5;
  a.xmax = static_cast<double>(per_class.size()) - 0.5;
  a.ymin = 0;
  a.ymax = std::max(1.0, *std::max_element(per_class.begin(), per_class.end()) * 1.1);
  a.grid = false;
  a.x_numbers = nc > 40 || names.size() < per_class.size();
  fig.panel(a, 0.14, 0.95, 0.22, 0.9);
  for (size_t c = 0; c < per_class.size(); ++c) {
    const double x0 = static_cast<double>(c) - 0.4, x1 = static_cast<double>(c) + 0.4;
    fig.fill({x0, x1, x1, x0}, {0, 0, per_class[c], per_class[c]}, class_rgb(static_cast<int64_t>(c)));
    if (nc <= 40 && c < names.size())
      fig.edge_text('b', (static_cast<double>(c) + 0.5) / static_cast<double>(per_class.size()), shorten(names[c], 18),
                    nc > 20 ? 0.55 : 0.75, /*vertical=*/true);
  }

  // The boxes, centred, at their normalised sizes.
  Axes b;
  b.title = "boxes (centred, normalised size)";
  b.frame_only = true;
  fig.panel(b, 0.08, 0.92, 0.08, 0.92);
  for (const vision::BoxLabel& box : boxes) {
    const double x0 = 0.5 - box.w / 2, x1 = 0.5 + box.w / 2, y0 = 0.5 - box.h / 2, y1 = 0.5 + box.h / 2;
    fig.line({x0, x1, x1, x0, x0}, {y0, y0, y1, y1, y0}, class_rgb(box.cls), 1.0);
  }

  // Centres and sizes.
  double zmax = 0;
  Axes c;
  c.title = "box centres";
  c.xlabel = "x";
  c.ylabel = "y (from the bottom)";
  c.grid = false;
  fig.panel(c);
  const std::vector<double> centre_counts = histogram2d(centres, zmax);  // sets zmax
  fig.heatmap(centre_counts, kBins, kBins, zmax);
  Axes d;
  d.title = "box sizes";
  d.xlabel = "width";
  d.ylabel = "height";
  d.grid = false;
  fig.panel(d);
  const std::vector<double> size_counts = histogram2d(sizes, zmax);
  fig.heatmap(size_counts, kBins, kBins, zmax);
  fig.save(out_jpg);
}

}  // namespace adept::models::yolo::detail
