// Bindings of the normalization, loss, linear, dropout and activation functionals into `_C._nn`
// (python/adept/nn/functional.py gives them torch.nn.functional's signatures).
#include "adept/nn/functional.h"
#include "common.h"

namespace adept::python {
namespace {

namespace F = adept::nn::functional;
using OptTensor = std::optional<Tensor>;

}  // namespace

void init_nn_norm_loss(py::module_& m) {
  py::module_ nn = nn_submodule_of(m);
  // ---- normalization ----
  for (const auto& [name, fn] :
       {std::pair{"batch_norm", &F::batch_norm}, std::pair{"batch_norm_silu", &F::batch_norm_silu}}) {
    nn.def(name,
           [fn = fn](const Tensor& input, const OptTensor& running_mean, const OptTensor& running_var,
                     const OptTensor& weight, const OptTensor& bias, bool training, std::optional<double> momentum,
                     double eps, const OptTensor& num_batches_tracked) {
             return fn(input, opt_tensor(running_mean), opt_tensor(running_var), opt_tensor(weight), opt_tensor(bias),
                       training, momentum, eps, opt_tensor(num_batches_tracked));
           },
           py::arg("input"), py::arg("running_mean"), py::arg("running_var"), py::arg("weight") = py::none(),
           py::arg("bias") = py::none(), py::arg("training") = false, py::arg("momentum") = 0.1, py::arg("eps") = 1e-5,
           py::arg("num_batches_tracked") = py::none());
  }
  nn.def("layer_norm",
         [](const Tensor& input, const Shape& normalized_shape, const OptTensor& weight, const OptTensor& bias,
            double eps) { return F::layer_norm(input, normalized_shape, opt_tensor(weight), opt_tensor(bias), eps); },
         py::arg("input"), py::arg("normalized_shape"), py::arg("weight") = py::none(), py::arg("bias") = py::none(),
         py::arg("eps") = 1e-5);
  nn.def("group_norm",
         [](const Tensor& input, int64_t num_groups, const OptTensor& weight, const OptTensor& bias, double eps) {
           return F::group_norm(input, num_groups, opt_tensor(weight), opt_tensor(bias), eps);
         },
         py::arg("input"), py::arg("num_groups"), py::arg("weight") = py::none(), py::arg("bias") = py::none(),
         py::arg("eps") = 1e-5);
  // ---- losses ----
  nn.def("binary_cross_entropy_with_logits",
         [](const Tensor& input, const Tensor& target, const OptTensor& weight, const std::string& reduction,
            const OptTensor& pos_weight) {
           return F::binary_cross_entropy_with_logits(input, target, opt_tensor(weight), reduction,
                                                      opt_tensor(pos_weight));
         },
         py::arg("input"), py::arg("target"), py::arg("weight") = py::none(), py::arg("reduction") = "mean",
         py::arg("pos_weight") = py::none());
  nn.def("binary_cross_entropy",
         [](const Tensor& input, const Tensor& target, const OptTensor& weight, const std::string& reduction) {
           return F::binary_cross_entropy(input, target, opt_tensor(weight), reduction);
         },
         py::arg("input"), py::arg("target"), py::arg("weight") = py::none(), py::arg("reduction") = "mean");
  nn.def("cross_entropy",
         [](const Tensor& input, const Tensor& target, const OptTensor& weight, int64_t ignore_index,
            const std::string& reduction, double label_smoothing) {
           return F::cross_entropy(input, target, opt_tensor(weight), ignore_index, reduction, label_smoothing);
         },
         py::arg("input"), py::arg("target"), py::arg("weight") = py::none(), py::arg("ignore_index") = -100,
         py::arg("reduction") = "mean", py::arg("label_smoothing") = 0.0);
  nn.def("nll_loss",
         [](const Tensor& input, const Tensor& target, const OptTensor& weight, int64_t ignore_index,
            const std::string& reduction) {
           return F::nll_loss(input, target, opt_tensor(weight), ignore_index, reduction);
         },
         py::arg("input"), py::arg("target"), py::arg("weight") = py::none(), py::arg("ignore_index") = -100,
         py::arg("reduction") = "mean");
  nn.def("mse_loss", &F::mse_loss, py::arg("input"), py::arg("target"), py::arg("reduction") = "mean");
  nn.def("l1_loss", &F::l1_loss, py::arg("input"), py::arg("target"), py::arg("reduction") = "mean");
  nn.def("smooth_l1_loss", &F::smooth_l1_loss, py::arg("input"), py::arg("target"), py::arg("reduction") = "mean",
         py::arg("beta") = 1.0);
  nn.def("huber_loss", &F::huber_loss, py::arg("input"), py::arg("target"), py::arg("reduction") = "mean",
         py::arg("delta") = 1.0);
  // ---- linear, dropout ----
  nn.def("linear", [](const Tensor& input, const Tensor& weight, const OptTensor& bias) {
    return F::linear(input, weight, opt_tensor(bias));
  }, py::arg("input"), py::arg("weight"), py::arg("bias") = py::none());
  nn.def("dropout", &F::dropout, py::arg("input"), py::arg("p") = 0.5, py::arg("training") = true);
  // ---- activations ----
  nn.def("hardtanh", &F::hardtanh, py::arg("input"), py::arg("min_val") = -1.0, py::arg("max_val") = 1.0);
  nn.def("relu6", &F::relu6, py::arg("input"));
  nn.def("hardsigmoid", &F::hardsigmoid, py::arg("input"));
  nn.def("hardswish", &F::hardswish, py::arg("input"));
  nn.def("elu", &F::elu, py::arg("input"), py::arg("alpha") = 1.0);
  nn.def("mish", &F::mish, py::arg("input"));
}

}  // namespace adept::python
