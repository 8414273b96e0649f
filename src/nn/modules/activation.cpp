// Activation layers: thin wrappers over nn::functional.
#include "adept/nn/modules/activation.h"

#include "adept/nn/functional/activation.h"
#include "repr_util.h"

namespace adept::nn {

namespace F = functional;

namespace {
/// torch's implicit softmax dim (legacy behaviour of Softmax(dim=None)).
int64_t softmax_dim(const Tensor& input, std::optional<int64_t> dim) {
  if (dim) return *dim;
  int64_t n = input.dim();
  return (n == 0 || n == 1 || n == 3) ? 0 : 1;
}
std::string dim_repr(std::optional<int64_t> dim) { return dim ? fmt::format("dim={}", *dim) : "dim=None"; }
}  // namespace

Tensor ReLU::forward(const Tensor& input) { return F::relu(input); }
Tensor SiLU::forward(const Tensor& input) { return F::silu(input); }
Tensor Sigmoid::forward(const Tensor& input) { return F::sigmoid(input); }
Tensor Tanh::forward(const Tensor& input) { return F::tanh(input); }
Tensor GELU::forward(const Tensor& input) { return F::gelu(input, approximate); }
Tensor LeakyReLU::forward(const Tensor& input) { return F::leaky_relu(input, negative_slope); }
Tensor Hardswish::forward(const Tensor& input) { return F::hardswish(input); }
Tensor LogSigmoid::forward(const Tensor& input) { return F::logsigmoid(input); }
Tensor Hardshrink::forward(const Tensor& input) { return F::hardshrink(input, lambd); }
Tensor ELU::forward(const Tensor& input) { return F::elu(input, alpha); }
Tensor Mish::forward(const Tensor& input) { return F::mish(input); }
Tensor Hardsigmoid::forward(const Tensor& input) { return F::hardsigmoid(input); }
Hardtanh::Hardtanh(double min_val, double max_val, bool inplace)
    : Module("Hardtanh"), min_val(min_val), max_val(max_val), inplace(inplace) {
  ADEPT_CHECK(max_val > min_val, ValueError, "Hardtanh: max_val ({}) must be greater than min_val ({})", max_val,
              min_val);
}
Tensor Hardtanh::forward(const Tensor& input) { return F::hardtanh(input, min_val, max_val); }
Tensor ReLU6::forward(const Tensor& input) { return F::relu6(input); }
Tensor Softplus::forward(const Tensor& input) { return F::softplus(input, beta, threshold); }
Tensor Softmax::forward(const Tensor& input) { return F::softmax(input, softmax_dim(input, dim)); }
Tensor LogSoftmax::forward(const Tensor& input) { return F::log_softmax(input, softmax_dim(input, dim)); }

std::string LeakyReLU::extra_repr() const {
  return "negative_slope=" + detail::py_float(negative_slope) + (inplace ? ", inplace=True" : "");
}
std::string Hardshrink::extra_repr() const { return detail::py_float(lambd); }
std::string ELU::extra_repr() const { return "alpha=" + detail::py_float(alpha) + (inplace ? ", inplace=True" : ""); }
std::string Hardtanh::extra_repr() const {
  return "min_val=" + detail::py_float(min_val) + ", max_val=" + detail::py_float(max_val) + (inplace ? ", inplace=True" : "");
}
std::string Softplus::extra_repr() const {
  return "beta=" + detail::py_float(beta) + ", threshold=" + detail::py_float(threshold);
}
std::string Softmax::extra_repr() const { return dim_repr(dim); }
std::string LogSoftmax::extra_repr() const { return dim_repr(dim); }

}  // namespace adept::nn
