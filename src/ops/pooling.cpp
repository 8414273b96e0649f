// 2-d pooling ops: argument checks, output geometry (PyTorch's rules) and autograd over the pooling kernel
// families. Every backward is itself recorded, so gradients of gradients work.
#include "adept/ops/pooling.h"

#include <functional>
#include <numeric>

#include "kernels/pooling.h"
#include "ops/helpers.h"

namespace adept {

namespace {

using autograd::record;
using Grads = std::vector<Tensor>;

int64_t product(Shape::const_iterator b, Shape::const_iterator e) {
  return std::accumulate(b, e, int64_t{1}, std::multiplies<>());
}

// `shape` with its last two sizes replaced by (h, w).
Shape with_plane(Shape shape, int64_t h, int64_t w) {
  shape[shape.size() - 2] = h;
  shape[shape.size() - 1] = w;
  return shape;
}

// The number of (H, W) planes of a tensor shaped (..., H, W).
int64_t planes_of(const Shape& s) { return product(s.begin(), s.end() - 2); }

// `t` (..., H, W) as contiguous planes (P, H, W), without autograd history.
Tensor as_planes(const Tensor& t) {
  const Shape& s = t.sizes();
  return t.detach().contiguous().view({planes_of(s), s[s.size() - 2], s[s.size() - 1]});
}

enum class EmptyDims { BatchOnly, BatchOrChannels };

// Rank (3-d or 4-d), emptiness (only the batch, or also the channels, may be empty) and dtype of an input.
void check_input(const Tensor& x, const char* op, EmptyDims empty = EmptyDims::BatchOnly) {
  const int64_t d = x.dim();
  ADEPT_CHECK(d == 3 || d == 4, ShapeError, "{}: expected a 3-d (C, H, W) or 4-d (N, C, H, W) input, got {}", op,
              shape_str(x.sizes()));
  const int64_t first = (d == 4 ? 1 : 0) + (empty == EmptyDims::BatchOrChannels ? 1 : 0);
  for (int64_t i = first; i < d; ++i) {
    ADEPT_CHECK(x.size(i) > 0, ShapeError,
                "{}: expected an input with non-zero sizes except for the batch{} dim, but dim {} of {} is empty", op,
                empty == EmptyDims::BatchOrChannels ? " and channel" : "", i, shape_str(x.sizes()));
  }
  ADEPT_CHECK(is_floating_point(x.dtype()), DtypeError, "{}: expected a floating-point input, got {}", op,
              dtype_name(x.dtype()));
}

// PyTorch's pooling output size: floor (or ceil) of (in + 2 pad - dil (k - 1) - 1) / stride, plus one; with
// ceil_mode the last window must start inside the input or the left padding.
int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil_mode) {
  const int64_t num = in + 2 * pad - dil * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = (num >= 0 ? num / stride : -((-num + stride - 1) / stride)) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

// Geometry of a fixed-window pooling of `x` (already checked by check_input).
Pool2dGeometry fixed_geometry(const Tensor& x, const char* op, IntPair kernel, std::optional<IntPair> stride_opt,
                              IntPair padding, IntPair dilation, bool ceil_mode) {
  const IntPair stride = stride_opt.value_or(kernel);
  ADEPT_CHECK(kernel[0] > 0 && kernel[1] > 0, ShapeError, "{}: kernel size should be greater than zero, but got ({}, {})",
              op, kernel[0], kernel[1]);
  ADEPT_CHECK(stride[0] > 0 && stride[1] > 0, ShapeError, "{}: stride should be greater than zero, but got ({}, {})", op,
              stride[0], stride[1]);
  ADEPT_CHECK(dilation[0] > 0 && dilation[1] > 0, ShapeError,
              "{}: dilation should be greater than zero, but got ({}, {})", op, dilation[0], dilation[1]);
  ADEPT_CHECK(padding[0] >= 0 && padding[1] >= 0, ShapeError, "{}: pad must be non-negative, but got ({}, {})", op,
              padding[0], padding[1]);
  ADEPT_CHECK(padding[0] <= kernel[0] / 2 && padding[1] <= kernel[1] / 2, ShapeError,
              "{}: pad should be at most half of kernel size, but got pad=({}, {}) and kernel_size=({}, {})", op,
              padding[0], padding[1], kernel[0], kernel[1]);
  Pool2dGeometry g;
  g.H = x.size(-2);
  g.W = x.size(-1);
  for (int a = 0; a < 2; ++a) {
    g.kernel[a] = kernel[a];
    g.stride[a] = stride[a];
    g.padding[a] = padding[a];
    g.dilation[a] = dilation[a];
  }
  g.H_out = pooled_size(g.H, kernel[0], padding[0], stride[0], dilation[0], ceil_mode);
  g.W_out = pooled_size(g.W, kernel[1], padding[1], stride[1], dilation[1], ceil_mode);
  ADEPT_CHECK(g.H_out >= 1 && g.W_out >= 1, ShapeError,
              "{}: given input size {}, the calculated output size ({}x{}) is too small", op, shape_str(x.sizes()),
              g.H_out, g.W_out);
  return g;
}

// Geometry of an adaptive pooling of `x` to output_size (entries >= 0).
Pool2dGeometry adaptive_geometry(const Tensor& x, const char* op, IntPair output_size) {
  ADEPT_CHECK(output_size[0] >= 0 && output_size[1] >= 0, ShapeError,
              "{}: elements of output_size must be greater than or equal to 0, but got ({}, {})", op, output_size[0],
              output_size[1]);
  Pool2dGeometry g;
  g.adaptive = true;
  g.H = x.size(-2);
  g.W = x.size(-1);
  g.H_out = output_size[0];
  g.W_out = output_size[1];
  // Only a work estimate for threading: the largest window.
  g.kernel[0] = g.H_out > 0 ? g.H / g.H_out + 2 : 1;
  g.kernel[1] = g.W_out > 0 ? g.W / g.W_out + 2 : 1;
  return g;
}

TensorOptions like(const Tensor& x, Dtype dtype) { return TensorOptions(dtype).set_device(x.device()); }

// Records out (planes of M elements) = a scatter of src (P planes of L elements) at index: linear in src,
// whose gradient gathers at index.
void record_scatter(const Tensor& src, const Tensor& index, const Tensor& out, int64_t P, int64_t M, int64_t L,
                    const char* node) {
  if (!autograd::needs_grad({&src})) return;
  autograd::SavedTensor saved(index);
  Shape src_shape = src.sizes();
  record(node, {src}, {out}, [saved, P, M, L, src_shape](const Grads& g) {
    Tensor idx = saved.get().reshape({P, L});
    return Grads{gather(g[0].reshape({P, M}), 1, idx).reshape(src_shape)};
  });
}

// out (out_shape, whose last two dims hold M elements per plane) = zeros with out[p, index[p, l]] (+)= src[p, l]
// for P planes; src and index have one shape. Differentiable in src.
Tensor scatter_planes(const Tensor& src, const Tensor& index, int64_t P, const Shape& out_shape, bool add,
                      const char* op, const char* node) {
  const int64_t M = out_shape[out_shape.size() - 2] * out_shape[out_shape.size() - 1];
  const int64_t L = P > 0 ? src.numel() / P : 0;
  auto kernel = plane_scatter_kernel().get(src.device(), op);
  Tensor out = empty(out_shape, like(src, src.dtype()));
  if (out.numel() > 0) {
    kernel(out.view({P, M}), src.detach().contiguous().view({P, L}), index.contiguous().view({P, L}), add);
  }
  record_scatter(src, index, out, P, M, L, node);
  return out;
}

// The gradient of max pooling over windows g: grad and indices (..., H_out, W_out) -> in_shape (P planes).
// Differentiable in grad.
Tensor max_pool_planes_backward(const Tensor& grad, const Tensor& indices, const Pool2dGeometry& g, int64_t P,
                                const Shape& in_shape, const char* node) {
  auto kernel = max_pool2d_backward_kernel().get(grad.device(), "max_pool2d_backward");
  Tensor gin = empty(in_shape, like(grad, grad.dtype()));
  if (gin.numel() > 0) {
    kernel(gin.view({P, g.H, g.W}), as_planes(grad), indices.contiguous().view({P, g.H_out, g.W_out}), g);
  }
  record_scatter(grad, indices, gin, P, g.H * g.W, g.H_out * g.W_out, node);
  return gin;
}

std::tuple<Tensor, Tensor> max_pool_planes(const Tensor& input, const Pool2dGeometry& g, const char* op,
                                           const char* node) {
  auto kernel = max_pool2d_kernel().get(input.device(), op);
  const int64_t P = planes_of(input.sizes());
  const Shape out_shape = with_plane(input.sizes(), g.H_out, g.W_out);
  Tensor out = empty(out_shape, like(input, input.dtype()));
  Tensor indices = empty(out_shape, like(input, kInt64));
  if (out.numel() > 0) kernel(out.view({P, g.H_out, g.W_out}), indices.view({P, g.H_out, g.W_out}), as_planes(input), g);
  if (autograd::needs_grad({&input})) {
    autograd::SavedTensor saved(indices);
    Shape in_shape = input.sizes();
    std::string backward_node = std::string(node) + "Backward";
    record(std::string(node) + "0", {input}, {out}, [saved, g, P, in_shape, backward_node](const Grads& gr) {
      return Grads{max_pool_planes_backward(gr[0], saved.get(), g, P, in_shape, (backward_node + "0").c_str())};
    });
  }
  return {out, indices};
}

const char* avg_node(const Pool2dGeometry& g, bool backward) {
  if (g.adaptive) return backward ? "AdaptiveAvgPool2DBackwardBackward0" : "AdaptiveAvgPool2DBackward0";
  return backward ? "AvgPool2DBackwardBackward0" : "AvgPool2DBackward0";
}

Tensor avg_pool_planes_backward(const Tensor& grad, const Pool2dGeometry& g);

// Average pooling (fixed or adaptive windows) of x (..., H, W) -> (..., H_out, W_out).
Tensor avg_pool_planes(const Tensor& x, const Pool2dGeometry& g) {
  const char* op = g.adaptive ? "adaptive_avg_pool2d" : "avg_pool2d";
  auto kernel = avg_pool2d_kernel().get(x.device(), op);
  Tensor out = empty(with_plane(x.sizes(), g.H_out, g.W_out), like(x, x.dtype()));
  if (out.numel() > 0) kernel(out.view({planes_of(x.sizes()), g.H_out, g.W_out}), as_planes(x), g);
  if (autograd::needs_grad({&x})) {
    record(avg_node(g, false), {x}, {out}, [g](const Grads& gr) { return Grads{avg_pool_planes_backward(gr[0], g)}; });
  }
  return out;
}

// The gradient of avg_pool_planes: grad (..., H_out, W_out) -> (..., H, W). Linear, so its own gradient is
// avg_pool_planes again.
Tensor avg_pool_planes_backward(const Tensor& grad, const Pool2dGeometry& g) {
  const char* op = g.adaptive ? "adaptive_avg_pool2d_backward" : "avg_pool2d_backward";
  auto kernel = avg_pool2d_backward_kernel().get(grad.device(), op);
  Tensor gin = empty(with_plane(grad.sizes(), g.H, g.W), like(grad, grad.dtype()));
  if (gin.numel() > 0) kernel(gin.view({planes_of(grad.sizes()), g.H, g.W}), as_planes(grad), g);
  if (autograd::needs_grad({&grad})) {
    record(avg_node(g, true), {grad}, {gin}, [g](const Grads& gr) { return Grads{avg_pool_planes(gr[0], g)}; });
  }
  return gin;
}

}  // namespace

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntPair kernel_size,
                                                   std::optional<IntPair> stride, IntPair padding, IntPair dilation,
                                                   bool ceil_mode) {
  const char* op = "max_pool2d";
  check_input(input, op);
  Pool2dGeometry g = fixed_geometry(input, op, kernel_size, stride, padding, dilation, ceil_mode);
  return max_pool_planes(input, g, op, "MaxPool2DWithIndicesBackward");
}

