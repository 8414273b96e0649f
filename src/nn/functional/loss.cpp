// Losses of nn::functional, composed of tensor ops (so they run on every device that has those
// ops and support double backward). binary_cross_entropy records its own gradient to reproduce
// PyTorch's value at input 0 or 1, where the clamped logs have none; binary_cross_entropy_with_logits
// records its own (composed of ops too) to keep only its inputs for backward.
#include "adept/nn/functional/loss.h"

#include <limits>

#include "ops/autocast_scope.h"
#include "ops/helpers.h"

namespace adept::nn::functional {
namespace {

using Grads = std::vector<Tensor>;

void check_reduction(const std::string& reduction) {
  ADEPT_CHECK(reduction == "mean" || reduction == "sum" || reduction == "none", ValueError,
              "{} is not a valid value for reduction (expected 'mean', 'sum' or 'none')", reduction);
}

Tensor reduce(const Tensor& loss, const std::string& reduction) {
  if (reduction == "mean") return mean(loss);
  if (reduction == "sum") return sum(loss);
  return loss;
}

// Input and target broadcast together (PyTorch warns for different sizes but computes the same).
std::pair<Tensor, Tensor> broadcast_pair(const Tensor& input, const Tensor& target) {
  if (input.sizes() == target.sizes()) return {input, target};
  std::vector<Tensor> b = broadcast_tensors({input, target});
  return {b[0], b[1]};
}

Tensor zero_like_scalar(const Tensor& t) { return zeros({}, TensorOptions(t.dtype()).set_device(t.device())); }

// total / weight_sum for the weighted means of nll and cross entropy: NaN when the weights sum to
// zero (every target ignored), as PyTorch, but with a zero gradient rather than 0 * inf.
Tensor weighted_mean(const Tensor& total, const Tensor& weight_sum) {
  Tensor empty_sum = eq(weight_sum, 0);
  Tensor safe = where(empty_sum, ones_like(weight_sum), weight_sum);
  return where(empty_sum, std::numeric_limits<double>::quiet_NaN(), total / safe);
}

// Checks index targets against input (N, C, d1...) / (C); returns the class dim.
int64_t check_index_target(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                           const char* op) {
  ADEPT_CHECK(input.dim() >= 1, ValueError, "{}: Expected 1 or more dimensions (got {})", op, input.dim());
  ADEPT_CHECK(target.dtype() == kInt64, DtypeError,
              "{}: expected scalar type Long but found {} (index targets must be int64; use a float target of the "
              "input's shape for class probabilities)", op, dtype_name(target.dtype()));
  const int64_t class_dim = input.dim() == 1 ? 0 : 1;
  if (input.dim() == 1) {
    ADEPT_CHECK(target.dim() == 0, ShapeError, "{}: input of shape {} (C) expects a 0-d target, got shape {}", op,
                shape_str(input.sizes()), shape_str(target.sizes()));
  } else {
    ADEPT_CHECK(target.dim() >= 1 && target.size(0) == input.size(0), ValueError,
                "{}: Expected input batch_size ({}) to match target batch_size ({}).", op, input.size(0),
                target.dim() ? target.size(0) : 0);
    Shape expect(input.sizes().begin(), input.sizes().end());
    expect.erase(expect.begin() + 1);
    ADEPT_CHECK(target.sizes() == expect, ShapeError, "{}: Expected target size {}, got {}", op, shape_str(expect),
                shape_str(target.sizes()));
  }
  const int64_t C = input.size(class_dim);
  ADEPT_CHECK(!weight.defined() || (weight.dim() == 1 && weight.numel() == C), ShapeError,
              "{}: weight tensor should be defined either for all {} classes or no classes but got weight tensor of "
              "shape: {}", op, C, shape_str(weight.sizes()));
  if (target.numel() > 0) {
    NoGradGuard ng;
    Tensor bad = logical_and(ne(target, ignore_index), logical_or(lt(target, 0), ge(target, C)));
    if (any(bad).item().to_bool()) {
      int64_t first = masked_select(target, bad).select(0, 0).item<int64_t>();
      throw IndexError(fmt::format("{}: Target {} is out of bounds (expected a class index in [0, {}) or "
                                   "ignore_index = {}).", op, first, C, ignore_index));
    }
  }
  return class_dim;
}

// Per-target class weights (target's shape, the input's dtype), 0 where the target is ignored.
Tensor target_weights(const Tensor& target, const Tensor& valid, const Tensor& safe_target, const Tensor& weight,
                      const Tensor& input) {
  Tensor v = valid.to(input.dtype());
  if (!weight.defined()) return v;
  return index_select(weight.to(input.dtype()), 0, safe_target.reshape({-1})).reshape(target.sizes()) * v;
}

Tensor weight_along(const Tensor& weight, const Tensor& input, int64_t class_dim) {
  Shape ws(static_cast<size_t>(input.dim()), 1);
  ws[static_cast<size_t>(class_dim)] = weight.numel();
  return weight.reshape(ws);
}

}  // namespace

Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                const std::string& reduction) {
  if (autocast::Scope s(autocast::Policy::Float32, {&input, &weight}); s)
    return nll_loss(s[0], target, s[1], ignore_index, reduction);
  check_reduction(reduction);
  const int64_t class_dim = check_index_target(input, target, weight, ignore_index, "nll_loss");
  Tensor valid = ne(target, ignore_index);
  Tensor safe = where(valid, target, zeros({}, TensorOptions(kInt64).set_device(target.device())));
  Tensor picked = gather(input, class_dim, safe.unsqueeze(class_dim)).squeeze(class_dim);
  Tensor w = target_weights(target, valid, safe, weight, input);
  Tensor loss = -(picked * w);
  if (reduction == "none") return loss;
  if (reduction == "sum") return sum(loss);
  return weighted_mean(sum(loss), sum(w));
}

Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                     const std::string& reduction, double label_smoothing) {
  if (autocast::Scope s(autocast::Policy::Float32, {&input, &target, &weight}); s)
    return cross_entropy(s[0], s[1], s[2], ignore_index, reduction, label_smoothing);
  check_reduction(reduction);
  ADEPT_CHECK(label_smoothing >= 0 && label_smoothing <= 1, ValueError,
              "cross_entropy: label_smoothing must be between 0.0 and 1.0. Got: {}", label_smoothing);
  ADEPT_CHECK(input.dim() >= 1, ValueError, "cross_entropy: Expected 1 or more dimensions (got {})", input.dim());
  ADEPT_CHECK(input.is_floating_point(), DtypeError, "cross_entropy: expected a floating-point input, got '{}'",
              dtype_name(input.dtype()));
  const int64_t class_dim = input.dim() == 1 ? 0 : 1;
  const int64_t C = input.size(class_dim);
  Tensor logp = log_softmax(input, class_dim);

  if (target.is_floating_point()) {  // class probabilities
    ADEPT_CHECK(target.sizes() == input.sizes(), ShapeError,
                "cross_entropy: probability targets must have the input's shape {}, got {}",
                shape_str(input.sizes()), shape_str(target.sizes()));
    ADEPT_CHECK(!weight.defined() || (weight.dim() == 1 && weight.numel() == C), ShapeError,
                "cross_entropy: weight tensor should be defined either for all {} classes or no classes but got "
                "weight tensor of shape: {}", C, shape_str(weight.sizes()));
    Tensor t = label_smoothing > 0 ? target * (1 - label_smoothing) + label_smoothing / static_cast<double>(C) : target;
    Tensor prod = logp * t;
    if (weight.defined()) prod = prod * weight_along(weight, input, class_dim);
    if (reduction == "none") return -sum(prod, {class_dim});
    if (reduction == "sum") return -sum(prod);
    const double n = C > 0 ? static_cast<double>(input.numel() / C) : 0.0;
    return -sum(prod) / n;  // empty input: 0 / 0 = nan, as PyTorch
  }

  Tensor nll = nll_loss(logp, target, weight, ignore_index, reduction);
  if (label_smoothing == 0) return nll;
  // Smoothing term: the (weighted) sum of -log p over classes, 0 at ignored targets, reduced with
  // the same denominator as the nll term.
  Tensor valid = ne(target, ignore_index);
  Tensor all = weight.defined() ? logp * weight_along(weight.to(logp.dtype()), logp, class_dim) : logp;
  Tensor smooth = where(valid, -sum(all, {class_dim}), zero_like_scalar(logp));
  Tensor smooth_red;
  if (reduction == "none") {
    smooth_red = smooth;
  } else if (reduction == "sum") {
    smooth_red = sum(smooth);
  } else {
    Tensor safe = where(valid, target, zeros({}, TensorOptions(kInt64).set_device(target.device())));
    smooth_red = weighted_mean(sum(smooth), sum(target_weights(target, valid, safe, weight, logp)));
  }
  return nll * (1 - label_smoothing) + smooth_red * (label_smoothing / static_cast<double>(C));
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight,
                                        const std::string& reduction, const Tensor& pos_weight) {
  if (autocast::Scope s(autocast::Policy::Float32, {&input, &target, &weight, &pos_weight}); s)
    return binary_cross_entropy_with_logits(s[0], s[1], s[2], reduction, s[3]);
  check_reduction(reduction);
  ADEPT_CHECK(target.sizes() == input.sizes(), ValueError,
              "binary_cross_entropy_with_logits: Target size ({}) must be the same as input size ({})",
              shape_str(target.sizes()), shape_str(input.sizes()));
  ADEPT_CHECK(input.is_floating_point(), DtypeError,
              "binary_cross_entropy_with_logits: expected a floating-point input, got '{}'", dtype_name(input.dtype()));
  // -log sigmoid(x) = softplus(-x) and -log(1 - sigmoid(x)) = x + softplus(-x): no exp overflows.
  auto composed = [&] {
    Tensor sp = softplus(-input);
    Tensor loss = pos_weight.defined() ? (1 - target) * input + ((pos_weight - 1) * target + 1) * sp
                                       : (1 - target) * input + sp;
    return reduce(weight.defined() ? loss * weight : loss, reduction);
  };
  // The fused path: one node that saves only its inputs (the composed ops keep four input-sized
  // temporaries until backward; the detection loss's class term is 43 MB each at batch 16 @ 640), and
  // in-place arithmetic, so that at most two input-sized temporaries exist at a time. It needs operands
  // of the input's dtype that broadcast into its shape, and weights without gradients (PyTorch has none
  // for them; the composed ops give them).
  auto fits = [&](const Tensor& t) {
    return !t.defined() || (t.dtype() == input.dtype() && broadcast_shapes(t.sizes(), input.sizes()) == input.sizes());
  };
  const bool weights_grad = (weight.defined() && weight.requires_grad()) || (pos_weight.defined() && pos_weight.requires_grad());
  if (weights_grad || !fits(target) || !fits(weight) || !fits(pos_weight)) return composed();
  Tensor out;
  {
    NoGradGuard ng;
    Tensor l = softplus(neg(input));  // softplus(-x)
    if (pos_weight.defined()) {
      Tensor c = target * (pos_weight - 1);
      l.mul_(c.add_(1));
    }
    l.add_(input).sub_(target * input);
    if (weight.defined()) l.mul_(weight);
    out = reduce(l, reduction);
  }
  if (!autograd::needs_grad({&input, &target})) return out;
  autograd::SavedTensor sx(input), st(target);
  const bool gx = input.requires_grad(), gt = target.requires_grad();
  const double mean_scale = reduction == "mean" ? 1.0 / static_cast<double>(std::max<int64_t>(input.numel(), 1)) : 1.0;
  autograd::record("BinaryCrossEntropyWithLogitsBackward0", {input, target}, {out}, [=](const Grads& g) {
    const Tensor x = sx.get(), t = st.get();
    Tensor coef = mean_scale == 1.0 ? g[0] : g[0] * mean_scale;  // () or the input's shape
    if (weight.defined()) coef = coef * weight;
    Grads res(2);
    // d/dx = sigmoid(x) (pw t + 1 - t) - pw t, d/dt = (pw - 1) softplus(-x) - x (pw = 1 without pos_weight).
    if (gx && is_grad_enabled()) {  // create_graph: differentiable again
      Tensor d = pos_weight.defined() ? sigmoid(x) * (pos_weight * t + 1 - t) - pos_weight * t : sigmoid(x) - t;
      res[0] = d * coef;
    } else if (gx) {
      Tensor d = sigmoid(x);
      if (pos_weight.defined()) {
        Tensor c = t * (pos_weight - 1);
        d.mul_(c.add_(1)).sub_(t * pos_weight);
      } else {
        d.sub_(t);
      }
      res[0] = d.mul_(coef);
    }
    if (gt) {
      Tensor d = pos_weight.defined() ? (pos_weight - 1) * softplus(-x) - x : -x;
      res[1] = d * coef;
    }
    return res;
  });
  return out;
}

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight,
                            const std::string& reduction) {
  if (autocast::Scope s(autocast::Policy::Float32, {&input, &target, &weight}); s) {
    // PyTorch's CUDA autocast refuses it; its CPU autocast runs it in float32.
    ADEPT_CHECK(input.device().is_cpu(), Error,
                "binary_cross_entropy and BCELoss are unsafe to autocast on {} (their float16 inputs lose the precision "
                "the logs need); use binary_cross_entropy_with_logits or BCEWithLogitsLoss, which are safe, or "
                "disable autocast around the loss", input.device().str());
    return binary_cross_entropy(s[0], s[1], s[2], reduction);
  }
  check_reduction(reduction);
  ADEPT_CHECK(target.sizes() == input.sizes(), ValueError,
              "binary_cross_entropy: Using a target size ({}) that is different to the input size ({}) is deprecated. "
              "Please ensure they have the same size.", shape_str(target.sizes()), shape_str(input.sizes()));
  ADEPT_CHECK(input.is_floating_point(), DtypeError, "binary_cross_entropy: expected a floating-point input, got '{}'",
              dtype_name(input.dtype()));
  if (weight.defined()) {
    ADEPT_CHECK(broadcast_shapes(weight.sizes(), input.sizes()) == input.sizes(), ShapeError,
                "binary_cross_entropy: weight of shape {} does not broadcast to the input shape {}",
                shape_str(weight.sizes()), shape_str(input.sizes()));
  }
  Dtype dt = result_type({input, target});
  Tensor loss;
  {
    NoGradGuard ng;
    if (input.numel() > 0) {
      Tensor outside = logical_not(logical_and(ge(input, 0), le(input, 1)));  // NaN is outside too
      ADEPT_CHECK(!any(outside).item().to_bool(), ValueError,
                  "binary_cross_entropy: all elements of input should be between 0 and 1");
    }
    Tensor x = input.to(dt), t = target.to(dt);
    Tensor logx = clamp(log(x), Scalar(-100), std::nullopt), log1mx = clamp(log1p(-x), Scalar(-100), std::nullopt);
    loss = -(t * logx + (1 - t) * log1mx);
  }
  if (autograd::needs_grad({&input, &target})) {
    autograd::SavedTensor sx(input), st(target);
    const bool gx = input.requires_grad(), gt = target.requires_grad();
    const Dtype dx = input.dtype(), dtt = target.dtype();
    autograd::record("BinaryCrossEntropyBackward0", {input, target}, {loss}, [=](const Grads& g) {
      Tensor x = sx.get().to(dt), t = st.get().to(dt);
      Grads out(2);
      // PyTorch's epsilon is the float 1e-12, also in float64.
      const double eps = static_cast<double>(1e-12f);
      if (gx) out[0] = (g[0] * (x - t) / clamp(x * (1 - x), Scalar(eps), std::nullopt)).to(dx);
      if (gt) {
        Tensor logx = clamp(log(x), Scalar(-100), std::nullopt), log1mx = clamp(log1p(-x), Scalar(-100), std::nullopt);
        out[1] = (g[0] * (log1mx - logx)).to(dtt);
      }
      return out;
    });
  }
  if (weight.defined()) loss = loss * weight;
  return reduce(loss, reduction);
}

