// batch_norm (and batch_norm_silu, its fused form with SiLU), layer_norm, group_norm. On the CPU
// layer/group norm and batch norm in eval mode are composed of tensor ops; devices with the row kernels
// (kernels/layer_norm.h: Vulkan) normalize layer/group norm rows in one pass. Batch norm in training mode
// uses the fused per-channel kernels where the device has them for the input's dtype (supports(): CPU
// float32/float64, Vulkan every float dtype), else batch_norm_composed, the reference the fused path is
// tested against; batch_norm_silu's training kernels apply SiLU (forward) and its derivative (backward)
// in the same passes.
#include "adept/ops/normalization.h"

#include <optional>

#include "kernels/batch_norm.h"
#include "kernels/layer_norm.h"
#include "ops/autocast_scope.h"
#include "ops/helpers.h"
#include "ops/normalization_internal.h"

namespace adept {

namespace {

using Grads = std::vector<Tensor>;

// (1, C, 1, ..., 1): a per-channel vector broadcast against (N, C, *).
Shape channel_shape(const Tensor& x) {
  Shape s(static_cast<size_t>(x.dim()), 1);
  s[1] = x.size(1);
  return s;
}

// Every dim but the channel dim 1.
Shape non_channel_dims(const Tensor& x) {
  Shape d{0};
  for (int64_t i = 2; i < x.dim(); ++i) d.push_back(i);
  return d;
}

// (y - mean) / sqrt(var + eps) over `dims` with the biased variance; autograd flows through both.
Tensor normalize_composed(const Tensor& x, const Shape& dims, double eps) {
  Tensor xc = x - mean(x, dims, true);
  return xc * rsqrt(mean(xc * xc, dims, true) + eps);
}

// Whether `dims` are the trailing dims of x, which a device's row kernels can normalize in one pass.
bool fused_rows(const Tensor& x, const Shape& dims) {
  if (x.device().is_cpu() || !row_normalize_kernel().supports(x.device().type, 0, x.dtype()) || x.numel() == 0) {
    return false;
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] != x.dim() - static_cast<int64_t>(dims.size()) + static_cast<int64_t>(i)) return false;
  }
  return !dims.empty();
}

// normalize_composed in the device's fused row kernels (forward, and backward unless create_graph asks
// for a differentiable gradient, which the composed formula on the saved input gives).
Tensor normalize(const Tensor& x, const Shape& dims, double eps) {
  if (!fused_rows(x, dims)) return normalize_composed(x, dims, eps);
  int64_t L = 1;
  for (int64_t d : dims) L *= x.size(d);
  const int64_t R = x.numel() / L;
  const Dtype stat = x.dtype() == kFloat64 ? kFloat64 : kFloat32;
  Tensor xhat = empty({R, L}, TensorOptions(x.dtype()).set_device(x.device()));
  Tensor rstd = empty({R}, TensorOptions(stat).set_device(x.device()));
  row_normalize_kernel().get(x.device(), "layer_norm")(xhat, rstd, x.detach().contiguous().view({R, L}), eps);
  Tensor out = xhat.view(x.sizes());
  if (autograd::needs_grad({&x})) {
    autograd::SavedTensor X = x, Y = autograd::SavedTensor::output(out);
    autograd::record("NativeLayerNormBackward0", {x}, {out}, [=](const Grads& g) {
      if (is_grad_enabled()) {
        // create_graph: the gradient written with ops on x, differentiable again.
        Tensor xv = X.get(), xh = normalize_composed(xv, dims, eps);
        Tensor r = rsqrt(mean(square(xv - mean(xv, dims, true)), dims, true) + eps);
        return Grads{r * (g[0] - mean(g[0], dims, true) - xh * mean(g[0] * xh, dims, true))};
      }
      Tensor gx = empty({R, L}, TensorOptions(x.dtype()).set_device(x.device()));
      row_normalize_backward_kernel().get(x.device(), "layer_norm backward")(
          gx, g[0].to(x.dtype()).contiguous().view({R, L}), Y.get().contiguous().view({R, L}), rstd);
      return Grads{gx.view(x.sizes())};
    });
  }
  return out;
}