Tensor max_pool2d(const Tensor& input, IntPair kernel_size, std::optional<IntPair> stride, IntPair padding,
                  IntPair dilation, bool ceil_mode) {
  return std::get<0>(max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode));
}

Tensor avg_pool2d(const Tensor& input, IntPair kernel_size, std::optional<IntPair> stride, IntPair padding,
                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  const char* op = "avg_pool2d";
  check_input(input, op);
  ADEPT_CHECK(!divisor_override || *divisor_override != 0, ShapeError, "{}: divisor must be not zero", op);
  Pool2dGeometry g = fixed_geometry(input, op, kernel_size, stride, padding, 1, ceil_mode);
  g.count_include_pad = count_include_pad;
  g.divisor_override = divisor_override.value_or(0);
  return avg_pool_planes(input, g);
}

Tensor adaptive_avg_pool2d(const Tensor& input, IntPair output_size) {
  const char* op = "adaptive_avg_pool2d";
  check_input(input, op, EmptyDims::BatchOrChannels);
  return avg_pool_planes(input, adaptive_geometry(input, op, output_size));
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input, IntPair output_size) {
  const char* op = "adaptive_max_pool2d";
  check_input(input, op);
  return max_pool_planes(input, adaptive_geometry(input, op, output_size), op, "AdaptiveMaxPool2DBackward");
}

