// Parameter initialisation (torch.nn.init): in-place fills drawn from the default generator.
#include "adept/nn/init.h"

#include <cmath>

#include "adept/autograd.h"
#include "adept/ops.h"
#include "ops/helpers.h"

namespace adept::nn::init {

namespace {

int64_t correct_fan(const Tensor& t, const std::string& mode, const char* op) {
  ADEPT_CHECK(mode == "fan_in" || mode == "fan_out", ValueError,
              "{}: Mode {} not supported, please use one of fan_in, fan_out", op, mode);
  auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(t);
  return mode == "fan_in" ? fan_in : fan_out;
}

double kaiming_std(const Tensor& t, double a, const std::string& mode, const std::string& nonlinearity,
                   const char* op) {
  const int64_t fan = correct_fan(t, mode, op);
  return calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(fan));
}

double xavier_std(const Tensor& t, double gain, const char* op) {
  auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(t);
  ADEPT_CHECK(fan_in + fan_out > 0, ValueError, "{}: fan_in + fan_out is 0 for a tensor of shape {}", op,
              shape_str(t.sizes()));
  return gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
}

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

}  // namespace

double calculate_gain(const std::string& nonlinearity, std::optional<double> param) {
  static const char* linear[] = {"linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                                 "conv_transpose3d", "sigmoid"};
  for (const char* n : linear) {
    if (nonlinearity == n) return 1;
  }
  if (nonlinearity == "tanh") return 5.0 / 3;
  if (nonlinearity == "relu") return std::sqrt(2.0);
  if (nonlinearity == "leaky_relu") {
    const double slope = param.value_or(0.01);
    return std::sqrt(2.0 / (1 + slope * slope));
  }
  if (nonlinearity == "selu") return 3.0 / 4;
  throw ValueError(fmt::format("calculate_gain: Unsupported nonlinearity {}", nonlinearity));
}

std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& t) {
  ADEPT_CHECK(t.dim() >= 2, ValueError,
              "calculate_fan_in_and_fan_out: Fan in and fan out can not be computed for tensor with fewer than 2 "
              "dimensions (got {} dims)",
              t.dim());
  int64_t receptive = 1;
  for (int64_t d = 2; d < t.dim(); ++d) receptive *= t.size(d);
  return {t.size(1) * receptive, t.size(0) * receptive};
}

Tensor& uniform_(Tensor& t, double a, double b) {
  NoGradGuard no_grad;
  return adept::uniform_(t, a, b);
}

Tensor& normal_(Tensor& t, double mean, double std) {
  NoGradGuard no_grad;
  return adept::normal_(t, mean, std);
}

Tensor& constant_(Tensor& t, double val) {
  NoGradGuard no_grad;
  return t.fill_(val);
}

Tensor& ones_(Tensor& t) { return constant_(t, 1); }

Tensor& zeros_(Tensor& t) { return constant_(t, 0); }

Tensor& xavier_uniform_(Tensor& t, double gain) {
  const double a = std::sqrt(3.0) * xavier_std(t, gain, "xavier_uniform_");
  return init::uniform_(t, -a, a);
}

Tensor& xavier_normal_(Tensor& t, double gain) { return init::normal_(t, 0, xavier_std(t, gain, "xavier_normal_")); }

Tensor& kaiming_uniform_(Tensor& t, double a, const std::string& mode, const std::string& nonlinearity) {
  if (t.numel() == 0) return t;  // torch warns and leaves it
  const double bound = std::sqrt(3.0) * kaiming_std(t, a, mode, nonlinearity, "kaiming_uniform_");
  return init::uniform_(t, -bound, bound);
}

Tensor& kaiming_normal_(Tensor& t, double a, const std::string& mode, const std::string& nonlinearity) {
  if (t.numel() == 0) return t;
  return init::normal_(t, 0, kaiming_std(t, a, mode, nonlinearity, "kaiming_normal_"));
}

Tensor& trunc_normal_(Tensor& t, double mean, double std, double a, double b) {
  ADEPT_CHECK(std > 0 && a < b, ValueError, "trunc_normal_: expects std > 0 and a < b, got std={}, a={}, b={}", std,
              a, b);
  const double mass = normal_cdf((b - mean) / std) - normal_cdf((a - mean) / std);
  ADEPT_CHECK(mass >= 1e-4, ValueError,
              "trunc_normal_: [a, b] = [{}, {}] holds only {} of N({}, {}^2); too little to sample by rejection", a, b,
              mass, mean, std);
  NoGradGuard no_grad;
  adept::normal_(t, mean, std);
  // Rejection: redraw the out-of-range values until none is left (exactly the truncated law).
  while (true) {
    const Tensor bad = logical_or(lt(t, Scalar(a)), gt(t, Scalar(b)));
    const int64_t n = sum(bad).item<int64_t>();
    if (n == 0) break;
    Tensor fresh = empty({n}, TensorOptions(t.dtype()).set_device(t.device()));
    adept::normal_(fresh, mean, std);
    t.index_put_({bad}, fresh);
  }
  return t;
}

}  // namespace adept::nn::init
