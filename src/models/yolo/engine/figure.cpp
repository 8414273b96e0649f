// PLplot pages rendered in memory by the memcairo driver (figure.h).
#include "models/yolo/engine/figure.h"
#include "models/yolo/engine/plots.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include <fmt/format.h>
#include <plplot.h>
#include <spdlog/spdlog.h>

#include "adept/errors.h"
#include "adept/ops.h"
#include "adept/vision/transforms.h"

namespace adept::models::yolo::detail {

namespace {

constexpr int kBlack = 1, kGrey = 2, kUser = 15;  // cmap0 entries: axes, grid, the drawing colour
constexpr double kCharScale = 0.8, kLegendScale = 0.65;  // of PLplot's default character height

// PLplot ends the process on a fatal error unless its exit handler leaves by other means: raise.
int on_plplot_exit(PLCHAR_VECTOR message) {
  throw IOError(fmt::format("plots: PLplot failed: {}", message ? message : "(no message)"));
}

// Tick numbers as a person writes them (0.25, 1e+04), never PLplot's separate "(x10^n)" exponent.
void tick_label(PLINT, PLFLT value, char* label, PLINT length, PLPointer) {
  std::snprintf(label, static_cast<size_t>(length), "%.4g", std::fabs(value) < 1e-12 ? 0.0 : value);
}

// The width of `chars` characters at character scale `size`, in window units of the x axis.
double text_width(size_t chars, double size, double xr) {
  PLFLT def_mm = 0, cur_mm = 0, vx0 = 0, vx1 = 0, vy0 = 0, vy1 = 0, xp = 0, yp = 0;
  PLINT xleng = 0, yleng = 0, xoff = 0, yoff = 0;
  plgchr(&def_mm, &cur_mm);
  plgvpd(&vx0, &vx1, &vy0, &vy1);
  plgpage(&xp, &yp, &xleng, &yleng, &xoff, &yoff);
  const double viewport_mm = (vx1 - vx0) * xleng / (xp > 0 ? xp : 90.0) * 25.4;
  const double char_mm = 0.72 * def_mm * size;  // a character is about 0.72 of the height wide
  return viewport_mm > 0 ? xr * char_mm * static_cast<double>(chars) / viewport_mm : xr * 0.3;
}

bool has_memcairo() {
  // plgDevs fills caller-owned arrays of capacity n (in) with the n (out) devices it found.
  constexpr int kMaxDevices = 128;
  std::vector<PLCHAR_VECTOR> menu(kMaxDevices), names(kMaxDevices);
  PLCHAR_VECTOR* menu_p = menu.data();
  PLCHAR_VECTOR* names_p = names.data();
  int n = kMaxDevices;
  plgDevs(&menu_p, &names_p, &n);
  for (int i = 0; i < std::min(n, kMaxDevices); ++i)
    if (names[i] && std::strcmp(names[i], "memcairo") == 0) return true;
  return false;
}

}  // namespace

Rgb Figure::series_color(size_t i) {
  // Tableau-like categorical colours, readable on white.
  static constexpr Rgb kColors[] = {{31, 119, 180}, {255, 127, 14}, {44, 160, 44},  {214, 39, 40},
                                    {148, 103, 189}, {140, 86, 75}, {227, 119, 194}, {127, 127, 127},
                                    {188, 189, 34}, {23, 190, 207}};
  return kColors[i % std::size(kColors)];
}

Figure::Figure(int width, int height, int cols, int rows) : width_(width), height_(height) {
  ADEPT_CHECK(width > 0 && height > 0 && cols > 0 && rows > 0, ValueError,
              "plots: a figure needs positive sizes, got {}x{} pixels and {}x{} panels", width, height, cols, rows);
  plsexit(on_plplot_exit);
  ADEPT_CHECK(has_memcairo(), IOError,
              "plots: PLplot's cairo driver (memcairo) was not found; install Debian's plplot-driver-cairo, or set "
              "PLPLOT_DRV_DIR to the folder holding cairo.so and cairo.driver_info (plots=False turns plots off)");
  rgb_.assign(static_cast<size_t>(width) * height * 3, 255);
  PLINT previous = 0, stream = 0;
  plgstrm(&previous);
  plmkstrm(&stream);
  previous_stream_ = previous;
  stream_ = stream;
  plsdev("memcairo");
  plsmem(width, height, rgb_.data());
  plscol0(0, 255, 255, 255);
  plscol0(kBlack, 0, 0, 0);
  plscol0(kGrey, 220, 220, 220);
  plinit();
  plssub(cols, rows);
  plschr(0, kCharScale);
  plslabelfunc(tick_label, nullptr);
}

Figure::~Figure() {
  if (!ended_ && stream_ >= 0) {
    try {
      plsstrm(stream_);
      plend1();
    } catch (...) {  // a failing driver at the end: nothing more to do
    }
  }
  plsstrm(previous_stream_);
}

void Figure::select_color(Rgb c) {
  plscol0(kUser, c[0], c[1], c[2]);
  plcol0(kUser);
}

void Figure::panel(const Axes& a, double left, double right, double bottom, double top) {
  axes_ = a;
  if (!(axes_.xmax > axes_.xmin)) axes_.xmax = axes_.xmin + 1;
  if (!(axes_.ymax > axes_.ymin)) {
    const double pad = std::max(std::fabs(axes_.ymin) * 0.05, 1e-6);
    axes_.ymin -= pad;
    axes_.ymax += pad;
  }
  pladv(0);
  plvpor(left, right, bottom, top);
  plwind(axes_.xmin, axes_.xmax, axes_.ymin, axes_.ymax);
  plwidth(1);
  if (a.frame_only) {
    plcol0(kBlack);
    plbox("bc", 0, 0, "bc", 0, 0);
  } else {
    if (a.grid) {
      plcol0(kGrey);
      plbox("g", 0, 0, "g", 0, 0);
    }
    plcol0(kBlack);
    plbox(a.x_numbers ? "bcnsto" : "bc", 0, 0, "bcnstvo", 0, 0);
  }
  plcol0(kBlack);
  pllab(a.xlabel.c_str(), a.ylabel.c_str(), a.title.c_str());
}

void Figure::line(const std::vector<double>& x, const std::vector<double>& y, Rgb color, double width, bool markers) {
  select_color(color);
  plwidth(width);
  const size_t n = std::min(x.size(), y.size());
  std::vector<double> xs, ys;
  auto flush = [&] {
    if (xs.size() > 1) plline(static_cast<PLINT>(xs.size()), xs.data(), ys.data());
    if (markers && !xs.empty()) plpoin(static_cast<PLINT>(xs.size()), xs.data(), ys.data(), 17);
    xs.clear();
    ys.clear();
  };
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(x[i]) || !std::isfinite(y[i])) {
      flush();
      continue;
    }
    xs.push_back(x[i]);
    ys.push_back(y[i]);
  }
  flush();
  plwidth(1);
}

