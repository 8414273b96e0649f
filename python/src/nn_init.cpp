// adept._C._nn._init (torch.nn.init) and adept._C._nn._utils (clip_grad_norm_, clip_grad_value_);
// the Python modules adept.nn.init and adept.nn.utils give them torch's signatures.
#include "nn_module.h"

namespace adept::python {

void init_nn_init(py::module_& m) {
  py::module_ nn = nn_submodule_of(m);
  py::module_ init = nn.def_submodule("_init", "Parameter initialisation (use adept.nn.init).");
  namespace I = adept::nn::init;
  init.def("calculate_gain", &I::calculate_gain, py::arg("nonlinearity"), py::arg("param") = py::none());
  init.def("calculate_fan_in_and_fan_out", &I::calculate_fan_in_and_fan_out, py::arg("tensor"));
  // Tensor handles share the caller's tensor, so the fills land in it; the Python side returns it.
  init.def("uniform_", [](Tensor t, double a, double b) { I::uniform_(t, a, b); });
  init.def("normal_", [](Tensor t, double mean, double std) { I::normal_(t, mean, std); });
  init.def("constant_", [](Tensor t, double val) { I::constant_(t, val); });
  init.def("xavier_uniform_", [](Tensor t, double gain) { I::xavier_uniform_(t, gain); });
  init.def("xavier_normal_", [](Tensor t, double gain) { I::xavier_normal_(t, gain); });
  init.def("kaiming_uniform_", [](Tensor t, double a, const std::string& mode, const std::string& nonlinearity) {
    I::kaiming_uniform_(t, a, mode, nonlinearity);
  });
  init.def("kaiming_normal_", [](Tensor t, double a, const std::string& mode, const std::string& nonlinearity) {
    I::kaiming_normal_(t, a, mode, nonlinearity);
  });
  init.def("trunc_normal_", [](Tensor t, double mean, double std, double a, double b) {
    I::trunc_normal_(t, mean, std, a, b);
  });

  py::module_ utils = nn.def_submodule("_utils", "Gradient clipping (use adept.nn.utils).");
  utils.def("clip_grad_norm_", &adept::nn::utils::clip_grad_norm_, py::arg("parameters"), py::arg("max_norm"),
            py::arg("norm_type") = 2.0, py::arg("error_if_nonfinite") = false);
  utils.def("clip_grad_value_", &adept::nn::utils::clip_grad_value_, py::arg("parameters"), py::arg("clip_value"));
}

}  // namespace adept::python