Tensor affine(Tensor y, const Tensor& weight, const Tensor& bias, const Shape& shape) {
  if (weight.defined()) y = y * weight.reshape(shape);
  if (bias.defined()) y = y + bias.reshape(shape);
  return y;
}

// The running statistics' update from the batch's mean and biased variance (C): the moving average with
// `factor`, the variance unbiased over the m = numel / C values of a channel.
void update_running(const Tensor& running_mean, const Tensor& running_var, const Tensor& batch_mean,
                    const Tensor& batch_var, double factor, double m) {
  NoGradGuard ng;
  Tensor rm = running_mean, rv = running_var;
  rm.mul_(1 - factor).add_((batch_mean * factor).to(rm.dtype()));
  rv.mul_(1 - factor).add_((batch_var * (factor * m / (m - 1))).to(rv.dtype()));
}

// Whether batch_norm_finalize_kernel takes these per-channel operands: contiguous (C) vectors on the input's
// device of one dtype it supports (the undefined ones aside; others take the ops, which raise on a mismatch).
bool finalize_fused(const Device& dev, const std::vector<const Tensor*>& params) {
  std::optional<Dtype> dt;
  for (const Tensor* t : params) {
    if (!t->defined()) continue;
    if (t->device() != dev || t->dim() != 1 || !t->is_contiguous() || (dt && *dt != t->dtype())) return false;
    dt = t->dtype();
  }
  return batch_norm_finalize_kernel().supports(dev.type, -1, dt.value_or(kFloat32));
}

// silu'(z) = s (1 + z (1 - s)), s = sigmoid(z), written with ops (differentiable again).
Tensor silu_derivative(const Tensor& z) {
  Tensor s = sigmoid(z);
  return s * (1 + z * (1 - s));
}

