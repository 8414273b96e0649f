// The layer classes (Linear, Conv2d, pooling, normalization, activations, losses ...) bound into
// `_C._nn` with torch.nn's constructor keywords; each can be subclassed from Python (trampoline).
#include "nn_module.h"

namespace adept::python {

namespace {

using nn::Module;

/// py::init with two factories: the plain class, or its trampoline when the Python type is a subclass.
#define ADEPT_MODULE_INIT(T, PARAMS, ARGS) \
  py::init([] PARAMS { return new T ARGS; }, [] PARAMS { return new PyModule<T> ARGS; })

template <class T>
using LayerClass = py::class_<T, Module, PyModule<T>, std::shared_ptr<T>>;

template <class T>
LayerClass<T> layer(py::module_& nn, const char* name, const char* doc) {
  return LayerClass<T>(nn, name, py::dynamic_attr(), doc);
}

py::object tuple_of(const nn::IntPair& p) { return py::make_tuple(p[0], p[1]); }

nn::PoolSize pool_size(const py::handle& h, const char* what) {
  nn::IntPair p = pair_arg(h, what);
  return nn::PoolSize(p, !PyLong_Check(h.ptr()));
}
py::object pool_size_py(const nn::PoolSize& s) { return s.is_pair ? tuple_of(s.value) : py::cast(s.value[0]); }

/// torch's legacy size_average/reduce arguments folded into a reduction string.
std::string reduction_arg(const py::object& size_average, const py::object& reduce, const std::string& reduction) {
  if (size_average.is_none() && reduce.is_none()) return reduction;
  bool sa = size_average.is_none() || size_average.cast<bool>();
  bool rd = reduce.is_none() || reduce.cast<bool>();
  return !rd ? "none" : (sa ? "mean" : "sum");
}

void bind_basic(py::module_& nn) {
  layer<nn::Identity>(nn, "Identity", "Returns its input (torch.nn.Identity); arguments are ignored.")
      .def(py::init([](const py::args&, const py::kwargs&) { return new nn::Identity(); },
                    [](const py::args&, const py::kwargs&) { return new PyModule<nn::Identity>(); }))
      .def("forward", [](nn::Identity& m, const Tensor& x) { return m.nn::Identity::forward(x); }, py::arg("input"));

  layer<nn::Linear>(nn, "Linear", "y = x W^T + b (torch.nn.Linear).")
      .def(ADEPT_MODULE_INIT(nn::Linear, (int64_t in, int64_t out, bool bias), (in, out, bias)),
           py::arg("in_features"), py::arg("out_features"), py::arg("bias") = true)
      .def("forward", [](nn::Linear& m, const Tensor& x) { return m.nn::Linear::forward(x); }, py::arg("input"))
      .def("reset_parameters", &nn::Linear::reset_parameters)
      .def_readonly("in_features", &nn::Linear::in_features)
      .def_readonly("out_features", &nn::Linear::out_features);

  layer<nn::Flatten>(nn, "Flatten", "Flattens dims start_dim..end_dim (torch.nn.Flatten).")
      .def(ADEPT_MODULE_INIT(nn::Flatten, (int64_t s, int64_t e), (s, e)), py::arg("start_dim") = 1,
           py::arg("end_dim") = -1)
      .def("forward", [](nn::Flatten& m, const Tensor& x) { return m.nn::Flatten::forward(x); }, py::arg("input"))
      .def_readonly("start_dim", &nn::Flatten::start_dim)
      .def_readonly("end_dim", &nn::Flatten::end_dim);

  layer<nn::Dropout>(nn, "Dropout", "Zeroes elements with probability p in training (torch.nn.Dropout).")
      .def(ADEPT_MODULE_INIT(nn::Dropout, (double p, bool inplace), (p, inplace)), py::arg("p") = 0.5,
           py::arg("inplace") = false)
      .def("forward", [](nn::Dropout& m, const Tensor& x) { return m.nn::Dropout::forward(x); }, py::arg("input"))
      .def_readwrite("p", &nn::Dropout::p)
      .def_readonly("inplace", &nn::Dropout::inplace);
}

void bind_activations(py::module_& nn) {
#define ADEPT_ACT_INPLACE(T, DOC)                                                                                   \
  layer<nn::T>(nn, #T, DOC)                                                                                       \
      .def(ADEPT_MODULE_INIT(nn::T, (bool inplace), (inplace)), py::arg("inplace") = false)                      \
      .def("forward", [](nn::T& m, const Tensor& x) { return m.nn::T::forward(x); }, py::arg("input"))          \
      .def_readonly("inplace", &nn::T::inplace)
  ADEPT_ACT_INPLACE(ReLU, "max(x, 0) (torch.nn.ReLU).");
  ADEPT_ACT_INPLACE(SiLU, "x * sigmoid(x) (torch.nn.SiLU).");
  ADEPT_ACT_INPLACE(Hardswish, "x * relu6(x + 3) / 6 (torch.nn.Hardswish).");
  ADEPT_ACT_INPLACE(Mish, "x * tanh(softplus(x)) (torch.nn.Mish).");
  ADEPT_ACT_INPLACE(Hardsigmoid, "relu6(x + 3) / 6 (torch.nn.Hardsigmoid).");
  ADEPT_ACT_INPLACE(ReLU6, "min(max(x, 0), 6) (torch.nn.ReLU6).");
#undef ADEPT_ACT_INPLACE
#define ADEPT_ACT_PLAIN(T, DOC)                                                                                     \
  layer<nn::T>(nn, #T, DOC)                                                                                       \
      .def(ADEPT_MODULE_INIT(nn::T, (), ()))                                                                      \
      .def("forward", [](nn::T& m, const Tensor& x) { return m.nn::T::forward(x); }, py::arg("input"))
  ADEPT_ACT_PLAIN(Sigmoid, "1 / (1 + exp(-x)) (torch.nn.Sigmoid).");
  ADEPT_ACT_PLAIN(Tanh, "tanh(x) (torch.nn.Tanh).");
  ADEPT_ACT_PLAIN(LogSigmoid, "log(sigmoid(x)) (torch.nn.LogSigmoid).");
#undef ADEPT_ACT_PLAIN
  layer<nn::GELU>(nn, "GELU", "Gaussian error linear unit (torch.nn.GELU).")
      .def(ADEPT_MODULE_INIT(nn::GELU, (const std::string& a), (a)), py::arg("approximate") = "none")
      .def("forward", [](nn::GELU& m, const Tensor& x) { return m.nn::GELU::forward(x); }, py::arg("input"))
      .def_readonly("approximate", &nn::GELU::approximate);
  layer<nn::LeakyReLU>(nn, "LeakyReLU", "max(x, 0) + negative_slope * min(x, 0) (torch.nn.LeakyReLU).")
      .def(ADEPT_MODULE_INIT(nn::LeakyReLU, (double s, bool inplace), (s, inplace)), py::arg("negative_slope") = 0.01,
           py::arg("inplace") = false)
      .def("forward", [](nn::LeakyReLU& m, const Tensor& x) { return m.nn::LeakyReLU::forward(x); }, py::arg("input"))
      .def_readonly("negative_slope", &nn::LeakyReLU::negative_slope)
      .def_readonly("inplace", &nn::LeakyReLU::inplace);
  layer<nn::ELU>(nn, "ELU", "x for x > 0, alpha * (exp(x) - 1) otherwise (torch.nn.ELU).")
      .def(ADEPT_MODULE_INIT(nn::ELU, (double alpha, bool inplace), (alpha, inplace)), py::arg("alpha") = 1.0,
           py::arg("inplace") = false)
      .def("forward", [](nn::ELU& m, const Tensor& x) { return m.nn::ELU::forward(x); }, py::arg("input"))
      .def_readonly("alpha", &nn::ELU::alpha)
      .def_readonly("inplace", &nn::ELU::inplace);
  layer<nn::Hardtanh>(nn, "Hardtanh", "clamp(x, min_val, max_val) (torch.nn.Hardtanh).")
      .def(ADEPT_MODULE_INIT(nn::Hardtanh, (double lo, double hi, bool inplace), (lo, hi, inplace)),
           py::arg("min_val") = -1.0, py::arg("max_val") = 1.0, py::arg("inplace") = false)
      .def("forward", [](nn::Hardtanh& m, const Tensor& x) { return m.nn::Hardtanh::forward(x); }, py::arg("input"))
      .def_readonly("min_val", &nn::Hardtanh::min_val)
      .def_readonly("max_val", &nn::Hardtanh::max_val)
      .def_readonly("inplace", &nn::Hardtanh::inplace);
  layer<nn::Softplus>(nn, "Softplus", "log(1 + exp(beta * x)) / beta, x where beta * x > threshold (torch.nn.Softplus).")
      .def(ADEPT_MODULE_INIT(nn::Softplus, (double beta, double threshold), (beta, threshold)), py::arg("beta") = 1.0,
           py::arg("threshold") = 20.0)
      .def("forward", [](nn::Softplus& m, const Tensor& x) { return m.nn::Softplus::forward(x); }, py::arg("input"))
      .def_readonly("beta", &nn::Softplus::beta)
      .def_readonly("threshold", &nn::Softplus::threshold);
  layer<nn::Hardshrink>(nn, "Hardshrink", "x where |x| > lambd, else 0 (torch.nn.Hardshrink).")
      .def(ADEPT_MODULE_INIT(nn::Hardshrink, (double lambd), (lambd)), py::arg("lambd") = 0.5)
      .def("forward", [](nn::Hardshrink& m, const Tensor& x) { return m.nn::Hardshrink::forward(x); }, py::arg("input"))
      .def_readonly("lambd", &nn::Hardshrink::lambd);
  layer<nn::Softmax>(nn, "Softmax", "softmax along dim (torch.nn.Softmax).")
      .def(ADEPT_MODULE_INIT(nn::Softmax, (std::optional<int64_t> dim), (dim)), py::arg("dim") = py::none())
      .def("forward", [](nn::Softmax& m, const Tensor& x) { return m.nn::Softmax::forward(x); }, py::arg("input"))
      .def_readonly("dim", &nn::Softmax::dim);
  layer<nn::LogSoftmax>(nn, "LogSoftmax", "log_softmax along dim (torch.nn.LogSoftmax).")
      .def(ADEPT_MODULE_INIT(nn::LogSoftmax, (std::optional<int64_t> dim), (dim)), py::arg("dim") = py::none())
      .def("forward", [](nn::LogSoftmax& m, const Tensor& x) { return m.nn::LogSoftmax::forward(x); }, py::arg("input"))
      .def_readonly("dim", &nn::LogSoftmax::dim);
}

template <class T>
T* make_conv2d(int64_t in, int64_t out, const py::object& k, const py::object& s, const py::object& p,
               const py::object& d, int64_t groups, bool bias, const std::string& mode) {
  nn::Conv2dPadding pad = py::isinstance<py::str>(p) ? nn::Conv2dPadding(p.cast<std::string>())
                                                    : nn::Conv2dPadding(pair_arg(p, "padding"));
  return new T(in, out, pair_arg(k, "kernel_size"), pair_arg(s, "stride"), pad, pair_arg(d, "dilation"), groups, bias,
               mode);
}

template <class T>
T* make_conv_transpose2d(int64_t in, int64_t out, const py::object& k, const py::object& s, const py::object& p,
                         const py::object& op, int64_t groups, bool bias, const py::object& d, const std::string& mode) {
  return new T(in, out, pair_arg(k, "kernel_size"), pair_arg(s, "stride"), pair_arg(p, "padding"),
               pair_arg(op, "output_padding"), groups, bias, pair_arg(d, "dilation"), mode);
}

void bind_conv(py::module_& nn) {
  layer<nn::Conv2d>(nn, "Conv2d", "2-d convolution layer (torch.nn.Conv2d).")
      .def(py::init(&make_conv2d<nn::Conv2d>, &make_conv2d<PyModule<nn::Conv2d>>), py::arg("in_channels"),
           py::arg("out_channels"), py::arg("kernel_size"), py::arg("stride") = 1, py::arg("padding") = 0,
           py::arg("dilation") = 1, py::arg("groups") = 1, py::arg("bias") = true, py::arg("padding_mode") = "zeros")
      .def("forward", [](nn::Conv2d& m, const Tensor& x) { return m.nn::Conv2d::forward(x); }, py::arg("input"))
      .def("reset_parameters", &nn::Conv2d::reset_parameters)
      .def_readonly("in_channels", &nn::Conv2d::in_channels)
      .def_readonly("out_channels", &nn::Conv2d::out_channels)
      .def_property_readonly("kernel_size", [](const nn::Conv2d& m) { return tuple_of(m.kernel_size); })
      .def_property_readonly("stride", [](const nn::Conv2d& m) { return tuple_of(m.stride); })
      .def_property_readonly("padding", [](const nn::Conv2d& m) -> py::object {
        return m.padding_string ? py::cast(*m.padding_string) : tuple_of(m.padding);
      })
      .def_property_readonly("dilation", [](const nn::Conv2d& m) { return tuple_of(m.dilation); })
      .def_readonly("groups", &nn::Conv2d::groups)
      .def_readonly("padding_mode", &nn::Conv2d::padding_mode);

  layer<nn::ConvTranspose2d>(nn, "ConvTranspose2d", "2-d transposed convolution layer (torch.nn.ConvTranspose2d).")
      .def(py::init(&make_conv_transpose2d<nn::ConvTranspose2d>, &make_conv_transpose2d<PyModule<nn::ConvTranspose2d>>),
           py::arg("in_channels"), py::arg("out_channels"), py::arg("kernel_size"), py::arg("stride") = 1,
           py::arg("padding") = 0, py::arg("output_padding") = 0, py::arg("groups") = 1, py::arg("bias") = true,
           py::arg("dilation") = 1, py::arg("padding_mode") = "zeros")
      .def("forward", [](nn::ConvTranspose2d& m, const Tensor& x, const std::optional<Shape>& output_size) {
        return output_size ? m.nn::ConvTranspose2d::forward(x, *output_size) : m.nn::ConvTranspose2d::forward(x);
      }, py::arg("input"), py::arg("output_size") = py::none())
      .def("reset_parameters", &nn::ConvTranspose2d::reset_parameters)
      .def_readonly("in_channels", &nn::ConvTranspose2d::in_channels)
      .def_readonly("out_channels", &nn::ConvTranspose2d::out_channels)
      .def_property_readonly("kernel_size", [](const nn::ConvTranspose2d& m) { return tuple_of(m.kernel_size); })
      .def_property_readonly("stride", [](const nn::ConvTranspose2d& m) { return tuple_of(m.stride); })
      .def_property_readonly("padding", [](const nn::ConvTranspose2d& m) { return tuple_of(m.padding); })
      .def_property_readonly("output_padding", [](const nn::ConvTranspose2d& m) { return tuple_of(m.output_padding); })
      .def_property_readonly("dilation", [](const nn::ConvTranspose2d& m) { return tuple_of(m.dilation); })
      .def_readonly("groups", &nn::ConvTranspose2d::groups);
}

template <class T>
T* make_max_pool(const py::object& k, const py::object& s, const py::object& p, const py::object& d, bool ri, bool cm) {
  std::optional<nn::PoolSize> stride;
  if (!s.is_none()) stride = pool_size(s, "stride");
  return new T(pool_size(k, "kernel_size"), stride, pool_size(p, "padding"), pool_size(d, "dilation"), ri, cm);
}

template <class T>
T* make_avg_pool(const py::object& k, const py::object& s, const py::object& p, bool cm, bool cip,
                 std::optional<int64_t> div) {
  std::optional<nn::PoolSize> stride;
  if (!s.is_none()) stride = pool_size(s, "stride");
  return new T(pool_size(k, "kernel_size"), stride, pool_size(p, "padding"), cm, cip, div);
}

template <class T>
T* make_adaptive(const py::object& size) {
  if (PyLong_Check(size.ptr())) return new T(size.cast<int64_t>());
  auto v = size.cast<std::vector<std::optional<int64_t>>>();
  if (v.size() == 1) v.push_back(v[0]);
  if (v.size() != 2) throw py::value_error("AdaptiveAvgPool2d: output_size must be an int or a pair");
  return new T(v[0], v[1]);
}

template <class T>
T* make_unpool(const py::object& k, const py::object& s, const py::object& p) {
  std::optional<nn::IntPair> stride;
  if (!s.is_none()) stride = pair_arg(s, "stride");
  return new T(pair_arg(k, "kernel_size"), stride, pair_arg(p, "padding"));
}

template <class T>
T* make_upsample(const py::object& size, const py::object& scale, const std::string& mode,
                 std::optional<bool> align_corners, std::optional<bool> recompute) {
  std::optional<Shape> sz;
  std::optional<std::vector<double>> sf;
  bool size_tuple = false, scale_tuple = false;
  if (!size.is_none()) {
    size_tuple = !PyLong_Check(size.ptr());
    sz = size_tuple ? size.cast<Shape>() : Shape{size.cast<int64_t>()};
  }
  if (!scale.is_none()) {
    scale_tuple = py::isinstance<py::sequence>(scale);
    sf = scale_tuple ? scale.cast<std::vector<double>>() : std::vector<double>{scale.cast<double>()};
  }
  auto* m = new T(sz, sf, mode, align_corners, recompute);
  m->size_is_tuple = size_tuple;
  m->scale_factor_is_tuple = scale_tuple;
  return m;
}

void bind_pooling(py::module_& nn) {
  layer<nn::MaxPool2d>(nn, "MaxPool2d", "2-d max pooling (torch.nn.MaxPool2d).")
      .def(py::init(&make_max_pool<nn::MaxPool2d>, &make_max_pool<PyModule<nn::MaxPool2d>>), py::arg("kernel_size"),
           py::arg("stride") = py::none(), py::arg("padding") = 0, py::arg("dilation") = 1,
           py::arg("return_indices") = false, py::arg("ceil_mode") = false)
      .def("forward", [](nn::MaxPool2d& m, const Tensor& x) -> py::object {
        if (m.return_indices) return py::cast(m.forward_with_indices(x));
        return py::cast(m.nn::MaxPool2d::forward(x));
      }, py::arg("input"))
      .def_property_readonly("kernel_size", [](const nn::MaxPool2d& m) { return pool_size_py(m.kernel_size); })
      .def_property_readonly("stride", [](const nn::MaxPool2d& m) { return pool_size_py(m.stride); })
      .def_property_readonly("padding", [](const nn::MaxPool2d& m) { return pool_size_py(m.padding); })
      .def_property_readonly("dilation", [](const nn::MaxPool2d& m) { return pool_size_py(m.dilation); })
      .def_readwrite("return_indices", &nn::MaxPool2d::return_indices)
      .def_readwrite("ceil_mode", &nn::MaxPool2d::ceil_mode);

  layer<nn::AvgPool2d>(nn, "AvgPool2d", "2-d average pooling (torch.nn.AvgPool2d).")
      .def(py::init(&make_avg_pool<nn::AvgPool2d>, &make_avg_pool<PyModule<nn::AvgPool2d>>), py::arg("kernel_size"),
           py::arg("stride") = py::none(), py::arg("padding") = 0, py::arg("ceil_mode") = false,
           py::arg("count_include_pad") = true, py::arg("divisor_override") = py::none())
      .def("forward", [](nn::AvgPool2d& m, const Tensor& x) { return m.nn::AvgPool2d::forward(x); }, py::arg("input"))
      .def_property_readonly("kernel_size", [](const nn::AvgPool2d& m) { return pool_size_py(m.kernel_size); })
      .def_property_readonly("stride", [](const nn::AvgPool2d& m) { return pool_size_py(m.stride); })
      .def_property_readonly("padding", [](const nn::AvgPool2d& m) { return pool_size_py(m.padding); })
      .def_readwrite("ceil_mode", &nn::AvgPool2d::ceil_mode)
      .def_readwrite("count_include_pad", &nn::AvgPool2d::count_include_pad)
      .def_readwrite("divisor_override", &nn::AvgPool2d::divisor_override);

  layer<nn::AdaptiveAvgPool2d>(nn, "AdaptiveAvgPool2d", "2-d adaptive average pooling (torch.nn.AdaptiveAvgPool2d).")
      .def(py::init(&make_adaptive<nn::AdaptiveAvgPool2d>, &make_adaptive<PyModule<nn::AdaptiveAvgPool2d>>),
           py::arg("output_size"))
      .def("forward", [](nn::AdaptiveAvgPool2d& m, const Tensor& x) { return m.nn::AdaptiveAvgPool2d::forward(x); },
           py::arg("input"))
      .def_property_readonly("output_size", [](const nn::AdaptiveAvgPool2d& m) -> py::object {
        if (!m.is_pair) return py::cast(m.output_size[0]);
        return py::make_tuple(m.output_size[0], m.output_size[1]);
      });

  layer<nn::MaxUnpool2d>(nn, "MaxUnpool2d", "Partial inverse of MaxPool2d (torch.nn.MaxUnpool2d).")
      .def(py::init(&make_unpool<nn::MaxUnpool2d>, &make_unpool<PyModule<nn::MaxUnpool2d>>), py::arg("kernel_size"),
           py::arg("stride") = py::none(), py::arg("padding") = 0)
      .def("forward", [](nn::MaxUnpool2d& m, const Tensor& x, const Tensor& indices, const std::optional<Shape>& os) {
        return m.forward(x, indices, os);
      }, py::arg("input"), py::arg("indices"), py::arg("output_size") = py::none())
      .def_property_readonly("kernel_size", [](const nn::MaxUnpool2d& m) { return tuple_of(m.kernel_size); })
      .def_property_readonly("stride", [](const nn::MaxUnpool2d& m) { return tuple_of(m.stride); })
      .def_property_readonly("padding", [](const nn::MaxUnpool2d& m) { return tuple_of(m.padding); });

  layer<nn::Upsample>(nn, "Upsample", "Resizes with interpolate (torch.nn.Upsample).")
      .def(py::init(&make_upsample<nn::Upsample>, &make_upsample<PyModule<nn::Upsample>>), py::arg("size") = py::none(),
           py::arg("scale_factor") = py::none(), py::arg("mode") = "nearest", py::arg("align_corners") = py::none(),
           py::arg("recompute_scale_factor") = py::none())
      .def("forward", [](nn::Upsample& m, const Tensor& x) { return m.nn::Upsample::forward(x); }, py::arg("input"))
      .def_readonly("mode", &nn::Upsample::mode)
      .def_readonly("align_corners", &nn::Upsample::align_corners);
}

void bind_norm(py::module_& nn) {
  py::class_<nn::BatchNorm, Module, std::shared_ptr<nn::BatchNorm>>(nn, "_BatchNorm", py::dynamic_attr())
      .def("forward", [](nn::BatchNorm& m, const Tensor& x) { return m.nn::BatchNorm::forward(x); }, py::arg("input"))
      .def("reset_running_stats", &nn::BatchNorm::reset_running_stats)
      .def("reset_parameters", &nn::BatchNorm::reset_parameters)
      .def_readonly("num_features", &nn::BatchNorm::num_features)
      .def_readwrite("eps", &nn::BatchNorm::eps)
      .def_readwrite("momentum", &nn::BatchNorm::momentum)
      .def_readonly("affine", &nn::BatchNorm::affine)
      .def_readonly("track_running_stats", &nn::BatchNorm::track_running_stats);
#define ADEPT_BN(T, DOC)                                                                                             \
  py::class_<nn::T, nn::BatchNorm, PyModule<nn::T>, std::shared_ptr<nn::T>>(nn, #T, py::dynamic_attr(), DOC)        \
      .def(ADEPT_MODULE_INIT(nn::T, (int64_t n, double eps, std::optional<double> momentum, bool affine, bool track), \
                             (n, eps, momentum, affine, track)),                                                   \
           py::arg("num_features"), py::arg("eps") = 1e-5, py::arg("momentum") = 0.1, py::arg("affine") = true,       \
           py::arg("track_running_stats") = true)
  ADEPT_BN(BatchNorm1d, "Batch normalization over (N, C) or (N, C, L) (torch.nn.BatchNorm1d).");
  ADEPT_BN(BatchNorm2d, "Batch normalization over (N, C, H, W) (torch.nn.BatchNorm2d).");
#undef ADEPT_BN

  layer<nn::LayerNorm>(nn, "LayerNorm", "Layer normalization (torch.nn.LayerNorm).")
      .def(py::init([](const py::object& shape, double eps, bool affine) {
             return new nn::LayerNorm(PyLong_Check(shape.ptr()) ? Shape{shape.cast<int64_t>()} : shape.cast<Shape>(), eps, affine);
           },
           [](const py::object& shape, double eps, bool affine) {
             return new PyModule<nn::LayerNorm>(PyLong_Check(shape.ptr()) ? Shape{shape.cast<int64_t>()} : shape.cast<Shape>(), eps, affine);
           }),
           py::arg("normalized_shape"), py::arg("eps") = 1e-5, py::arg("elementwise_affine") = true)
      .def("forward", [](nn::LayerNorm& m, const Tensor& x) { return m.nn::LayerNorm::forward(x); }, py::arg("input"))
      .def("reset_parameters", &nn::LayerNorm::reset_parameters)
      .def_property_readonly("normalized_shape", [](const nn::LayerNorm& m) { return py::tuple(py::cast(m.normalized_shape)); })
      .def_readwrite("eps", &nn::LayerNorm::eps)
      .def_readonly("elementwise_affine", &nn::LayerNorm::elementwise_affine);

  layer<nn::GroupNorm>(nn, "GroupNorm", "Group normalization (torch.nn.GroupNorm).")
      .def(ADEPT_MODULE_INIT(nn::GroupNorm, (int64_t g, int64_t c, double eps, bool affine), (g, c, eps, affine)),
           py::arg("num_groups"), py::arg("num_channels"), py::arg("eps") = 1e-5, py::arg("affine") = true)
      .def("forward", [](nn::GroupNorm& m, const Tensor& x) { return m.nn::GroupNorm::forward(x); }, py::arg("input"))
      .def("reset_parameters", &nn::GroupNorm::reset_parameters)
      .def_readonly("num_groups", &nn::GroupNorm::num_groups)
      .def_readonly("num_channels", &nn::GroupNorm::num_channels)
      .def_readwrite("eps", &nn::GroupNorm::eps)
      .def_readonly("affine", &nn::GroupNorm::affine);
}

void bind_losses(py::module_& nn) {
  py::class_<nn::Loss, Module, std::shared_ptr<nn::Loss>>(nn, "_Loss", py::dynamic_attr())
      .def("forward", [](nn::Loss& m, const Tensor& input, const Tensor& target) { return m.forward(input, target); },
           py::arg("input"), py::arg("target"))
      .def_readwrite("reduction", &nn::Loss::reduction);
  using OptT = std::optional<Tensor>;
  using Obj = py::object;
#define ADEPT_LOSS(T) py::class_<nn::T, nn::Loss, PyModule<nn::T>, std::shared_ptr<nn::T>>(nn, #T, py::dynamic_attr())
  ADEPT_LOSS(BCEWithLogitsLoss)
      .def(ADEPT_MODULE_INIT(nn::BCEWithLogitsLoss,
                             (const OptT& w, const Obj& sa, const Obj& rd, const std::string& r, const OptT& pw),
                             (opt_tensor(w), reduction_arg(sa, rd, r), opt_tensor(pw))),
           py::arg("weight") = py::none(), py::arg("size_average") = py::none(), py::arg("reduce") = py::none(),
           py::arg("reduction") = "mean", py::arg("pos_weight") = py::none());
  ADEPT_LOSS(BCELoss)
      .def(ADEPT_MODULE_INIT(nn::BCELoss, (const OptT& w, const Obj& sa, const Obj& rd, const std::string& r),
                             (opt_tensor(w), reduction_arg(sa, rd, r))),
           py::arg("weight") = py::none(), py::arg("size_average") = py::none(), py::arg("reduce") = py::none(),
           py::arg("reduction") = "mean");
  ADEPT_LOSS(CrossEntropyLoss)
      .def(ADEPT_MODULE_INIT(nn::CrossEntropyLoss,
                             (const OptT& w, const Obj& sa, int64_t ii, const Obj& rd, const std::string& r, double ls),
                             (opt_tensor(w), ii, reduction_arg(sa, rd, r), ls)),
           py::arg("weight") = py::none(), py::arg("size_average") = py::none(), py::arg("ignore_index") = -100,
           py::arg("reduce") = py::none(), py::arg("reduction") = "mean", py::arg("label_smoothing") = 0.0)
      .def_readwrite("ignore_index", &nn::CrossEntropyLoss::ignore_index)
      .def_readwrite("label_smoothing", &nn::CrossEntropyLoss::label_smoothing);
  ADEPT_LOSS(NLLLoss)
      .def(ADEPT_MODULE_INIT(nn::NLLLoss, (const OptT& w, const Obj& sa, int64_t ii, const Obj& rd, const std::string& r),
                             (opt_tensor(w), ii, reduction_arg(sa, rd, r))),
           py::arg("weight") = py::none(), py::arg("size_average") = py::none(), py::arg("ignore_index") = -100,
           py::arg("reduce") = py::none(), py::arg("reduction") = "mean")
      .def_readwrite("ignore_index", &nn::NLLLoss::ignore_index);
  ADEPT_LOSS(MSELoss)
      .def(ADEPT_MODULE_INIT(nn::MSELoss, (const Obj& sa, const Obj& rd, const std::string& r), (reduction_arg(sa, rd, r))),
           py::arg("size_average") = py::none(), py::arg("reduce") = py::none(), py::arg("reduction") = "mean");
  ADEPT_LOSS(L1Loss)
      .def(ADEPT_MODULE_INIT(nn::L1Loss, (const Obj& sa, const Obj& rd, const std::string& r), (reduction_arg(sa, rd, r))),
           py::arg("size_average") = py::none(), py::arg("reduce") = py::none(), py::arg("reduction") = "mean");
  ADEPT_LOSS(SmoothL1Loss)
      .def(ADEPT_MODULE_INIT(nn::SmoothL1Loss, (const Obj& sa, const Obj& rd, const std::string& r, double beta),
                             (reduction_arg(sa, rd, r), beta)),
           py::arg("size_average") = py::none(), py::arg("reduce") = py::none(), py::arg("reduction") = "mean",
           py::arg("beta") = 1.0)
      .def_readwrite("beta", &nn::SmoothL1Loss::beta);
#undef ADEPT_LOSS
}

}  // namespace

void init_nn_modules_layers(py::module_& m) {
  py::module_ nn = nn_submodule_of(m);
  bind_basic(nn);
  bind_activations(nn);
  bind_conv(nn);
  bind_pooling(nn);
  bind_norm(nn);
  bind_losses(nn);
}

}  // namespace adept::python