Tensor mse_loss(const Tensor& input, const Tensor& target, const std::string& reduction) {
  if (autocast::Scope s(autocast::Policy::Float32, {&input, &target}); s) return mse_loss(s[0], s[1], reduction);
  check_reduction(reduction);
  auto [x, t] = broadcast_pair(input, target);
  return reduce(square(x - t), reduction);
}

Tensor l1_loss(const Tensor& input, const Tensor& target, const std::string& reduction) {
  if (autocast::Scope s(autocast::Policy::Float32, {&input, &target}); s) return l1_loss(s[0], s[1], reduction);
  check_reduction(reduction);
  auto [x, t] = broadcast_pair(input, target);
  return reduce(abs(x - t), reduction);
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const std::string& reduction, double beta) {
  if (autocast::Scope s(autocast::Policy::Float32, {&input, &target}); s)
    return smooth_l1_loss(s[0], s[1], reduction, beta);
  check_reduction(reduction);
  ADEPT_CHECK(beta >= 0, ValueError, "smooth_l1_loss does not support negative values for beta (got {}).", beta);
  auto [x, t] = broadcast_pair(input, target);
  Tensor d = x - t, ad = abs(d);
  if (beta == 0) return reduce(ad, reduction);
  return reduce(where(lt(ad, beta), d * d * (0.5 / beta), ad - 0.5 * beta), reduction);
}

Tensor huber_loss(const Tensor& input, const Tensor& target, const std::string& reduction, double delta) {
  if (autocast::Scope s(autocast::Policy::Float32, {&input, &target}); s)
    return huber_loss(s[0], s[1], reduction, delta);
  check_reduction(reduction);
  ADEPT_CHECK(delta > 0, ValueError, "huber_loss does not support non-positive values for delta (got {}).", delta);
  auto [x, t] = broadcast_pair(input, target);
  Tensor d = x - t, ad = abs(d);
  return reduce(where(lt(ad, delta), d * d * 0.5, (ad - 0.5 * delta) * delta), reduction);
}

}  // namespace adept::nn::functional