// Fused training forward, with `silu` the fused BN+SiLU (silu(z) written, z never stored); the running
// statistics (when defined) are updated with `factor` (see update_running).
Tensor batch_norm_fused(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                        const Tensor& running_var, double factor, double eps, bool silu) {
  const Device dev = input.device();
  const int64_t N = input.size(0), C = input.size(1), S = input.numel() / (N * C);
  const TensorOptions f64 = TensorOptions(kFloat64).set_device(dev);
  Tensor x3 = input.detach().contiguous().view({N, C, S});
  Tensor mean64 = empty({C}, f64), var64 = empty({C}, f64);
  batch_norm_stats_kernel().get(dev, "batch_norm")(x3, mean64, var64);
  const double m = static_cast<double>(N * S);
  Tensor invstd64, w64, scale, shift;
  Tensor w = weight.defined() ? weight.detach().reshape({C}) : Tensor(), b = bias.defined() ? bias.detach().reshape({C}) : Tensor();
  if (finalize_fused(dev, {&w, &b, &running_mean, &running_var})) {
    // One kernel for the per-channel float64 step and the running statistics.
    invstd64 = empty({C}, f64), w64 = empty({C}, f64), scale = empty({C}, f64), shift = empty({C}, f64);
    batch_norm_finalize_kernel().get(dev, "batch_norm")(invstd64, w64, scale, shift, mean64, var64, w, b, running_mean,
                                                         running_var, eps, factor, factor * m / (m - 1));
    for (const Tensor* t : {&running_mean, &running_var}) {
      if (t->defined()) t->impl()->storage->bump_version();
    }
  } else {
    NoGradGuard ng;
    invstd64 = rsqrt(var64 + eps);
    w64 = w.defined() ? w.to(kFloat64).contiguous() : ones({C}, f64);
    scale = (w64 * invstd64).contiguous();
    shift = b.defined() ? b.to(kFloat64).contiguous() : zeros({C}, f64);
    if (running_mean.defined()) update_running(running_mean, running_var, mean64, var64, factor, m);
  }
  Tensor out = empty(input.sizes(), TensorOptions(input.dtype()).set_device(dev));
  batch_norm_apply_kernel().get(dev, "batch_norm")(out.view({N, C, S}), x3, mean64, scale, shift, silu);

  if (autograd::needs_grad({&input, &weight, &bias})) {
    autograd::SavedTensor sx(input), sw(weight), sb(bias);
    const bool gx = input.requires_grad(), gw = weight.defined() && weight.requires_grad(),
               gb = bias.defined() && bias.requires_grad();
    const Shape wshape = weight.defined() ? weight.sizes() : Shape{}, bshape = bias.defined() ? bias.sizes() : Shape{};
    const Dtype wdt = weight.defined() ? weight.dtype() : input.dtype(), bdt = bias.defined() ? bias.dtype() : input.dtype();
    autograd::record(silu ? "BatchNormSiluBackward0" : "NativeBatchNormBackward0", {input, weight, bias}, {out},
                     [=](const Grads& g) {
      Grads res(3);
      if (is_grad_enabled()) {
        // create_graph: the same gradient written with ops on the saved input, differentiable again.
        Tensor xx = sx.get(), w = sw.get();
        const Shape dims = non_channel_dims(xx), cs = channel_shape(xx);
        Tensor xhat = normalize(xx, dims, eps);
        // The gradient reaching the batch norm's output z: through silu'(z) when fused.
        Tensor gz = silu ? g[0] * silu_derivative(affine(xhat, w, sb.get(), cs)) : g[0];
        Tensor gy = w.defined() ? gz * w.reshape(cs) : gz;
        Tensor invstd = rsqrt(var(xx, dims, 0, true) + eps);
        if (gx) res[0] = invstd * (gy - mean(gy, dims, true) - xhat * mean(gy * xhat, dims, true));
        if (gw) res[1] = sum(gz * xhat, dims).reshape(wshape).to(wdt);
        if (gb) res[2] = sum(gz, dims).reshape(bshape).to(bdt);
        return res;
      }
      sx.get();  // raises if the input was modified in place since the forward
      Tensor dy = g[0].contiguous().view({N, C, S});
      Tensor dx = gx ? empty({N, C, S}, TensorOptions(g[0].dtype()).set_device(dev)) : Tensor();
      Tensor sum_dy = empty({C}, f64), sum_dy_xhat = empty({C}, f64);
      batch_norm_backward_kernel().get(dev, "batch_norm backward")(dx, dy.to(x3.dtype()), x3, mean64, invstd64, w64,
                                                                   silu ? shift : Tensor(), sum_dy, sum_dy_xhat);
      if (gx) res[0] = dx.view(sx.get().sizes());
      if (gw) res[1] = sum_dy_xhat.to(wdt).reshape(wshape);
      if (gb) res[2] = sum_dy.to(bdt).reshape(bshape);
      return res;
    });
  }
  return out;
}

void check_channel_vector(const char* op, const Tensor& t, int64_t C, const char* name) {
  ADEPT_CHECK(!t.defined() || t.numel() == C, ShapeError, "{}: {} should contain {} elements not {}", op, name, C,
              t.numel());
}

}  // namespace

Tensor batch_norm_composed(const Tensor& input, const Tensor& weight, const Tensor& bias, double eps, Tensor& mean_out,
                           Tensor& var_out) {
  const Shape dims = non_channel_dims(input);
  Tensor m = mean(input, dims, true);
  Tensor xc = input - m;
  Tensor v = mean(xc * xc, dims, true);
  mean_out = m.detach().reshape({input.size(1)});
  var_out = v.detach().reshape({input.size(1)});
  return affine(xc * rsqrt(v + eps), weight, bias, channel_shape(input));
}

