// Plots of a run folder drawn with PLplot (its cairo "memcairo" driver renders a page into an RGB
// buffer in memory; no terminal or display is ever opened) and written as PNG or JPEG.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "adept/tensor.h"

namespace adept::models::yolo::detail {

using Rgb = std::array<uint8_t, 3>;

/// Axis ranges and labels of one panel.
struct Axes {
  std::string title, xlabel, ylabel;
  double xmin = 0, xmax = 1, ymin = 0, ymax = 1;
  bool grid = true;
  bool frame_only = false;  ///< only the frame, no ticks or numbers (images, matrices)
  bool x_numbers = true;    ///< numbers under the x ticks (false: categories labelled with edge_text)
};

/// One page of `cols` x `rows` panels, `width` x `height` pixels, white background. Panels are
/// filled in order with panel(); the page is written by save(). PLplot keeps global state, so a
/// figure belongs to the thread that made it and only one is open at a time. IOError when PLplot or
/// its cairo driver (Debian's plplot-driver-cairo) is missing or fails.
class Figure {
 public:
  Figure(int width, int height, int cols = 1, int rows = 1);
  ~Figure();
  Figure(const Figure&) = delete;
  Figure& operator=(const Figure&) = delete;

  /// Starts the next panel: its viewport (fractions of the panel, leaving room for the labels),
  /// window and frame (ticks and grid unless a.frame_only), title and axis labels.
  void panel(const Axes& a, double left = 0.14, double right = 0.95, double bottom = 0.14, double top = 0.9);
  /// A polyline through (x[i], y[i]) in window coordinates; non-finite points break the line.
  void line(const std::vector<double>& x, const std::vector<double>& y, Rgb color, double width = 1.5,
            bool markers = false);
  /// A filled polygon.
  void fill(const std::vector<double>& x, const std::vector<double>& y, Rgb color);
  /// Text at (x, y) in window coordinates (also outside the frame); just: 0 left, 0.5 centre, 1
  /// right of the point along the text; size: character scale; vertical: reads upwards.
  void text(double x, double y, const std::string& s, Rgb color, double size = 0.8, double just = 0.5,
            bool vertical = false);
  /// Text outside the frame, as tick labels: side "b" (below) or "l" (left of) the frame, `pos`
  /// along that edge as a fraction of it, `disp` character heights away from it; vertical text
  /// reads upwards. just: 1 ends the text at `pos` (toward the frame for perpendicular text), 0.5
  /// centres it there.
  void edge_text(char side, double pos, const std::string& s, double size = 0.8, bool vertical = false,
                 double disp = 0.6, double just = 1.0);
  /// A legend box in the panel's top-right corner (or top-left with left = true): a short line of
  /// each colour and its label.
  void legend(const std::vector<std::string>& labels, const std::vector<Rgb>& colors, bool left = false);
  /// A cell grid (z row-major, ny rows from ymin up) coloured white -> blue by z in [0, zmax].
  void heatmap(const std::vector<double>& z, int nx, int ny, double zmax);
  /// Ends the page and writes it to `path` (.png or .jpg, by extension) through a temporary file
  /// in the same folder and a rename. IOError naming the file when it cannot be written.
  void save(const std::string& path);

  /// The colour of series i of a plot (a fixed palette, cycled).
  static Rgb series_color(size_t i);

 private:
  void select_color(Rgb c);

  int width_, height_;
  int stream_ = -1, previous_stream_ = 0;
  bool ended_ = false;
  std::vector<uint8_t> rgb_;
  Axes axes_;
};

/// `s` cut to at most `max_chars` characters (UTF-8 aware), its end replaced by "..." when cut: a
/// long class name as a tick label that must not run off the page.
std::string shorten(const std::string& s, size_t max_chars);

/// Writes `bgr` ((H, W, 3) uint8) to `path` (format by extension, vision::imwrite) through a
/// temporary file in the same folder and a rename, so a reader never sees half a file.
void write_image_atomic(const std::string& path, const Tensor& bgr);

}  // namespace adept::models::yolo::detail
