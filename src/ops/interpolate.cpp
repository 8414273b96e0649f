// interpolate: argument rules of torch.nn.functional.interpolate, PyTorch's source-index/weight formulas
// per mode (turned into tap tables) and autograd over the separable resampling kernels.
#include "adept/ops/interpolate.h"

#include <cmath>
#include <memory>

#include "adept/ops/pooling.h"
#include "kernels/interpolate.h"
#include "ops/helpers.h"

namespace adept {

namespace {

using autograd::record;
using Grads = std::vector<Tensor>;

enum class Mode { Nearest, NearestExact, Linear, Cubic };

// ---- PyTorch's source coordinates, computed in T (the input's compute precision) -------------------------

// Ratio between input and output coordinates (PyTorch's area_pixel_compute_scale).
template <class T>
T coordinate_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  if (align_corners) return out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  if (scale && *scale > 0) return static_cast<T>(1.0 / *scale);
  return static_cast<T>(in) / static_cast<T>(out);
}

// Input coordinate of output position dst: dst * scale with align_corners, else the pixel-centre mapping
// (dst + 0.5) * scale - 0.5, clamped at 0 except for cubic.
template <class T>
T source_coordinate(T scale, int64_t dst, bool align_corners, bool cubic) {
  if (align_corners) return scale * static_cast<T>(dst);
  const T src = scale * (static_cast<T>(dst) + T(0.5)) - T(0.5);
  return (!cubic && src < T(0)) ? T(0) : src;
}

// PyTorch floors nearest coordinates in single precision (floorf), whatever the dtype.
int64_t floor_float(double v) { return static_cast<int64_t>(std::floor(static_cast<float>(v))); }

// Keys' cubic convolution kernel with a = -0.75 (PyTorch's bicubic), weights of the 4 taps around t in [0, 1).
template <class T>
void cubic_weights(T t, T w[4]) {
  const T A = T(-0.75);
  auto near = [A](T x) { return ((A + T(2)) * x - (A + T(3))) * x * x + T(1); };
  auto far = [A](T x) { return ((A * x - T(5) * A) * x + T(8) * A) * x - T(4) * A; };
  w[0] = far(t + T(1));
  w[1] = near(t);
  w[2] = near(T(1) - t);
  w[3] = far(T(2) - t);
}

template <class T>
InterpTaps make_taps(Mode mode, int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  InterpTaps t;
  t.taps = mode == Mode::Nearest || mode == Mode::NearestExact ? 1 : mode == Mode::Linear ? 2 : 4;
  t.index.resize(out * t.taps);
  t.weight.resize(out * t.taps);
  const T s = coordinate_scale<T>(in, out, mode != Mode::Nearest && mode != Mode::NearestExact && align_corners, scale);
  for (int64_t i = 0; i < out; ++i) {
    int64_t* idx = t.index.data() + i * t.taps;
    double* w = t.weight.data() + i * t.taps;
    if (mode == Mode::Nearest) {
      idx[0] = std::min(floor_float(source_coordinate(s, i, true, false)), in - 1);
      w[0] = 1;
    } else if (mode == Mode::NearestExact) {
      idx[0] = std::min(floor_float(static_cast<double>(source_coordinate(s, i, false, false)) + 0.5), in - 1);
      w[0] = 1;
    } else if (mode == Mode::Linear) {
      if (in == out) {  // PyTorch copies when the sizes match, whatever the scale
        idx[0] = idx[1] = i;
        w[0] = 1;
        w[1] = 0;
        continue;
      }
      const T src = source_coordinate(s, i, align_corners, false);
      const int64_t i0 = static_cast<int64_t>(src);
      idx[0] = i0;
      idx[1] = i0 + (i0 < in - 1 ? 1 : 0);
      const T l1 = std::min(std::max(src - static_cast<T>(i0), T(0)), T(1));
      w[0] = T(1) - l1;
      w[1] = l1;
    } else {
      const T src = source_coordinate(s, i, align_corners, true);
      const int64_t i0 = std::min(floor_float(src), in - 1);
      const T t0 = std::min(std::max(src - static_cast<T>(i0), T(0)), T(1));
      T cw[4];
      cubic_weights(t0, cw);
      for (int k = 0; k < 4; ++k) {
        idx[k] = std::clamp<int64_t>(i0 - 1 + k, 0, in - 1);
        w[k] = cw[k];
      }
    }
  }
  return t;
}

// The single tap of an axis that is not resampled (the height of 1-d inputs).
InterpTaps identity_taps() { return InterpTaps{1, {0}, {1.0}}; }

// ---- autograd over the kernels --------------------------------------------------------------------------

// One resampling (..., H, W) -> (..., H_out, W_out): the taps of both axes (a 1-d input is (..., W) with H = 1
// and a single identity height tap) and the autograd node name without its "0" suffix.
struct Resampling {
  InterpTaps h, w;
  int64_t H, W, H_out, W_out;
  std::string node;
};
using ResamplingPtr = std::shared_ptr<const Resampling>;

Tensor resample_backward(const Tensor& grad, const Shape& in_shape, const ResamplingPtr& r);

Tensor resample(const Tensor& x, const Shape& out_shape, const ResamplingPtr& r) {
  auto kernel = interpolate_kernel().get(x.device(), "interpolate");
  Tensor out = empty(out_shape, TensorOptions(x.dtype()).set_device(x.device()));
  if (out.numel() > 0) {
    const int64_t P = x.numel() / (r->H * r->W);
    kernel(out.view({P, r->H_out, r->W_out}), x.detach().contiguous().view({P, r->H, r->W}), r->h, r->w);
  }
  if (autograd::needs_grad({&x})) {
    Shape in_shape = x.sizes();
    record(r->node + "0", {x}, {out}, [in_shape, r](const Grads& g) { return Grads{resample_backward(g[0], in_shape, r)}; });
  }
  return out;
}

// The gradient of resample (linear in grad, so its own gradient is resample again).
Tensor resample_backward(const Tensor& grad, const Shape& in_shape, const ResamplingPtr& r) {
  auto kernel = interpolate_backward_kernel().get(grad.device(), "interpolate_backward");
  Tensor gin = empty(in_shape, TensorOptions(grad.dtype()).set_device(grad.device()));
  if (gin.numel() > 0) {
    const int64_t P = gin.numel() / (r->H * r->W);
    kernel(gin.view({P, r->H, r->W}), grad.detach().contiguous().view({P, r->H_out, r->W_out}), r->h, r->w);
  }
  if (autograd::needs_grad({&grad})) {
    Shape out_shape = grad.sizes();
    record(r->node + "Backward0", {grad}, {gin}, [out_shape, r](const Grads& g) { return Grads{resample(g[0], out_shape, r)}; });
  }
  return gin;
}

const char* kModes = "nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact";

}  // namespace

