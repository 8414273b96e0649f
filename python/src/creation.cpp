// Creation functions: adept.tensor from nested Python data, zeros/ones/full/empty/arange/linspace/
// eye and their *_like forms, and the random ones with the default generator and its state.
#include <cstring>

#include "common.h"

namespace adept::python {

namespace {

/// Shape and leaf values of nested sequences (torch.tensor's data argument).
struct NestedData {
  Shape shape;
  std::vector<Scalar> leaves;
};

Scalar leaf_scalar(const py::handle& h) {
  if (py::isinstance<Tensor>(h)) {
    const Tensor& t = h.cast<const Tensor&>();
    if (t.numel() != 1) throw py::value_error("only one element tensors can be converted to Python scalars");
    return t.item();
  }
  py::detail::make_caster<Scalar> c;
  if (!c.load(h, true)) {
    throw py::type_error(std::string("tensor(): could not infer dtype of ") + Py_TYPE(h.ptr())->tp_name);
  }
  return py::detail::cast_op<Scalar>(c);
}

bool is_sequence(const py::handle& h) {
  if (py::isinstance<py::str>(h) || py::isinstance<py::bytes>(h) || py::isinstance<Tensor>(h)) return false;
  if (is_ndarray(h)) return h.attr("ndim").cast<int>() > 0;
  return PySequence_Check(h.ptr()) != 0;
}

void walk(const py::handle& h, size_t depth, NestedData& out) {
  if (!is_sequence(h)) {
    if (depth != out.shape.size()) throw py::value_error("tensor(): found a number where a sequence was expected");
    out.leaves.push_back(leaf_scalar(h));
    return;
  }
  py::sequence seq = py::reinterpret_borrow<py::sequence>(h);
  const int64_t n = static_cast<int64_t>(py::len(seq));
  if (depth == out.shape.size()) {
    if (!out.leaves.empty()) throw py::value_error("tensor(): found a sequence where a number was expected");
    out.shape.resize(depth + 1, n);  // (not push_back: GCC 12 reports a false -Warray-bounds there)
  } else if (out.shape[depth] != n) {
    throw py::value_error(fmt::format("expected sequence of length {} at dim {} (got {})", out.shape[depth], depth, n));
  }
  for (int64_t i = 0; i < n; ++i) walk(seq[i], depth + 1, out);
}

/// Host buffer of `leaves` as bool, int64 or float64 (the widest kind present), then cast.
Tensor from_leaves(const NestedData& d, std::optional<Dtype> dtype) {
  Scalar::Kind kind = Scalar::Kind::Bool;
  for (const Scalar& s : d.leaves) kind = std::max(kind, s.kind());
  if (d.leaves.empty()) kind = Scalar::Kind::Float;
  Tensor t;
  if (kind == Scalar::Kind::Float) {
    std::vector<double> v;
    for (const Scalar& s : d.leaves) v.push_back(s.to_double());
    t = from_blob_copy(v.data(), d.shape, kFloat64);
  } else if (kind == Scalar::Kind::Int) {
    std::vector<int64_t> v;
    for (const Scalar& s : d.leaves) v.push_back(s.to_int64());
    t = from_blob_copy(v.data(), d.shape, kInt64);
  } else {
    std::vector<uint8_t> v;
    for (const Scalar& s : d.leaves) v.push_back(s.to_bool());
    t = from_blob_copy(v.data(), d.shape, kBool);
  }
  Dtype target = dtype.value_or(kind == Scalar::Kind::Float ? default_float_dtype() : t.dtype());
  return t.to(target);
}

}  // namespace

/// adept.tensor(data): always copies; data may be nested sequences of numbers, an ndarray or a Tensor.
Tensor tensor_from_data(const py::handle& data, std::optional<Dtype> dtype, std::optional<Device> device,
                        bool requires_grad) {
  Tensor t;
  if (py::isinstance<Tensor>(data)) {
    t = data.cast<const Tensor&>().detach().clone();
    if (dtype) t = t.to(*dtype);
  } else if (is_ndarray(data)) {
    // A fresh C-ordered copy owned by NumPy (also handles negative strides and 0-d arrays).
    py::object copy = py::module_::import("numpy").attr("array")(data, py::arg("order") = "C");
    t = py::module_::import("adept._C").attr("from_numpy")(copy).cast<Tensor>();
    if (dtype) t = t.to(*dtype);
  } else {
    NestedData nd;
    walk(data, 0, nd);
    t = from_leaves(nd, dtype);
  }
  if (device) t = t.to(*device);
  if (requires_grad) t.requires_grad_(true);
  return t;
}

namespace {

/// Binds `name(*size, dtype=None, device=None, requires_grad=False, size=None)`.
template <class F>
void def_sized(py::module_& m, const char* name, F make, const char* doc) {
  m.def(name, [make](const py::args& size, std::optional<Dtype> dtype, std::optional<Device> device,
                     bool requires_grad, const py::object& size_kw) {
    return make(sizes_arg(size, size_kw), make_options(dtype, device, requires_grad));
  }, py::arg("dtype") = py::none(), py::arg("device") = py::none(), py::arg("requires_grad") = false,
     py::arg("size") = py::none(), doc);
}

/// Binds the random `name(*size, generator=None, dtype=None, ...)`.
template <class F>
void def_random(py::module_& m, const char* name, F make, const char* doc) {
  m.def(name, [make](const py::args& size, Generator* g, std::optional<Dtype> dtype, std::optional<Device> device,
                     bool requires_grad, const py::object& size_kw) {
    return make(sizes_arg(size, size_kw), make_options(dtype, device, requires_grad), g);
  }, py::arg("generator") = py::none(), py::arg("dtype") = py::none(), py::arg("device") = py::none(),
     py::arg("requires_grad") = false, py::arg("size") = py::none(), doc);
}

/// Options of a *_like function: the input's dtype and device unless given.
TensorOptions like_options(const Tensor& t, std::optional<Dtype> dtype, std::optional<Device> device, bool rg) {
  return make_options(dtype.value_or(t.dtype()), device.value_or(t.device()), rg);
}

template <class F>
void def_like(py::module_& m, const char* name, F make) {
  m.def(name, [make](const Tensor& t, std::optional<Dtype> dtype, std::optional<Device> device, bool rg) {
    return make(t, like_options(t, dtype, device, rg));
  }, py::arg("input"), py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none(),
     py::arg("requires_grad") = false);
}

/// The generator state as a uint8 tensor of 16 bytes (seed, offset; little endian), as torch's ByteTensor.
Tensor state_tensor(const Generator& g) {
  Generator::State s = g.get_state();
  uint64_t words[2] = {s.seed, s.offset};
  return from_blob_copy(words, {16}, kUInt8);
}
void set_state_tensor(Generator& g, const Tensor& state) {
  ADEPT_CHECK(state.dtype() == kUInt8 && state.numel() == 16, ValueError,
              "set_rng_state: expected a uint8 tensor of 16 elements, got {} with {} elements",
              dtype_name(state.dtype()), state.numel());
  Tensor c = state.cpu().contiguous();
  uint64_t words[2];
  std::memcpy(words, c.data_ptr(), 16);
  g.set_state({words[0], words[1]});
}

}  // namespace

void init_creation(py::module_& m) {
  m.def("tensor", &tensor_from_data, py::arg("data"), py::kw_only(), py::arg("dtype") = py::none(),
        py::arg("device") = py::none(), py::arg("requires_grad") = false,
        "A new tensor holding a copy of `data` (nested sequences of numbers, an ndarray or a tensor).");
  m.def("as_tensor", [](const py::handle& data, std::optional<Dtype> dtype, std::optional<Device> device) {
    if (py::isinstance<Tensor>(data)) {
      const Tensor& t = data.cast<const Tensor&>();
      return t.to(device.value_or(t.device()), dtype.value_or(t.dtype()));
    }
    return tensor_from_data(data, dtype, device, false);
  }, py::arg("data"), py::arg("dtype") = py::none(), py::arg("device") = py::none());

  def_sized(m, "zeros", [](const Shape& s, const TensorOptions& o) { return zeros(s, o); }, "Tensor of zeros.");
  def_sized(m, "ones", [](const Shape& s, const TensorOptions& o) { return ones(s, o); }, "Tensor of ones.");
  def_sized(m, "empty", [](const Shape& s, const TensorOptions& o) { return empty(s, o); }, "Uninitialised tensor.");
  def_random(m, "rand", [](const Shape& s, const TensorOptions& o, Generator* g) { return rand(s, o, g); },
             "Uniform samples on [0, 1).");
  def_random(m, "randn", [](const Shape& s, const TensorOptions& o, Generator* g) { return randn(s, o, g); },
             "Standard normal samples.");
  m.def("full", [](const Shape& size, const Scalar& v, std::optional<Dtype> dtype, std::optional<Device> device, bool rg) {
    return full(size, v, make_options(dtype, device, rg));
  }, py::arg("size"), py::arg("fill_value"), py::kw_only(), py::arg("dtype") = py::none(),
     py::arg("device") = py::none(), py::arg("requires_grad") = false);
  m.def("empty_strided", [](const Shape& size, const Shape& stride, std::optional<Dtype> dtype,
                            std::optional<Device> device, bool rg) {
    return empty_strided(size, stride, make_options(dtype, device, rg));
  }, py::arg("size"), py::arg("stride"), py::kw_only(), py::arg("dtype") = py::none(),
     py::arg("device") = py::none(), py::arg("requires_grad") = false);

  def_like(m, "zeros_like", [](const Tensor& t, const TensorOptions& o) { return zeros_like(t, o); });
  def_like(m, "ones_like", [](const Tensor& t, const TensorOptions& o) { return ones_like(t, o); });
  def_like(m, "empty_like", [](const Tensor& t, const TensorOptions& o) { return empty_like(t, o); });
  def_like(m, "rand_like", [](const Tensor& t, const TensorOptions& o) { return rand(t.sizes(), o); });
  def_like(m, "randn_like", [](const Tensor& t, const TensorOptions& o) { return randn(t.sizes(), o); });
  m.def("full_like", [](const Tensor& t, const Scalar& v, std::optional<Dtype> dtype, std::optional<Device> device, bool rg) {
    return full_like(t, v, like_options(t, dtype, device, rg));
  }, py::arg("input"), py::arg("fill_value"), py::kw_only(), py::arg("dtype") = py::none(),
     py::arg("device") = py::none(), py::arg("requires_grad") = false);

  m.def("arange", [](const Scalar& a, std::optional<Scalar> b, const Scalar& step, std::optional<Dtype> dtype,
                     std::optional<Device> device, bool rg) {
    TensorOptions o = make_options(dtype, device, rg);
    return b ? arange(a, *b, step, o) : arange(a, o);
  }, py::arg("start"), py::arg("end") = py::none(), py::arg("step") = 1, py::kw_only(), py::arg("dtype") = py::none(),
     py::arg("device") = py::none(), py::arg("requires_grad") = false,
     "arange(end) or arange(start, end, step): values in [start, end) spaced by step.");
  m.def("linspace", [](double start, double end, int64_t steps, std::optional<Dtype> dtype, std::optional<Device> device, bool rg) {
    return linspace(start, end, steps, make_options(dtype, device, rg));
  }, py::arg("start"), py::arg("end"), py::arg("steps"), py::kw_only(), py::arg("dtype") = py::none(),
     py::arg("device") = py::none(), py::arg("requires_grad") = false);
  m.def("eye", [](int64_t n, std::optional<int64_t> mm, std::optional<Dtype> dtype, std::optional<Device> device, bool rg) {
    return eye(n, mm, make_options(dtype, device, rg));
  }, py::arg("n"), py::arg("m") = py::none(), py::kw_only(), py::arg("dtype") = py::none(),
     py::arg("device") = py::none(), py::arg("requires_grad") = false);
  m.def("scalar_tensor", [](const Scalar& s, std::optional<Dtype> dtype, std::optional<Device> device, bool rg) {
    return scalar_tensor(s, make_options(dtype.value_or(default_float_dtype()), device, rg));
  }, py::arg("s"), py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none(),
     py::arg("requires_grad") = false);

  // ---- random ----
  py::class_<Generator>(m, "Generator", "Philox random number generator (torch.Generator).")
      .def(py::init([](const std::optional<Device>&) { return new Generator(); }), py::arg("device") = py::none())
      .def("manual_seed", [](py::object self, uint64_t seed) { self.cast<Generator&>().manual_seed(seed); return self; },
           py::arg("seed"))
      .def("initial_seed", &Generator::initial_seed)
      .def("seed", &Generator::seed)
      .def("get_state", &state_tensor)
      .def("set_state", [](py::object self, const Tensor& s) { set_state_tensor(self.cast<Generator&>(), s); return self; },
           py::arg("new_state"));
  m.attr("default_generator") = py::cast(&default_generator(), py::return_value_policy::reference);
  m.def("manual_seed", [](uint64_t seed) {
    manual_seed(seed);
    return py::module_::import("adept._C").attr("default_generator");
  }, py::arg("seed"), "Seeds the default generator; returns it.");
  m.def("initial_seed", [] { return default_generator().initial_seed(); });
  m.def("get_rng_state", [] { return state_tensor(default_generator()); },
        "State of the default generator as a uint8 tensor (restore with set_rng_state).");
  m.def("set_rng_state", [](const Tensor& s) { set_state_tensor(default_generator(), s); }, py::arg("new_state"));
  m.def("randint", [](const py::args& args, Generator* g, std::optional<Dtype> dtype, std::optional<Device> device,
                      bool rg, const py::object& size_kw) {
    // randint(high, size) or randint(low, high, size); size may also be a keyword.
    std::vector<py::handle> a(args.begin(), args.end());
    if (!size_kw.is_none()) a.push_back(size_kw);
    if (a.size() != 2 && a.size() != 3) throw py::type_error("randint() expects (high, size) or (low, high, size)");
    int64_t low = a.size() == 3 ? a[0].cast<int64_t>() : 0;
    int64_t high = a[a.size() - 2].cast<int64_t>();
    Shape size = a.back().cast<Shape>();
    return randint(low, high, size, make_options(dtype, device, rg), g);
  }, py::arg("generator") = py::none(), py::arg("dtype") = py::none(), py::arg("device") = py::none(),
     py::arg("requires_grad") = false, py::arg("size") = py::none(),
     "Integers uniform on [low, high): randint(high, size) or randint(low, high, size).");
  m.def("randperm", [](int64_t n, Generator* g, std::optional<Dtype> dtype, std::optional<Device> device, bool rg) {
    return randperm(n, make_options(dtype, device, rg), g);
  }, py::arg("n"), py::kw_only(), py::arg("generator") = py::none(), py::arg("dtype") = py::none(),
     py::arg("device") = py::none(), py::arg("requires_grad") = false);
}

}  // namespace adept::python
