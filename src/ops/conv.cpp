// conv2d / conv_transpose2d: argument checks (PyTorch's errors), shapes and autograd (each backend
// chooses its algorithm).
// Three differentiable internal ops (forward, input-gradient, weight-gradient) are each other's
// gradients, so backward and double backward all run on the dedicated kernels.
#include "adept/ops/conv.h"

#include "kernels/conv.h"
#include "ops/autocast_scope.h"
#include "ops/helpers.h"

namespace adept {

namespace {

using autograd::record;
using autograd::SavedTensor;
using Grads = std::vector<Tensor>;

TensorOptions opts(const Tensor& t) { return TensorOptions(t.dtype()).set_device(t.device()); }
// The CPU kernels compute float16 / bfloat16 on float32 copies; other backends take them as they are
// (accumulating in float32).
bool via_float32(const Tensor& x) {
  return x.device().type == DeviceType::CPU && (x.dtype() == kFloat16 || x.dtype() == kBFloat16);
}
// The geometry of a gradient computation: never strict (see ConvGeometry::strict).
ConvGeometry relaxed(ConvGeometry g) {
  g.strict = false;
  return g;
}

Tensor conv_forward(const Tensor& x, const Tensor& w, const Tensor& b, const ConvGeometry& g);
Tensor conv_input_grad(const Tensor& gy, const Tensor& w, const ConvGeometry& g, const char* node);
Tensor conv_weight_grad(const Tensor& x, const Tensor& gy, const ConvGeometry& g);

// y = conv(x, w) + b, x (N, C_in, H, W) 4-d.
Tensor conv_forward(const Tensor& x, const Tensor& w, const Tensor& b, const ConvGeometry& g) {
  Tensor y = empty({g.N, g.C_out, g.H_out, g.W_out}, opts(x));
  if (y.numel() > 0) {
    if (g.C_in == 0) {
      Tensor(y).fill_(0);
      if (b.defined()) y.copy_(b.detach().view({1, g.C_out, 1, 1}).expand(y.sizes()));
      if (g.silu) y.copy_(silu(y));
    } else {
      conv2d_forward_kernel().get(x.device(), "conv2d")(y, x.detach().contiguous(), w.detach().contiguous(),
                                                        b.defined() ? b.detach().contiguous() : b, g);
    }
  }
  if (autograd::needs_grad({&x, &w, &b})) {
    const bool nx = x.requires_grad(), nw = w.requires_grad(), nb = b.defined() && b.requires_grad();
    SavedTensor X = nw ? x : Tensor(), W = nx ? w : Tensor();
    record("ConvolutionBackward0", {x, w, b}, {y}, [=](const Grads& gr) {
      return Grads{nx ? conv_input_grad(gr[0], W.get(), relaxed(g), "ConvolutionBackwardBackward0") : Tensor(),
                   nw ? conv_weight_grad(X.get(), gr[0], relaxed(g)) : Tensor(), nb ? gr[0].sum({0, 2, 3}) : Tensor()};
    });
  }
  return y;
}

// gx (N, C_in, H, W) = conv2d's input gradient for gy (N, C_out, H_out, W_out); conv_transpose2d's forward.
Tensor conv_input_grad(const Tensor& gy, const Tensor& w, const ConvGeometry& g, const char* node) {
  Tensor gx = empty({g.N, g.C_in, g.H, g.W}, opts(gy));
  if (gx.numel() > 0) {
    conv2d_backward_input_kernel().get(gy.device(), "conv2d")(gx, gy.detach().contiguous(), w.detach().contiguous(), g);
  }
  if (autograd::needs_grad({&gy, &w})) {
    const bool ngy = gy.requires_grad(), nw = w.requires_grad();
    SavedTensor GY = nw ? gy : Tensor(), W = ngy ? w : Tensor();
    record(node, {gy, w}, {gx}, [=](const Grads& gr) {
      return Grads{ngy ? conv_forward(gr[0], W.get(), Tensor(), relaxed(g)) : Tensor(),
                   nw ? conv_weight_grad(gr[0], GY.get(), relaxed(g)) : Tensor()};
    });
  }
  return gx;
}

// gw (C_out, C_in/groups, kH, kW) = conv2d's weight gradient for x and gy.
Tensor conv_weight_grad(const Tensor& x, const Tensor& gy, const ConvGeometry& g) {
  Tensor gw = empty({g.C_out, g.cin_g(), g.kH, g.kW}, opts(x));
  if (gw.numel() > 0) {
    if (g.N == 0) {
      Tensor(gw).fill_(0);
    } else {
      conv2d_backward_weight_kernel().get(x.device(), "conv2d")(gw, x.detach().contiguous(), gy.detach().contiguous(), g);
    }
  }
  if (autograd::needs_grad({&x, &gy})) {
    const bool nx = x.requires_grad(), ngy = gy.requires_grad();
    SavedTensor X = ngy ? x : Tensor(), GY = nx ? gy : Tensor();
    record("ConvolutionBackwardBackward0", {x, gy}, {gw}, [=](const Grads& gr) {
      return Grads{nx ? conv_input_grad(GY.get(), gr[0], relaxed(g), "ConvolutionBackwardBackward0") : Tensor(),
                   ngy ? conv_forward(X.get(), gr[0], Tensor(), relaxed(g)) : Tensor()};
    });
  }
  return gw;
}

void check_args(const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias, IntPair stride,
                IntPair dilation, int64_t groups) {
  ADEPT_CHECK(input.dim() == 3 || input.dim() == 4, ShapeError,
              "Expected 3D (unbatched) or 4D (batched) input to {}, but got input of size: {}", op,
              shape_str(input.sizes()));
  ADEPT_CHECK(weight.dim() == 4, ShapeError, "{}: expected a 4-d weight, but got weight of size {}", op,
              shape_str(weight.sizes()));
  check_same_device(op, {&input, &weight, &bias});
  for (const Tensor* t : {&input, &weight, &bias}) {
    if (!t->defined()) continue;
    ADEPT_CHECK(t->is_floating_point(), DtypeError, "{}: expected floating-point tensors, but got {}", op,
                dtype_name(t->dtype()));
    ADEPT_CHECK(t->dtype() == input.dtype(), DtypeError,
                "{}: input type ({}) and {} type ({}) should be the same", op, dtype_name(input.dtype()),
                t == &weight ? "weight" : "bias", dtype_name(t->dtype()));
  }
  ADEPT_CHECK(stride[0] > 0 && stride[1] > 0, ShapeError, "{}: non-positive stride is not supported", op);
  ADEPT_CHECK(dilation[0] > 0 && dilation[1] > 0, ShapeError, "{}: non-positive dilation is not supported", op);
  ADEPT_CHECK(groups > 0, ShapeError, "{}: non-positive groups is not supported", op);
  ADEPT_CHECK(weight.size(2) > 0 && weight.size(3) > 0, ShapeError, "{}: expected a non-empty kernel, but got weight of size {}",
              op, shape_str(weight.sizes()));
  ADEPT_CHECK(weight.size(0) > 0 && weight.size(0) % groups == 0, ShapeError,
              "{}: given groups={}, expected weight to be at least 1 and divisible by {} at dimension 0, but got weight "
              "of size {} instead", op, groups, groups, shape_str(weight.sizes()));
  ADEPT_CHECK(input.size(input.dim() - 2) > 0 && input.size(input.dim() - 1) > 0, ShapeError,
              "{}: only zero batch or zero channel inputs are supported, but got input shape: {}", op,
              shape_str(input.sizes()));
}

// conv2d on checked arguments; pad_lo/pad_total per dim (total may be odd for 'same').
// silu: return silu(conv2d), fused into the kernel's output write when no gradient is recorded.
Tensor conv2d_impl(const Tensor& input, const Tensor& weight, const Tensor& bias, IntPair stride, IntPair pad_lo,
                   IntPair pad_total, IntPair dilation, int64_t groups, bool silu = false) {
  const bool batched = input.dim() == 4;
  const Tensor x = batched ? input : input.unsqueeze(0);
  ADEPT_CHECK(x.size(1) == weight.size(1) * groups, ShapeError,
              "conv2d: given groups={}, weight of size {}, expected input{} to have {} channels, but got {} channels "
              "instead", groups, shape_str(weight.sizes()), shape_str(input.sizes()), weight.size(1) * groups, x.size(1));
  if (bias.defined()) {
    ADEPT_CHECK(bias.dim() == 1 && bias.size(0) == weight.size(0), ShapeError,
                "conv2d: given weight of size {}, expected bias to be 1-dimensional with {} elements, but got bias of "
                "size {} instead", shape_str(weight.sizes()), weight.size(0), shape_str(bias.sizes()));
  }
  ConvGeometry g{};
  g.N = x.size(0), g.C_in = x.size(1), g.H = x.size(2), g.W = x.size(3), g.C_out = weight.size(0);
  g.kH = weight.size(2), g.kW = weight.size(3);
  g.stride_h = stride[0], g.stride_w = stride[1], g.pad_h = pad_lo[0], g.pad_w = pad_lo[1];
  g.dil_h = dilation[0], g.dil_w = dilation[1], g.groups = groups;
  const int64_t eff_h = g.dil_h * (g.kH - 1) + 1, eff_w = g.dil_w * (g.kW - 1) + 1;
  ADEPT_CHECK(g.H + pad_total[0] >= eff_h && g.W + pad_total[1] >= eff_w, ShapeError,
              "conv2d: calculated padded input size per channel: ({} x {}). Kernel size: ({} x {}). Kernel size can't "
              "be greater than actual input size", g.H + pad_total[0], g.W + pad_total[1], eff_h, eff_w);
  g.H_out = (g.H + pad_total[0] - eff_h) / g.stride_h + 1;
  g.W_out = (g.W + pad_total[1] - eff_w) / g.stride_w + 1;
  g.strict = true;
  g.silu = silu && !autograd::needs_grad({&x, &weight, &bias});
  Tensor y;
  if (via_float32(x)) {
    y = conv_forward(x.to(kFloat32), weight.to(kFloat32), bias.defined() ? bias.to(kFloat32) : bias, g).to(x.dtype());
  } else {
    y = conv_forward(x, weight, bias, g);
  }
  if (silu && !g.silu) y = adept::silu(y);
  return batched ? y : y.squeeze(0);
}

}  // namespace

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntPair stride, IntPair padding,
              IntPair dilation, int64_t groups) {
  if (autocast::Scope s(autocast::Policy::Lower, {&input, &weight, &bias}); s)
    return conv2d(s[0], s[1], s[2], stride, padding, dilation, groups);
  check_args("conv2d", input, weight, bias, stride, dilation, groups);
  ADEPT_CHECK(padding[0] >= 0 && padding[1] >= 0, ShapeError, "conv2d: negative padding is not supported");
  return conv2d_impl(input, weight, bias, stride, padding, IntPair(2 * padding[0], 2 * padding[1]), dilation, groups);
}

