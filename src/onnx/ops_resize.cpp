// ONNX Resize (opsets 10-19) and Upsample (https://onnx.ai/onnx/operators/onnx__Resize.html) on tensors of
// any rank: each resized axis, innermost first as ONNX's reference implementation goes, becomes a weighted
// sum of gathers along that axis, whose source indices and weights are computed on the host from the spec's
// coordinate transformation (every coordinate_transformation_mode), nearest_mode, linear and cubic
// (cubic_coeff_a, exclude_outside) kernels, antialias and tf_crop_and_resize's extrapolation_value.
// Gathers and weighted sums are Adept ops, so the result is differentiable and runs on the input's device.
#include <algorithm>
#include <cmath>

#include <fmt/ranges.h>

#include "adept/ops/creation.h"
#include "adept/ops/index.h"
#include "adept/ops/pointwise.h"
#include "onnx/registry.h"

namespace adept::onnx::detail {

namespace {

using Out = std::vector<Tensor>;

struct ResizeAttrs {
  std::string mode = "nearest", coord = "half_pixel", nearest = "round_prefer_floor";
  double cubic_a = -0.75, extrapolation = 0.0;
  bool exclude_outside = false, antialias = false;
};

// How one output axis reads its input axis: per tap t, source indices and weights for every output
// position, and which positions lie outside the input (tf_crop_and_resize: they take extrapolation_value).
struct AxisPlan {
  std::vector<std::vector<int64_t>> index;
  std::vector<std::vector<double>> weight;
  std::vector<bool> outside;
};

// The input coordinate of output position x (the spec's coordinate_transformation_mode). As in ONNX's
// reference, the output length these formulas use is scale * in, not rounded (so align_corners with a
// scale differs from align_corners with the size it rounds to), and pytorch_half_pixel maps a length-1
// output to -0.5.
double source_coordinate(double x, double scale, int64_t in, int64_t out, double roi_start, double roi_end,
                         const std::string& mode) {
  double length = scale * static_cast<double>(in), span = static_cast<double>(in - 1);
  if (mode == "half_pixel") return (x + 0.5) / scale - 0.5;
  if (mode == "half_pixel_symmetric") {
    double adjustment = static_cast<double>(out) / length;
    double center = static_cast<double>(in) / 2;
    return center * (1 - adjustment) + (x + 0.5) / scale - 0.5;
  }
  if (mode == "pytorch_half_pixel") return length == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
  if (mode == "align_corners") return length == 1 ? 0.0 : x * span / (length - 1);
  if (mode == "asymmetric") return x / scale;
  if (mode == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
  // tf_crop_and_resize, rounded step by step as ONNX's reference computes it (its roi is a float32 array: the
  // roi's difference and start offset are float32, the rest float64), so that a coordinate that falls on an
  // integer or a half rounds as theirs under the nearest modes.
  const float start = static_cast<float>(roi_start), extent = static_cast<float>(roi_end) - start;
  const double offset = static_cast<double>(start * static_cast<float>(span));
  if (length == 1) return static_cast<double>(extent * static_cast<float>(span) / 2) + offset;
  return x * static_cast<double>(extent) * span / (length - 1) + offset;
}

int64_t nearest_index(double x, const std::string& mode) {
  double f = std::floor(x);
  if (x == f) return static_cast<int64_t>(x);
  if (mode == "floor") return static_cast<int64_t>(f);
  if (mode == "ceil") return static_cast<int64_t>(f) + 1;
  double frac = x - f;
  if (mode == "round_prefer_ceil") return static_cast<int64_t>(frac >= 0.5 ? f + 1 : f);
  return static_cast<int64_t>(frac > 0.5 ? f + 1 : f);  // round_prefer_floor
}

// Keys' cubic convolution kernel with parameter a at distance |d|.
double cubic(double d, double a) {
  d = std::abs(d);
  if (d <= 1) return ((a + 2) * d - (a + 3)) * d * d + 1;
  if (d < 2) return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
  return 0;
}

// Taps around x: positions base + i (base = ceil(x) - 1, so ratio = x - base is in (0, 1]) and their
// weights, for the linear or cubic kernel, stretched by 1 / scale when antialiasing a downscale.
void interpolation_taps(double x, double scale, const ResizeAttrs& a, std::vector<int64_t>& offsets,
                        std::vector<double>& weights) {
  double base = std::ceil(x) - 1, ratio = x - base;
  bool stretch = a.antialias && scale < 1;
  double s = stretch ? scale : 1.0;
  int64_t first = a.mode == "linear" ? static_cast<int64_t>(std::floor(-1 / s)) + 1
                                     : static_cast<int64_t>(std::floor(-2 / s)) + 1;
  int64_t count = 2 - 2 * first;
  offsets.clear();
  weights.clear();
  double total = 0;
  for (int64_t i = first; i < first + count; ++i) {
    double d = (static_cast<double>(i) - ratio) * s;
    double w = a.mode == "linear" ? std::max(0.0, 1 - std::abs(d)) : cubic(d, a.cubic_a);
    offsets.push_back(static_cast<int64_t>(base) + i);
    weights.push_back(w);
    total += w;
  }
  if (stretch)
    for (double& w : weights) w /= total;
}

AxisPlan plan_axis(int64_t in, int64_t out, double scale, double roi_start, double roi_end, const ResizeAttrs& a) {
  ADEPT_CHECK(in >= 1 && out >= 1 && std::isfinite(scale) && scale > 0, ValueError,
              "Resize: an axis of size {} cannot become {} (scale {}): sizes must be >= 1 and scales finite and > 0",
              in, out, scale);
  ADEPT_CHECK(!a.antialias || scale >= 1e-3, ValueError,
              "Resize: antialias needs scales of at least 0.001 (fewer taps per output), got {}", scale);
  AxisPlan p;
  p.outside.assign(out, false);
  std::vector<int64_t> offsets;
  std::vector<double> weights;
  for (int64_t o = 0; o < out; ++o) {
    double x = source_coordinate(static_cast<double>(o), scale, in, out, roi_start, roi_end, a.coord);
    ADEPT_CHECK(std::isfinite(x) && std::abs(x) < 1e15, ValueError,
                "Resize: source coordinate {} of output position {} is not finite or beyond 1e15 (roi or scales out of "
                "range)", x, o);
    if (a.coord == "tf_crop_and_resize" && (x < 0 || x > static_cast<double>(in - 1))) p.outside[o] = true;
    if (a.mode == "nearest") {
      offsets = {nearest_index(x, a.nearest)};
      weights = {1.0};
    } else {
      interpolation_taps(x, scale, a, offsets, weights);
    }
    if (a.exclude_outside) {
      double total = 0;
      for (size_t t = 0; t < offsets.size(); ++t) {
        if (offsets[t] < 0 || offsets[t] >= in) weights[t] = 0;
        total += weights[t];
      }
      if (total != 0)
        for (double& w : weights) w /= total;
    }
    if (p.index.size() < offsets.size()) {
      p.index.resize(offsets.size(), std::vector<int64_t>(out, 0));
      p.weight.resize(offsets.size(), std::vector<double>(out, 0.0));
    }
    for (size_t t = 0; t < offsets.size(); ++t) {
      p.index[t][o] = std::clamp<int64_t>(offsets[t], 0, in - 1);
      p.weight[t][o] = weights[t];
    }
  }
  return p;
}

// x resized along `axis` by plan p.
Tensor apply_axis(const Tensor& x, int64_t axis, const AxisPlan& p, double extrapolation) {
  TensorOptions on_device = TensorOptions(kInt64).set_device(x.device());
  int64_t out = static_cast<int64_t>(p.outside.size());
  Shape along(x.dim(), 1);
  along[axis] = out;
  Tensor y;
  if (p.index.size() == 1) {
    y = index_select(x, axis, tensor(p.index[0], on_device));
  } else {
    for (size_t t = 0; t < p.index.size(); ++t) {
      Tensor w = tensor(p.weight[t], TensorOptions(x.dtype()).set_device(x.device())).reshape(along);
      Tensor term = mul(index_select(x, axis, tensor(p.index[t], on_device)), w);
      y = t == 0 ? term : add(y, term);
    }
  }
  bool any_outside = std::find(p.outside.begin(), p.outside.end(), true) != p.outside.end();
  if (any_outside) {
    std::vector<bool> mask(p.outside.begin(), p.outside.end());
    // extrapolation_value in y's dtype (an integer tensor stays integer, the value truncated as a cast does).
    const Tensor value = full({}, extrapolation, TensorOptions(kFloat64).set_device(x.device())).to(y.dtype());
    y = where(tensor(mask, TensorOptions(kBool).set_device(x.device())).reshape(along), value, y);
  }
  return y;
}

bool is_identity(const AxisPlan& p, int64_t in) {
  if (static_cast<int64_t>(p.outside.size()) != in) return false;
  for (size_t t = 0; t < p.index.size(); ++t)
    for (int64_t o = 0; o < in; ++o) {
      double w = p.weight[t][o];
      if (w != 0 && (w != 1 || p.index[t][o] != o)) return false;
    }
  return std::find(p.outside.begin(), p.outside.end(), true) == p.outside.end();
}

// Resizes x given per-axis output sizes, scales and roi.
Tensor resize(const Tensor& x, const std::vector<int64_t>& out, const std::vector<double>& scales,
              const std::vector<double>& roi, const ResizeAttrs& a) {
  bool integral = !x.is_floating_point();
  int64_t rank = x.dim();
  // An empty batch (or any axis of size 0) stays empty, as torch's interpolate; an empty axis cannot grow.
  bool empty_out = false;
  for (int64_t axis = 0; axis < rank; ++axis) {
    ADEPT_CHECK(x.size(axis) > 0 || out[axis] == 0, ValueError,
                "Resize: axis {} of size 0 cannot become {} (an empty axis stays empty)", axis, out[axis]);
    empty_out = empty_out || out[axis] == 0;
  }
  if (empty_out) return zeros(Shape(out.begin(), out.end()), TensorOptions(x.dtype()).set_device(x.device()));
  Tensor y = integral && a.mode != "nearest" ? x.to(kFloat32) : x;
  for (int64_t axis = rank - 1; axis >= 0; --axis) {
    int64_t in = x.size(axis);
    AxisPlan p = plan_axis(in, out[axis], scales[axis], roi[axis], roi[axis + rank], a);
    if (!is_identity(p, in)) y = apply_axis(y, axis, p, a.extrapolation);
  }
  if (integral && a.mode != "nearest") y = round(y).to(x.dtype());
  return y;
}

// ONNX requires every scale > 0 (a zero scale gave an empty output): ValueError naming the scales.
void check_scales(const OpContext& c, const std::vector<double>& scales) {
  for (double s : scales)
    ADEPT_CHECK(std::isfinite(s) && s > 0, ValueError,
                "{}: scales [{}] must be finite and > 0 (ONNX requires positive scales), got {}", c.node().op_type(),
                fmt::join(scales, ", "), s);
}

ResizeAttrs read_attrs(const OpContext& c) {
  ResizeAttrs a;
  a.mode = c.attr_string("mode", "nearest");
  if (c.node().op_type() == "Upsample" || c.opset() < 11) {
    a.coord = "asymmetric";  // Upsample and Resize-10 map x to x / scale
    a.nearest = "floor";
    return a;
  }
  a.coord = c.attr_string("coordinate_transformation_mode", "half_pixel");
  a.nearest = c.attr_string("nearest_mode", "round_prefer_floor");
  a.cubic_a = c.attr_float("cubic_coeff_a", -0.75f);
  a.exclude_outside = c.attr_int("exclude_outside", 0) != 0;
  a.extrapolation = c.attr_float("extrapolation_value", 0.0f);
  a.antialias = c.attr_int("antialias", 0) != 0;
  return a;
}

// Resize: X, roi, scales, sizes (Resize-10: X, scales); `axes` (opset 18) names the axes they cover.
Out resize_op(const OpContext& c) {
  const Tensor& x = c.input(0);
  int64_t rank = x.dim();
  ResizeAttrs a = read_attrs(c);
  bool v10 = c.opset() < 11 || c.node().op_type() == "Upsample";
  std::vector<int64_t> axes = c.axes(c.attr_ints("axes"), rank);
  if (axes.empty())
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  size_t n = axes.size();
  std::vector<double> given_scales, given_roi;
  std::vector<int64_t> given_sizes;
  if (v10) {
    given_scales = c.input_doubles(1);  // Upsample-9 and Resize-10: (X, scales)
  } else {
    if (c.has_input(1) && c.input(1).numel()) given_roi = c.input_doubles(1);
    if (c.has_input(2) && c.input(2).numel()) given_scales = c.input_doubles(2);
    if (c.has_input(3) && c.input(3).numel()) given_sizes = c.input_ints(3);
  }
  std::vector<int64_t> out(x.sizes().begin(), x.sizes().end());
  std::vector<double> scales(rank, 1.0), roi(2 * rank, 0.0);
  for (int64_t i = 0; i < rank; ++i) roi[i + rank] = 1.0;
  if (given_roi.size() == 2 * n)
    for (size_t k = 0; k < n; ++k) {
      roi[axes[k]] = given_roi[k];
      roi[axes[k] + rank] = given_roi[k + n];
    }
  if (!given_sizes.empty()) {
    ADEPT_CHECK(given_sizes.size() == n, ValueError, "{}: sizes must have an entry per resized axis ({}), got {}",
                c.node().op_type(), n, given_sizes.size());
    std::string policy = c.attr_string("keep_aspect_ratio_policy", "stretch");
    if (policy == "stretch") {
      for (size_t k = 0; k < n; ++k) {
        out[axes[k]] = given_sizes[k];
        scales[axes[k]] = static_cast<double>(given_sizes[k]) / static_cast<double>(x.size(axes[k]));
      }
    } else {
      double s = policy == "not_larger" ? INFINITY : 0.0;
      for (size_t k = 0; k < n; ++k) {
        double r = static_cast<double>(given_sizes[k]) / static_cast<double>(x.size(axes[k]));
        s = policy == "not_larger" ? std::min(s, r) : std::max(s, r);
      }
      for (size_t k = 0; k < n; ++k) {
        out[axes[k]] = static_cast<int64_t>(std::round(s * static_cast<double>(x.size(axes[k]))));
        scales[axes[k]] = s;
      }
    }
  } else {
    ADEPT_CHECK(given_scales.size() == n, ValueError, "{}: needs scales or sizes for {} axes (got {} scales)",
                c.node().op_type(), n, given_scales.size());
    check_scales(c, given_scales);
    // floor(input * scale), the roi left out also for tf_crop_and_resize, as onnxruntime and ONNX's reference
    // compute it (the operator text's "* (roi_end - roi_start)" is followed by neither).
    for (size_t k = 0; k < n; ++k) {
      int64_t ax = axes[k];
      scales[ax] = given_scales[k];
      out[ax] = static_cast<int64_t>(std::floor(static_cast<double>(x.size(ax)) * given_scales[k]));
    }
  }
  return {resize(x, out, scales, roi, a)};
}

// Load-time check: known modes, and axes (opset 18) that do not repeat.
std::optional<std::string> resize_check(const OpContext& c) {
  for (const auto& a : c.node().attribute()) {
    if (a.name() == "mode" && a.s() != "nearest" && a.s() != "linear" && a.s() != "cubic")
      return "mode '" + a.s() + "'";
    if (a.name() == "coordinate_transformation_mode" && a.s() != "half_pixel" && a.s() != "half_pixel_symmetric" &&
        a.s() != "pytorch_half_pixel" && a.s() != "align_corners" && a.s() != "asymmetric" &&
        a.s() != "tf_half_pixel_for_nn" && a.s() != "tf_crop_and_resize")
      return "coordinate_transformation_mode '" + a.s() + "'";
  }
  c.check_distinct_axes(c.attr_ints("axes"));
  // Scales known at load (an initializer or a Constant): checked now. Upsample and Resize-10 read them from
  // input 1, Resize-11 on from input 2 (an empty tensor there means sizes are given).
  size_t si = c.opset() < 11 || c.node().op_type() == "Upsample" ? 1 : 2;
  if (c.has_input(si) && c.input(si).numel() > 0 && c.input(si).is_floating_point())
    check_scales(c, c.input_doubles(si));
  return std::nullopt;
}

}  // namespace

void register_resize_ops(OpRegistry& r) {
  const std::vector<std::pair<int, InputRole>> config = {
      {1, InputRole::Config}, {2, InputRole::Config}, {3, InputRole::Config}};
  r.add("Resize", 10, {resize_op, resize_check, config});
  r.add("Upsample", 9, {resize_op, resize_check, config});  // Upsample-7 (opsets 7-8) is below the supported range
}

}  // namespace adept::onnx::detail
