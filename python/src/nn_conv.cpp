// Bindings of conv2d / conv_transpose2d into `_C._nn` (python/adept/nn/functional.py gives them
// torch.nn.functional's signatures; int-or-tuple arguments arrive here as lists of 1 or 2 ints).
#include "adept/nn/functional/conv.h"
#include "common.h"

namespace adept::python {
namespace {

namespace F = adept::nn::functional;
using OptTensor = std::optional<Tensor>;
using Pair = std::vector<int64_t>;

nn::IntPair pair(const Pair& v, const char* name, const char* op) {
  ADEPT_CHECK(v.size() == 1 || v.size() == 2, ShapeError,
              "{}: expected {} to be a single integer value or a list of 2 values to match the convolution dimensions, "
              "but got {}={}", op, name, name, fmt::format("[{}]", fmt::join(v, ", ")));
  return v.size() == 1 ? nn::IntPair(v[0]) : nn::IntPair(v[0], v[1]);
}

}  // namespace

void init_nn_conv(py::module_& m) {
  py::module_ nn = nn_submodule_of(m);
  nn.def("conv2d",
         [](const Tensor& input, const Tensor& weight, const OptTensor& bias, const Pair& stride, const Pair& padding,
            const Pair& dilation, int64_t groups) {
           return F::conv2d(input, weight, opt_tensor(bias), pair(stride, "stride", "conv2d"),
                            pair(padding, "padding", "conv2d"), pair(dilation, "dilation", "conv2d"), groups);
         },
         py::arg("input"), py::arg("weight"), py::arg("bias"), py::arg("stride"), py::arg("padding"),
         py::arg("dilation"), py::arg("groups"));
  nn.def("conv2d",
         [](const Tensor& input, const Tensor& weight, const OptTensor& bias, const Pair& stride,
            const std::string& padding, const Pair& dilation, int64_t groups) {
           return F::conv2d(input, weight, opt_tensor(bias), pair(stride, "stride", "conv2d"), padding,
                            pair(dilation, "dilation", "conv2d"), groups);
         },
         py::arg("input"), py::arg("weight"), py::arg("bias"), py::arg("stride"), py::arg("padding"),
         py::arg("dilation"), py::arg("groups"));
  nn.def("conv_transpose2d",
         [](const Tensor& input, const Tensor& weight, const OptTensor& bias, const Pair& stride, const Pair& padding,
            const Pair& output_padding, int64_t groups, const Pair& dilation) {
           const char* op = "conv_transpose2d";
           return F::conv_transpose2d(input, weight, opt_tensor(bias), pair(stride, "stride", op),
                                      pair(padding, "padding", op), pair(output_padding, "output_padding", op), groups,
                                      pair(dilation, "dilation", op));
         },
         py::arg("input"), py::arg("weight"), py::arg("bias"), py::arg("stride"), py::arg("padding"),
         py::arg("output_padding"), py::arg("groups"), py::arg("dilation"));
}

}  // namespace adept::python
