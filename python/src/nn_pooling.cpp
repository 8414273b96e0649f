// Bindings of the 2-d pooling ops and interpolate into `_C._nn` (python/adept/nn/functional.py gives them
// torch.nn.functional's signatures; int-or-tuple arguments arrive here as lists of 1 or 2 ints).
#include "adept/nn/functional/interpolate.h"
#include "adept/nn/functional/pooling.h"
#include "common.h"

namespace adept::python {
namespace {

namespace F = adept::nn::functional;
using Pair = std::vector<int64_t>;

// A kernel_size / stride / padding / dilation list of 1 or 2 ints (PyTorch: RuntimeError otherwise).
nn::IntPair pair(const Pair& v, const char* name, const char* op) {
  ADEPT_CHECK(v.size() == 1 || v.size() == 2, ShapeError, "{}: {} must either be a single int, or a tuple of two ints",
              op, name);
  return v.size() == 1 ? nn::IntPair(v[0]) : nn::IntPair(v[0], v[1]);
}

std::optional<nn::IntPair> opt_pair(const std::optional<Pair>& v, const char* name, const char* op) {
  if (!v || v->empty()) return std::nullopt;  // stride=None or () means kernel_size, as in PyTorch
  return pair(*v, name, op);
}

}  // namespace

void init_nn_pooling(py::module_& m) {
  py::module_ nn = nn_submodule_of(m);
  nn.def("max_pool2d",
         [](const Tensor& input, const Pair& k, const std::optional<Pair>& stride, const Pair& padding,
            const Pair& dilation, bool ceil_mode, bool return_indices) -> py::object {
           const char* op = "max_pool2d";
           auto r = F::max_pool2d_with_indices(input, pair(k, "kernel_size", op), opt_pair(stride, "stride", op),
                                               pair(padding, "padding", op), pair(dilation, "dilation", op), ceil_mode);
           if (return_indices) return py::make_tuple(std::get<0>(r), std::get<1>(r));
           return py::cast(std::get<0>(r));
         },
         py::arg("input"), py::arg("kernel_size"), py::arg("stride"), py::arg("padding"), py::arg("dilation"),
         py::arg("ceil_mode"), py::arg("return_indices"));
  nn.def("avg_pool2d",
         [](const Tensor& input, const Pair& k, const std::optional<Pair>& stride, const Pair& padding, bool ceil_mode,
            bool count_include_pad, std::optional<int64_t> divisor_override) {
           const char* op = "avg_pool2d";
           return F::avg_pool2d(input, pair(k, "kernel_size", op), opt_pair(stride, "stride", op),
                                pair(padding, "padding", op), ceil_mode, count_include_pad, divisor_override);
         },
         py::arg("input"), py::arg("kernel_size"), py::arg("stride"), py::arg("padding"), py::arg("ceil_mode"),
         py::arg("count_include_pad"), py::arg("divisor_override"));
  nn.def("adaptive_avg_pool2d",
         [](const Tensor& input, const Pair& output_size) {
           return F::adaptive_avg_pool2d(input, pair(output_size, "output_size", "adaptive_avg_pool2d"));
         },
         py::arg("input"), py::arg("output_size"));
  nn.def("adaptive_max_pool2d",
         [](const Tensor& input, const Pair& output_size, bool return_indices) -> py::object {
           auto r = F::adaptive_max_pool2d_with_indices(input, pair(output_size, "output_size", "adaptive_max_pool2d"));
           if (return_indices) return py::make_tuple(std::get<0>(r), std::get<1>(r));
           return py::cast(std::get<0>(r));
         },
         py::arg("input"), py::arg("output_size"), py::arg("return_indices"));
  nn.def("max_unpool2d",
         [](const Tensor& input, const Tensor& indices, const Pair& k, const std::optional<Pair>& stride,
            const Pair& padding, const std::optional<Shape>& output_size) {
           const char* op = "max_unpool2d";
           return F::max_unpool2d(input, indices, pair(k, "kernel_size", op), opt_pair(stride, "stride", op),
                                  pair(padding, "padding", op), output_size);
         },
         py::arg("input"), py::arg("indices"), py::arg("kernel_size"), py::arg("stride"), py::arg("padding"),
         py::arg("output_size"));
  nn.def("interpolate", &F::interpolate, py::arg("input"), py::arg("size"), py::arg("scale_factor"), py::arg("mode"),
         py::arg("align_corners"), py::arg("recompute_scale_factor"));
}

}  // namespace adept::python