Tensor conv2d_silu(const Tensor& input, const Tensor& weight, const Tensor& bias, IntPair stride, IntPair padding,
                   IntPair dilation, int64_t groups) {
  if (autocast::Scope s(autocast::Policy::Lower, {&input, &weight, &bias}); s)
    return conv2d_silu(s[0], s[1], s[2], stride, padding, dilation, groups);
  check_args("conv2d", input, weight, bias, stride, dilation, groups);
  ADEPT_CHECK(padding[0] >= 0 && padding[1] >= 0, ShapeError, "conv2d: negative padding is not supported");
  return conv2d_impl(input, weight, bias, stride, padding, IntPair(2 * padding[0], 2 * padding[1]), dilation, groups,
                     /*silu=*/true);
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntPair stride, const PaddingMode& mode,
              IntPair dilation, int64_t groups) {
  if (autocast::Scope s(autocast::Policy::Lower, {&input, &weight, &bias}); s)
    return conv2d(s[0], s[1], s[2], stride, mode, dilation, groups);
  const std::string& padding = mode.value;
  ADEPT_CHECK(padding == "same" || padding == "valid", Error, "conv2d: invalid padding string: '{}' (expected 'same' or 'valid')",
              padding);
  check_args("conv2d", input, weight, bias, stride, dilation, groups);
  if (padding == "valid") return conv2d_impl(input, weight, bias, stride, 0, 0, dilation, groups);
  ADEPT_CHECK(stride[0] == 1 && stride[1] == 1, ShapeError,
              "conv2d: padding='same' is not supported for strided convolutions (stride ({}, {}))", stride[0], stride[1]);
  const IntPair total(dilation[0] * (weight.size(2) - 1), dilation[1] * (weight.size(3) - 1));
  return conv2d_impl(input, weight, bias, stride, IntPair(total[0] / 2, total[1] / 2), total, dilation, groups);
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntPair stride, IntPair padding,
                        IntPair output_padding, int64_t groups, IntPair dilation) {
  if (autocast::Scope s(autocast::Policy::Lower, {&input, &weight, &bias}); s)
    return conv_transpose2d(s[0], s[1], s[2], stride, padding, output_padding, groups, dilation);
  const char* op = "conv_transpose2d";
  check_args(op, input, weight, bias, stride, dilation, groups);
  ADEPT_CHECK(padding[0] >= 0 && padding[1] >= 0, ShapeError, "{}: negative padding is not supported", op);
  ADEPT_CHECK(output_padding[0] >= 0 && output_padding[1] >= 0, ShapeError, "{}: negative output_padding is not supported",
              op);
  for (int d = 0; d < 2; ++d) {
    ADEPT_CHECK(output_padding[d] < stride[d] || output_padding[d] < dilation[d], ShapeError,
                "{}: output padding must be smaller than either stride or dilation, but got output_padding ({}, {}), "
                "stride ({}, {}), dilation ({}, {})", op, output_padding[0], output_padding[1], stride[0], stride[1],
                dilation[0], dilation[1]);
  }
  const bool batched = input.dim() == 4;
  const Tensor x = batched ? input : input.unsqueeze(0);
  ADEPT_CHECK(x.size(1) == weight.size(0), ShapeError,
              "{}: given transposed=1, weight of size {}, expected input{} to have {} channels, but got {} channels "
              "instead", op, shape_str(weight.sizes()), shape_str(input.sizes()), weight.size(0), x.size(1));
  const int64_t C_out = weight.size(1) * groups;
  if (bias.defined()) {
    ADEPT_CHECK(bias.dim() == 1 && bias.size(0) == C_out, ShapeError,
                "{}: given transposed=1, weight of size {}, expected bias to be 1-dimensional with {} elements, but got "
                "bias of size {} instead", op, shape_str(weight.sizes()), C_out, shape_str(bias.sizes()));
  }
  // The conv2d whose input gradient this is: its input is our output, its output our input.
  ConvGeometry g{};
  g.N = x.size(0), g.C_in = C_out, g.C_out = x.size(1), g.H_out = x.size(2), g.W_out = x.size(3);
  g.kH = weight.size(2), g.kW = weight.size(3);
  g.stride_h = stride[0], g.stride_w = stride[1], g.pad_h = padding[0], g.pad_w = padding[1];
  g.dil_h = dilation[0], g.dil_w = dilation[1], g.groups = groups;
  g.H = (g.H_out - 1) * g.stride_h - 2 * g.pad_h + g.dil_h * (g.kH - 1) + output_padding[0] + 1;
  g.W = (g.W_out - 1) * g.stride_w - 2 * g.pad_w + g.dil_w * (g.kW - 1) + output_padding[1] + 1;
  ADEPT_CHECK(g.H > 0 && g.W > 0, ShapeError,
              "{}: given input size per channel: ({} x {}). Calculated output size per channel: ({} x {}). Output size "
              "is too small", op, g.H_out, g.W_out, g.H, g.W);
  g.strict = true;
  const bool low = via_float32(x);
  const Tensor xc = low ? x.to(kFloat32) : x, wc = low ? weight.to(kFloat32) : weight;
  Tensor y = conv_input_grad(xc, wc, g, "ConvolutionBackward0");
  if (bias.defined()) y = add(y, (low ? bias.to(kFloat32) : bias).view({1, C_out, 1, 1}));
  if (low) y = y.to(x.dtype());
  return batched ? y : y.squeeze(0);
}

}  // namespace adept