namespace {

// batch_norm, followed by SiLU when `silu` (batch_norm_silu): fused into the training kernels where they
// apply, else silu of the unfused result.
Tensor batch_norm_impl(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                       const Tensor& weight, const Tensor& bias, bool training, std::optional<double> momentum,
                       double eps, const Tensor& num_batches_tracked, bool silu) {
  const char* op = silu ? "batch_norm_silu" : "batch_norm";
  const autocast::Scope in_op(autocast::Policy::Exclude, {&input});  // float32 statistics, output in the input's dtype
  ADEPT_CHECK(input.dim() >= 2, ShapeError, "{}: expected an input of shape (N, C, *) with at least 2 dims, "
              "got shape {}", op, shape_str(input.sizes()));
  ADEPT_CHECK(input.is_floating_point(), DtypeError, "{}: expected a floating-point input, got '{}'", op,
              dtype_name(input.dtype()));
  const int64_t C = input.size(1);
  if (training) {
    const int64_t per_channel = input.numel() / std::max<int64_t>(C, 1);
    ADEPT_CHECK(C == 0 || per_channel != 1, ValueError,
                "Expected more than 1 value per channel when training, got input size {}", shape_str(input.sizes()));
  }
  check_channel_vector(op, running_mean, C, "running_mean");
  check_channel_vector(op, running_var, C, "running_var");
  check_channel_vector(op, weight, C, "weight");
  check_channel_vector(op, bias, C, "bias");
  ADEPT_CHECK(training || (running_mean.defined() && running_var.defined()), ValueError,
              "{}: running_mean and running_var must be defined in evaluation mode", op);
  ADEPT_CHECK(running_mean.defined() == running_var.defined(), ValueError,
              "{}: running_mean and running_var must both be defined or both be undefined", op);
  const Shape cs = channel_shape(input);
  const auto act = [silu](const Tensor& z) { return silu ? adept::silu(z) : z; };
  // No statistics from an empty batch: the input passes through (scaled), running stats stay.
  if (input.numel() == 0) return act(affine(input.clone(), weight, bias, cs).to(input.dtype()));

  if (!training) {
    Tensor invstd = rsqrt(running_var + eps);
    Tensor scale = weight.defined() ? weight.reshape({C}) * invstd : invstd;
    Tensor shift = -(running_mean * scale);
    if (bias.defined()) shift = shift + bias.reshape({C});
    return act(input * scale.to(input.dtype()).reshape(cs) + shift.to(input.dtype()).reshape(cs));
  }

  double factor = 0;
  if (running_mean.defined()) {
    if (momentum) {
      factor = *momentum;
    } else {
      ADEPT_CHECK(num_batches_tracked.defined() && num_batches_tracked.numel() == 1, ValueError,
                  "{}: momentum=None (cumulative average) needs num_batches_tracked (a 1-element tensor)", op);
      double n = num_batches_tracked.item<double>();
      ADEPT_CHECK(n > 0, ValueError, "{}: num_batches_tracked must be positive with momentum=None, got {}", op, n);
      factor = 1.0 / n;
    }
  }
  if (batch_norm_stats_kernel().supports(input.device().type, -1, input.dtype())) {
    return batch_norm_fused(input, weight, bias, running_mean, running_var, factor, eps, silu);
  }
  Tensor batch_mean, batch_var;
  Tensor out = batch_norm_composed(input, weight, bias, eps, batch_mean, batch_var);
  // The output keeps the input's dtype (a float16 / bfloat16 input with float32 affine parameters, as under
  // autocast, would otherwise be promoted by the composed path's affine step).
  if (out.dtype() != input.dtype()) out = out.to(input.dtype());
  if (running_mean.defined()) {
    update_running(running_mean, running_var, batch_mean, batch_var, factor, static_cast<double>(input.numel() / C));
  }
  return act(out);
}

}  // namespace

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                  const Tensor& bias, bool training, std::optional<double> momentum, double eps,
                  const Tensor& num_batches_tracked) {
  return batch_norm_impl(input, running_mean, running_var, weight, bias, training, momentum, eps, num_batches_tracked,
                         false);
}

