// Entry point of the extension module `adept._C`; each area binds itself in its own file.
#include "common.h"

PYBIND11_MODULE(_C, m) {
  using namespace adept::python;
  m.doc() = "Adept tensor engine: C++ core bindings (use the `adept` package)";
  init_errors(m);
  init_dtype_device(m);
  TensorClass cls(m, "Tensor", py::dynamic_attr(), py::buffer_protocol(),
                  "An N-d strided view of typed storage with autograd state (torch.Tensor).");
  init_tensor(m, cls);
  init_creation(m);
  init_ops(m, cls);
  init_index_ops(m, cls);
  init_indexing(cls);
  init_autograd(m, cls);
  init_interop(m, cls);
  init_vulkan(m);
  init_cpu(m);
  init_profiler(m);
  init_nn_norm_loss(m);
  init_nn_conv(m);
  init_nn_pooling(m);
  init_nn_module(m);
  init_nn_modules_layers(m);
  init_io(m);
  init_nn_init(m);
  init_optim(m);
  init_amp(m);
  init_data(m);
  init_vision(m);
  init_models(m);
  init_models_loss(m);
  init_models_metrics(m);
  init_models_engine(m);
  init_onnx(m);
  init_distributed(m);
}