Tensor adaptive_max_pool2d(const Tensor& input, IntPair output_size) {
  return std::get<0>(adaptive_max_pool2d_with_indices(input, output_size));
}

Tensor max_unpool2d(const Tensor& input, const Tensor& indices, IntPair kernel_size, std::optional<IntPair> stride_opt,
                    IntPair padding, std::optional<Shape> output_size) {
  const char* op = "max_unpool2d";
  ADEPT_CHECK(input.dim() == 3 || input.dim() == 4, ShapeError,
              "{}: expected a 3-d (C, H, W) or 4-d (N, C, H, W) input, got {}", op, shape_str(input.sizes()));
  ADEPT_CHECK(is_floating_point(input.dtype()), DtypeError, "{}: expected a floating-point input, got {}", op,
              dtype_name(input.dtype()));
  ADEPT_CHECK(indices.dtype() == kInt64, DtypeError, "{}: expected int64 indices, got {}", op,
              dtype_name(indices.dtype()));
  ADEPT_CHECK(indices.sizes() == input.sizes(), ShapeError,
              "{}: expected indices of the input's shape {}, but got indices of shape {}", op, shape_str(input.sizes()),
              shape_str(indices.sizes()));
  check_same_device(op, {&input, &indices});
  const IntPair stride = stride_opt.value_or(kernel_size);
  int64_t out_hw[2];
  for (int a = 0; a < 2; ++a) out_hw[a] = (input.size(a - 2) - 1) * stride[a] - 2 * padding[a] + kernel_size[a];
  if (output_size) {
    const Shape& os = *output_size;
    ADEPT_CHECK(os.size() == 2 || static_cast<int64_t>(os.size()) == input.dim(), ValueError,
                "{}: output_size should hold 2 or {} elements, but it has {}", op, input.dim(), os.size());
    for (int a = 0; a < 2; ++a) {
      const int64_t want = os[os.size() - 2 + a], lo = out_hw[a] - stride[a], hi = out_hw[a] + stride[a];
      ADEPT_CHECK(lo < want && want < hi, ValueError, "{}: invalid output_size {} (dim {} must be between {} and {})", op,
                  shape_str(os), a, lo, hi);
      out_hw[a] = want;
    }
  }
  ADEPT_CHECK(out_hw[0] >= 0 && out_hw[1] >= 0, ShapeError, "{}: the output size ({}x{}) is negative", op, out_hw[0],
              out_hw[1]);
  const int64_t M = out_hw[0] * out_hw[1];
  if (indices.numel() > 0) {
    NoGradGuard ng;
    const int64_t lo = min(indices).item().to_int64(), hi = max(indices).item().to_int64();
    ADEPT_CHECK(lo >= 0 && hi < M, Error, "{}: found an invalid max index {} (output planes are of size {}x{})", op,
                lo < 0 ? lo : hi, out_hw[0], out_hw[1]);
  }
  return scatter_planes(input, indices, planes_of(input.sizes()), with_plane(input.sizes(), out_hw[0], out_hw[1]), false,
                        op, "MaxUnpool2DBackward0");
}

}  // namespace adept