Tensor batch_norm_silu(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                       const Tensor& weight, const Tensor& bias, bool training, std::optional<double> momentum,
                       double eps, const Tensor& num_batches_tracked) {
  return batch_norm_impl(input, running_mean, running_var, weight, bias, training, momentum, eps, num_batches_tracked,
                         true);
}

Tensor layer_norm(const Tensor& input, const Shape& normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps) {
  if (autocast::Scope s(autocast::Policy::Float32Gpu, {&input, &weight, &bias}); s)
    return layer_norm(s[0], normalized_shape, s[1], s[2], eps);
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  bool ok = k >= 1 && input.dim() >= k;
  for (int64_t i = 0; ok && i < k; ++i) ok = input.size(input.dim() - k + i) == normalized_shape[static_cast<size_t>(i)];
  ADEPT_CHECK(ok, ShapeError, "layer_norm: Given normalized_shape={}, expected input with shape [*, {}, but got input "
              "of size{}", shape_str(normalized_shape), shape_str(normalized_shape).substr(1),
              shape_str(input.sizes()));
  ADEPT_CHECK(!weight.defined() || weight.sizes() == normalized_shape, ShapeError,
              "layer_norm: Expected weight to be of same shape as normalized_shape, but got weight of shape {} and "
              "normalized_shape = {}", shape_str(weight.sizes()), shape_str(normalized_shape));
  ADEPT_CHECK(!bias.defined() || bias.sizes() == normalized_shape, ShapeError,
              "layer_norm: Expected bias to be of same shape as normalized_shape, but got bias of shape {} and "
              "normalized_shape = {}", shape_str(bias.sizes()), shape_str(normalized_shape));
  ADEPT_CHECK(input.is_floating_point(), DtypeError, "layer_norm: expected a floating-point input, got '{}'",
              dtype_name(input.dtype()));
  Shape dims;
  for (int64_t i = input.dim() - k; i < input.dim(); ++i) dims.push_back(i);
  return affine(normalize(input, dims, eps), weight, bias, normalized_shape);
}

Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight, const Tensor& bias, double eps) {
  if (autocast::Scope s(autocast::Policy::Float32Gpu, {&input, &weight, &bias}); s)
    return group_norm(s[0], num_groups, s[1], s[2], eps);
  // IndexError as PyTorch (its channel dim 1 is out of range).
  ADEPT_CHECK(input.dim() >= 2, IndexError, "group_norm: expected an input of shape (N, C, *) with at least 2 dims, "
              "got shape {}", shape_str(input.sizes()));
  ADEPT_CHECK(num_groups > 0, ValueError, "group_norm: num_groups must be positive, got {}", num_groups);
  const int64_t N = input.size(0), C = input.size(1);
  ADEPT_CHECK(C % num_groups == 0, ValueError, "group_norm: Expected number of channels in input to be divisible by "
              "num_groups, but got input of shape {} and num_groups={}", shape_str(input.sizes()), num_groups);
  ADEPT_CHECK(!weight.defined() || (weight.dim() == 1 && weight.numel() == C), ShapeError,
              "group_norm: Expected weight to be a vector of size equal to the number of channels in input, but got "
              "weight of shape {} and input of shape {}", shape_str(weight.sizes()), shape_str(input.sizes()));
  ADEPT_CHECK(!bias.defined() || (bias.dim() == 1 && bias.numel() == C), ShapeError,
              "group_norm: Expected bias to be a vector of size equal to the number of channels in input, but got "
              "bias of shape {} and input of shape {}", shape_str(bias.sizes()), shape_str(input.sizes()));
  ADEPT_CHECK(input.is_floating_point(), DtypeError, "group_norm: expected a floating-point input, got '{}'",
              dtype_name(input.dtype()));
  int64_t per_group = C / num_groups;
  for (int64_t i = 2; i < input.dim(); ++i) per_group *= input.size(i);
  Tensor y = normalize(input.reshape({N, num_groups, per_group}), {2}, eps).reshape(input.sizes());
  return affine(y, weight, bias, channel_shape(input));
}

}  // namespace adept
