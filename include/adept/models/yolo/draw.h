// Drawing detections onto images (the boxes and labels of `adept predict`), as Ultralytics'
// Annotator.box_label draws them with OpenCV (ultralytics/utils/plotting.py).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "adept/tensor.h"

namespace adept::models::yolo {

/// The BGR colour of class `cls`: Ultralytics' 20-colour palette (Colors), cycling (cls mod 20;
/// negative ids use their absolute value).
std::array<uint8_t, 3> class_color(int64_t cls);

/// Draws each box onto `image` in place, lowest confidence first (so the best lies on top):
///   * the rectangle (int-truncated corners) in the class colour, line width lw, anti-aliased;
///     lw = line_width, or for 0 max(round((H + W + 3) / 2 * 0.003), 2) (Ultralytics' sum of the
///     image shape, channels included);
///   * with show_labels, a label "name conf" ("name" alone without show_conf; name = names[cls],
///     or the class id when names has no such entry) in OpenCV's Hershey simplex font of scale
///     lw / 3 and thickness max(lw - 1, 1), on a filled box of the class colour above the box's
///     top-left corner (below it when there is no room above; moved left, and up, to stay inside
///     the image), in black or white, whichever contrasts more with the colour.
/// image: (H, W, 3) uint8 BGR, contiguous, CPU (ShapeError / DtypeError / DeviceError /
/// ValueError otherwise). boxes: (n, 6) [x1, y1, x2, y2, conf, cls] in image pixels, any float
/// dtype and device (ShapeError / DtypeError otherwise). ValueError for line_width < 0.
void draw_detections(Tensor& image, const Tensor& boxes, const std::vector<std::string>& names,
                     int line_width = 0, bool show_labels = true, bool show_conf = true);

/// draw_detections on a copy of `image` that is first enlarged (bilinear) so its long side is at
/// least `min_side` pixels when it is shorter (boxes scaled alike), so that the labels of a small
/// input (a 160-pixel thumbnail) are no larger than the objects they name. Returns the drawn copy
/// ((H', W', 3) uint8 BGR); `image` is not changed. Errors as draw_detections; ValueError for
/// min_side < 0.
Tensor draw_detections_readable(const Tensor& image, const Tensor& boxes, const std::vector<std::string>& names,
                                int line_width = 0, bool show_labels = true, bool show_conf = true,
                                int min_side = 640);

}  // namespace adept::models::yolo