void Figure::fill(const std::vector<double>& x, const std::vector<double>& y, Rgb color) {
  select_color(color);
  plfill(static_cast<PLINT>(std::min(x.size(), y.size())), x.data(), y.data());
}

void Figure::text(double x, double y, const std::string& s, Rgb color, double size, double just, bool vertical) {
  select_color(color);
  plschr(0, size);
  plptex(x, y, vertical ? 0 : 1, vertical ? 1 : 0, just, s.c_str());
  plschr(0, kCharScale);
}

void Figure::edge_text(char side, double pos, const std::string& s, double size, bool vertical, double disp,
                       double just) {
  plcol0(kBlack);
  plschr(0, size);
  const std::string where = std::string(1, side) + (vertical == (side == 'l') ? "" : "v");
  plmtex(where.c_str(), disp, pos, just, s.c_str());
  plschr(0, kCharScale);
}

void Figure::legend(const std::vector<std::string>& labels, const std::vector<Rgb>& colors, bool left) {
  if (labels.empty()) return;
  const double xr = axes_.xmax - axes_.xmin, yr = axes_.ymax - axes_.ymin;
  size_t longest = 0;
  for (const std::string& l : labels) longest = std::max(longest, l.size());
  const double dy = yr * 0.055, line_w = xr * 0.06;
  const double box_w = line_w + xr * 0.04 + text_width(longest, kLegendScale, xr);
  const double x0 = left ? axes_.xmin + xr * 0.03 : axes_.xmax - xr * 0.03 - box_w;
  const double y0 = axes_.ymax - yr * 0.03;
  const double y1 = y0 - dy * (static_cast<double>(labels.size()) + 0.4);
  fill({x0, x0 + box_w, x0 + box_w, x0}, {y1, y1, y0, y0}, {255, 255, 255});
  plcol0(kGrey);
  const double bx[] = {x0, x0 + box_w, x0 + box_w, x0, x0}, by[] = {y1, y1, y0, y0, y1};
  plline(5, bx, by);
  for (size_t i = 0; i < labels.size(); ++i) {
    const double y = y0 - dy * (static_cast<double>(i) + 0.8);
    line({x0 + xr * 0.01, x0 + xr * 0.01 + line_w}, {y, y}, i < colors.size() ? colors[i] : Rgb{0, 0, 0}, 2.5);
    text(x0 + xr * 0.02 + line_w, y, labels[i], {0, 0, 0}, kLegendScale, 0.0);
  }
}

