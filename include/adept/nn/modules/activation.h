// Activation layers: the modules wrapping nn::functional's activations (torch.nn.ReLU, SiLU,
// Sigmoid, Tanh, GELU, LeakyReLU, Hardswish, LogSigmoid, Hardshrink, Softmax, LogSoftmax, ELU, Mish,
// Hardsigmoid, Hardtanh, ReLU6, Softplus). Any shape -> same shape;
// errors as the functional forms. `inplace` flags are accepted for torch compatibility and shown by
// repr; results are always computed out of place.
#pragma once
#include <optional>
#include <string>

#include "adept/nn/module.h"

namespace adept::nn {

class ReLU : public Module {
 public:
  explicit ReLU(bool inplace = false) : Module("ReLU"), inplace(inplace) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override { return inplace ? "inplace=True" : ""; }
  bool inplace;
};

/// x * sigmoid(x).
class SiLU : public Module {
 public:
  explicit SiLU(bool inplace = false) : Module("SiLU"), inplace(inplace) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override { return inplace ? "inplace=True" : ""; }
  bool inplace;
};

class Sigmoid : public Module {
 public:
  Sigmoid() : Module("Sigmoid") {}
  Tensor forward(const Tensor& input) override;
};

class Tanh : public Module {
 public:
  Tanh() : Module("Tanh") {}
  Tensor forward(const Tensor& input) override;
};

/// approximate: "none" (erf form) or "tanh"; ValueError for anything else (at forward, as torch).
class GELU : public Module {
 public:
  explicit GELU(std::string approximate = "none") : Module("GELU"), approximate(std::move(approximate)) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override { return "approximate='" + approximate + "'"; }
  std::string approximate;
};

class LeakyReLU : public Module {
 public:
  explicit LeakyReLU(double negative_slope = 0.01, bool inplace = false)
      : Module("LeakyReLU"), negative_slope(negative_slope), inplace(inplace) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  double negative_slope;
  bool inplace;
};

/// x * relu6(x + 3) / 6 (Howard et al., 2019).
class Hardswish : public Module {
 public:
  explicit Hardswish(bool inplace = false) : Module("Hardswish"), inplace(inplace) {}
  Tensor forward(const Tensor& input) override;
  bool inplace;
};

/// log(sigmoid(x)), without overflow (torch.nn.LogSigmoid).
class LogSigmoid : public Module {
 public:
  LogSigmoid() : Module("LogSigmoid") {}
  Tensor forward(const Tensor& input) override;
};

/// x where |x| > lambd, else 0 (torch.nn.Hardshrink).
class Hardshrink : public Module {
 public:
  explicit Hardshrink(double lambd = 0.5) : Module("Hardshrink"), lambd(lambd) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  double lambd;
};

/// x for x > 0, alpha (exp(x) - 1) otherwise (Clevert et al., 2015; torch.nn.ELU).
class ELU : public Module {
 public:
  explicit ELU(double alpha = 1.0, bool inplace = false) : Module("ELU"), alpha(alpha), inplace(inplace) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  double alpha;
  bool inplace;
};

/// x tanh(softplus(x)) (Misra, 2019; torch.nn.Mish).
class Mish : public Module {
 public:
  explicit Mish(bool inplace = false) : Module("Mish"), inplace(inplace) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override { return inplace ? "inplace=True" : ""; }
  bool inplace;
};

/// relu6(x + 3) / 6 (MobileNetV3, Howard et al., 2019; torch.nn.Hardsigmoid).
class Hardsigmoid : public Module {
 public:
  explicit Hardsigmoid(bool inplace = false) : Module("Hardsigmoid"), inplace(inplace) {}
  Tensor forward(const Tensor& input) override;
  bool inplace;
};

/// clamp(x, min_val, max_val) (torch.nn.Hardtanh); ValueError unless max_val > min_val (as torch asserts).
class Hardtanh : public Module {
 public:
  explicit Hardtanh(double min_val = -1.0, double max_val = 1.0, bool inplace = false);
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  double min_val, max_val;
  bool inplace;
};

/// min(max(x, 0), 6) (torch.nn.ReLU6).
class ReLU6 : public Module {
 public:
  explicit ReLU6(bool inplace = false) : Module("ReLU6"), inplace(inplace) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override { return inplace ? "inplace=True" : ""; }
  bool inplace;
};

/// log(1 + exp(beta x)) / beta, x itself where beta x > threshold (torch.nn.Softplus).
class Softplus : public Module {
 public:
  explicit Softplus(double beta = 1.0, double threshold = 20.0) : Module("Softplus"), beta(beta), threshold(threshold) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  double beta, threshold;
};

/// softmax along `dim`. dim = nullopt picks torch's legacy implicit dim: 0 for 0-, 1- and 3-d
/// input, else 1.
class Softmax : public Module {
 public:
  explicit Softmax(std::optional<int64_t> dim = std::nullopt) : Module("Softmax"), dim(dim) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  std::optional<int64_t> dim;
};

/// log_softmax along `dim` (nullopt: the implicit dim of Softmax).
class LogSoftmax : public Module {
 public:
  explicit LogSoftmax(std::optional<int64_t> dim = std::nullopt) : Module("LogSoftmax"), dim(dim) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  std::optional<int64_t> dim;
};

}  // namespace adept::nn