Tensor interpolate(const Tensor& input, std::optional<Shape> size, std::optional<std::vector<double>> scale_factor,
                   const std::string& mode, std::optional<bool> align_corners,
                   std::optional<bool> recompute_scale_factor) {
  const char* op = "interpolate";
  const bool nearest_like = mode == "nearest" || mode == "nearest-exact" || mode == "area";
  ADEPT_CHECK(!(nearest_like && align_corners), ValueError,
              "{}: align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | "
              "trilinear (got mode '{}')", op, mode);
  const bool corners = align_corners.value_or(false);
  const int64_t dims = std::max<int64_t>(input.dim() - 2, 0);
  const Shape spatial(input.sizes().end() - dims, input.sizes().end());

  // One value per spatial dim (a single value stands for all of them).
  auto per_dim = [&](const auto& v, const char* what) {
    using V = std::decay_t<decltype(v)>;
    if (v.size() == 1) return V(dims, v[0]);
    ADEPT_CHECK(static_cast<int64_t>(v.size()) == dims, ValueError,
                "{}: input and {} must have the same number of spatial dimensions, but got input with spatial "
                "dimensions of {} and {} with {} values", op, what, shape_str(spatial), what, v.size());
    return v;
  };
  ADEPT_CHECK(!(size && scale_factor), ValueError, "{}: only one of size or scale_factor should be defined", op);
  ADEPT_CHECK(size || scale_factor, ValueError, "{}: either size or scale_factor should be defined", op);
  ADEPT_CHECK(!(recompute_scale_factor.value_or(false) && size), ValueError,
              "{}: recompute_scale_factor is not meaningful with an explicit size", op);
  Shape out_size;
  std::vector<std::optional<double>> scales(dims);
  if (size) {
    out_size = per_dim(*size, "output size");
  } else {
    const std::vector<double> sf = per_dim(*scale_factor, "scale_factor");
    // area always recomputes the scale from the sizes, like PyTorch.
    const bool recompute = recompute_scale_factor.value_or(false) || mode == "area";
    for (int64_t d = 0; d < dims; ++d) {
      const double o = static_cast<double>(spatial[d]) * sf[d];
      out_size.push_back(recompute ? static_cast<int64_t>(std::floor(o)) : static_cast<int64_t>(o));
      if (!recompute) scales[d] = sf[d];
    }
  }

  Mode m;
  if (mode == "nearest") m = Mode::Nearest;
  else if (mode == "nearest-exact") m = Mode::NearestExact;
  else if (mode == "linear" || mode == "bilinear") m = Mode::Linear;
  else if (mode == "bicubic") m = Mode::Cubic;
  else m = Mode::Nearest;  // area (resolved below) or an unsupported mode (rejected below)
  const bool known = nearest_like || mode == "linear" || mode == "bilinear" || mode == "bicubic" || mode == "trilinear";
  ADEPT_CHECK(known && input.dim() >= 3 && input.dim() <= 5, NotImplementedForDevice,
              "{}: only 3-d, 4-d and 5-d inputs are supported (got {}-d) for the modes: {} (got '{}')", op, input.dim(),
              kModes, mode);
  const int64_t need = mode == "linear" ? 3 : mode == "bilinear" || mode == "bicubic" ? 4 : mode == "trilinear" ? 5 : 0;
  ADEPT_CHECK(need == 0 || need == input.dim(), NotImplementedForDevice, "{}: got {}-d input, but {} mode needs {}-d input",
              op, input.dim(), mode, need);
  ADEPT_CHECK(input.dim() <= 4, NotImplementedForDevice,
              "{}: 5-d (volumetric) inputs are not implemented (mode '{}', input {})", op, mode, shape_str(input.sizes()));

  for (int64_t d = 0; d < dims; ++d) {
    ADEPT_CHECK(spatial[d] > 0 && out_size[d] > 0, ShapeError,
                "{}: input and output sizes should be greater than 0, but got input {} and output {}", op,
                shape_str(spatial), shape_str(out_size));
  }
  ADEPT_CHECK(input.size(1) > 0, ShapeError,
              "{}: non-empty {}-d data tensor expected but got a tensor with sizes {}", op, input.dim(),
              shape_str(input.sizes()));
  ADEPT_CHECK(is_floating_point(input.dtype()), DtypeError, "{}: expected a floating-point input, got {}", op,
              dtype_name(input.dtype()));

  if (mode == "area") {
    if (dims == 2) return adaptive_avg_pool2d(input, {out_size[0], out_size[1]});
    return squeeze(adaptive_avg_pool2d(unsqueeze(input, -2), {1, out_size[0]}), -2);
  }
  const bool wide = input.dtype() == kFloat64;  // PyTorch computes coordinates in the input's precision
  auto taps = [&](int64_t in, int64_t out, std::optional<double> scale) {
    return wide ? make_taps<double>(m, in, out, corners, scale) : make_taps<float>(m, in, out, corners, scale);
  };
  auto r = std::make_shared<Resampling>();
  r->H = dims == 2 ? spatial[0] : 1;
  r->H_out = dims == 2 ? out_size[0] : 1;
  r->W = spatial[dims - 1];
  r->W_out = out_size[dims - 1];
  r->h = dims == 2 ? taps(r->H, r->H_out, scales[0]) : identity_taps();
  r->w = taps(r->W, r->W_out, scales[dims - 1]);
  const char* base = m == Mode::Nearest ? "UpsampleNearest" : m == Mode::NearestExact ? "UpsampleNearestExact"
                     : m == Mode::Cubic ? "UpsampleBicubic" : dims == 2 ? "UpsampleBilinear" : "UpsampleLinear";
  r->node = std::string(base) + (dims == 2 ? "2D" : "1D") + "Backward";
  Shape out_shape(input.sizes().begin(), input.sizes().end() - dims);
  out_shape.insert(out_shape.end(), out_size.begin(), out_size.end());
  return resample(input, out_shape, r);
}

}  // namespace adept