void Figure::heatmap(const std::vector<double>& z, int nx, int ny, double zmax) {
  const double cw = (axes_.xmax - axes_.xmin) / nx, ch = (axes_.ymax - axes_.ymin) / ny;
  for (int r = 0; r < ny; ++r)
    for (int c = 0; c < nx; ++c) {
      const double v = z[static_cast<size_t>(r) * nx + c];
      if (!(v > 0)) continue;
      // Square-root scale, so sparse cells stay visible next to dense ones.
      const double t = std::sqrt(std::clamp(zmax > 0 ? v / zmax : 0.0, 0.0, 1.0));
      const Rgb color = {static_cast<uint8_t>(std::lround(247 - t * (247 - 8))),
                         static_cast<uint8_t>(std::lround(251 - t * (251 - 48))),
                         static_cast<uint8_t>(std::lround(255 - t * (255 - 107)))};
      const double x0 = axes_.xmin + c * cw, y0 = axes_.ymin + r * ch;
      fill({x0, x0 + cw, x0 + cw, x0}, {y0, y0, y0 + ch, y0 + ch}, color);
    }
  plcol0(kBlack);
  plbox("bc", 0, 0, "bc", 0, 0);
}

void Figure::save(const std::string& path) {
  if (!ended_) {
    plsstrm(stream_);
    plend1();
    ended_ = true;
    plsstrm(previous_stream_);
  }
  // RGB -> BGR for imwrite.
  Tensor img = empty({height_, width_, 3}, kUInt8);
  uint8_t* out = img.data_ptr<uint8_t>();
  for (size_t i = 0; i < rgb_.size(); i += 3) {
    out[i] = rgb_[i + 2];
    out[i + 1] = rgb_[i + 1];
    out[i + 2] = rgb_[i];
  }
  write_image_atomic(path, img);
}

std::string shorten(const std::string& s, size_t max_chars) {
  // Byte offsets where each UTF-8 character starts (continuation bytes are 10xxxxxx).
  std::vector<size_t> starts;
  for (size_t i = 0; i < s.size(); ++i)
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) starts.push_back(i);
  if (starts.size() <= max_chars) return s;
  const size_t keep = max_chars > 3 ? max_chars - 3 : 0;
  return s.substr(0, starts[keep]) + "...";
}

void write_image_atomic(const std::string& path, const Tensor& bgr) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  const fs::path tmp = p.parent_path() / fmt::format(".{}.tmp{}{}", p.stem().string(), getpid(), p.extension().string());
  vision::imwrite(tmp.string(), bgr);
  std::error_code ec;
  fs::rename(tmp, p, ec);
  if (ec) {
    const std::string why = ec.message();
    fs::remove(tmp, ec);
    ADEPT_CHECK(false, IOError, "plots: cannot write {}: {}", path, why);
  }
}

bool try_plot(const std::string& what, const std::function<void()>& draw) {
  try {
    draw();
    return true;
  } catch (const std::exception& e) {
    std::string why = e.what();
    if (why.rfind("plots: ", 0) == 0) why.erase(0, 7);  // the prefix is said once
    spdlog::warn("plots: {} skipped: {}", what, why);
    return false;
  }
}

}  // namespace adept::models::yolo::detail
