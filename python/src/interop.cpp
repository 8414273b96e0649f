// NumPy and DLPack interop (zero-copy both ways for CPU tensors), the buffer protocol, and
// pickling/deepcopy of tensors.
#include <cstring>

#include <dlpack/dlpack.h>
#include <pybind11/numpy.h>

#include "common.h"

namespace adept::python {

namespace {

// DLPack 0.6 (Debian's header) has no bool code; newer versions use 6 for kDLBool, so we do too.
constexpr uint8_t kDLBoolCode = 6;

/// A tensor viewing external memory: `data` is element 0, strides are in elements (any sign);
/// `release` runs when the last view of the storage dies.
Tensor wrap_external(char* data, const Shape& sizes, const Shape& strides, Dtype dtype, Storage::Deleter release) {
  const int64_t isz = static_cast<int64_t>(element_size(dtype));
  int64_t lo = 0, hi = 0, numel = 1;
  for (size_t d = 0; d < sizes.size(); ++d) {
    numel *= sizes[d];
    const int64_t span = (sizes[d] - 1) * strides[d];
    (span < 0 ? lo : hi) += span;
  }
  auto impl = std::make_shared<TensorImpl>();
  const size_t nbytes = numel == 0 ? 0 : static_cast<size_t>((hi - lo + 1) * isz);
  impl->storage = Storage::wrap(data + lo * isz, nbytes, kCPU, std::move(release));
  impl->sizes = sizes;
  impl->strides = strides;
  impl->storage_offset = -lo;
  impl->dtype = dtype;
  return Tensor(std::move(impl));
}

/// A deleter that drops a reference to a Python object (taking the GIL; no-op after interpreter exit).
Storage::Deleter keep_alive(const py::handle& owner) {
  PyObject* o = owner.ptr();
  Py_INCREF(o);
  return [o](void*) {
    if (!Py_IsInitialized()) return;
    py::gil_scoped_acquire gil;
    Py_DECREF(o);
  };
}

// ---- NumPy ----

const char* numpy_name(Dtype d) {
  switch (d) {
    case kBool: return "bool";
    case kUInt8: return "uint8";
    case kInt32: return "int32";
    case kInt64: return "int64";
    case kFloat16: return "float16";
    case kFloat32: return "float32";
    case kFloat64: return "float64";
    default: throw adept::DtypeError(fmt::format("Got unsupported ScalarType {}: NumPy has no {} dtype",
                                                 dtype_name(d), dtype_name(d)));
  }
}

Dtype from_numpy_dtype(const py::dtype& dt) {
  // Through the Python attributes: pybind11 before 2.12 reads kind and itemsize from NumPy 1's
  // descriptor struct, whose layout NumPy 2 changed (every float32 array read as unsupported).
  const char kind = dt.attr("kind").cast<std::string>()[0];
  const auto size = dt.attr("itemsize").cast<py::ssize_t>();
  const char order = dt.attr("byteorder").cast<std::string>()[0];
  if (order == '>') throw adept::DtypeError("from_numpy: big-endian arrays are not supported");
  if (kind == 'b') return kBool;
  if (kind == 'u' && size == 1) return kUInt8;
  if (kind == 'i' && size == 4) return kInt32;
  if (kind == 'i' && size == 8) return kInt64;
  if (kind == 'f' && size == 2) return kFloat16;
  if (kind == 'f' && size == 4) return kFloat32;
  if (kind == 'f' && size == 8) return kFloat64;
  throw adept::DtypeError(fmt::format(
      "can't convert np.ndarray of type numpy.{}. The only supported types are: float64, float32, float16, "
      "int64, int32, uint8, and bool.", dt.attr("name").cast<std::string>()));
}

Tensor from_numpy(const py::object& obj) {
  if (!is_ndarray(obj)) {
    throw py::type_error(std::string("expected np.ndarray (got ") + Py_TYPE(obj.ptr())->tp_name + ")");
  }
  py::array a = py::reinterpret_borrow<py::array>(obj);
  Dtype dtype = from_numpy_dtype(a.dtype());
  const auto isz = static_cast<py::ssize_t>(element_size(dtype));
  Shape sizes, strides;
  for (py::ssize_t d = 0; d < a.ndim(); ++d) {
    sizes.push_back(a.shape(d));
    const py::ssize_t st = a.strides(d);
    if (st < 0) {
      throw adept::ValueError("At least one stride in the given numpy array is negative, and tensors with negative "
                              "strides are not currently supported. (You can probably work around this by making "
                              "a copy of your array with array.copy().)");
    }
    if (st % isz != 0) throw adept::ValueError("given numpy array strides not a multiple of the element byte size");
    strides.push_back(st / isz);
  }
  return wrap_external(static_cast<char*>(const_cast<void*>(a.data())), sizes, strides, dtype, keep_alive(a));
}

py::array to_numpy(const py::object& self, bool force) {
  Tensor t = self.cast<Tensor>();
  py::object owner = self;
  if (force) {
    t = t.detach().cpu();
    owner = py::cast(t);
  }
  if (t.requires_grad()) {
    throw adept::Error("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.");
  }
  if (!t.device().is_cpu()) {
    throw py::type_error("can't convert " + t.device().str() + " device type tensor to numpy. Use Tensor.cpu() "
                         "to copy the tensor to host memory first.");
  }
  std::vector<py::ssize_t> shape(t.sizes().begin(), t.sizes().end()), strides;
  for (int64_t s : t.strides()) strides.push_back(s * static_cast<py::ssize_t>(t.element_size()));
  return py::array(py::dtype(numpy_name(t.dtype())), shape, strides, t.data_ptr(), owner);
}

// ---- DLPack ----

struct DLContext {
  Tensor tensor;
  Shape shape, strides;
  DLManagedTensor managed{};
};

DLDataType dl_dtype(Dtype d) {
  switch (d) {
    case kBool: return {kDLBoolCode, 8, 1};
    case kUInt8: return {kDLUInt, 8, 1};
    case kInt32: return {kDLInt, 32, 1};
    case kInt64: return {kDLInt, 64, 1};
    case kFloat16: return {kDLFloat, 16, 1};
    case kBFloat16: return {kDLBfloat, 16, 1};
    case kFloat32: return {kDLFloat, 32, 1};
    case kFloat64: return {kDLFloat, 64, 1};
  }
  throw adept::DtypeError("to_dlpack: unknown dtype");
}

Dtype from_dl_dtype(const DLDataType& t) {
  ADEPT_CHECK(t.lanes == 1, DtypeError, "from_dlpack: vector dtypes (lanes={}) are not supported", t.lanes);
  if (t.code == kDLBoolCode && t.bits == 8) return kBool;
  if (t.code == kDLUInt && t.bits == 8) return kUInt8;
  if (t.code == kDLInt && t.bits == 32) return kInt32;
  if (t.code == kDLInt && t.bits == 64) return kInt64;
  if (t.code == kDLFloat && t.bits == 16) return kFloat16;
  if (t.code == kDLFloat && t.bits == 32) return kFloat32;
  if (t.code == kDLFloat && t.bits == 64) return kFloat64;
  if (t.code == kDLBfloat && t.bits == 16) return kBFloat16;
  throw adept::DtypeError(fmt::format("from_dlpack: unsupported DLPack dtype (code {}, bits {})", t.code, t.bits));
}

py::capsule to_dlpack(const Tensor& t) {
  ADEPT_CHECK(t.device().is_cpu(), NotImplementedForDevice, "__dlpack__: only CPU tensors can be exported, got {}",
              t.device().str());
  ADEPT_CHECK(!t.requires_grad(), Error,
              "Can't export tensors that require gradient, use tensor.detach()");
  auto* ctx = new DLContext{t, t.sizes(), t.strides()};
  DLTensor& dl = ctx->managed.dl_tensor;
  dl.data = t.data_ptr();
  dl.device = {kDLCPU, 0};
  dl.ndim = static_cast<int32_t>(t.dim());
  dl.dtype = dl_dtype(t.dtype());
  dl.shape = ctx->shape.data();
  dl.strides = ctx->strides.data();
  dl.byte_offset = 0;
  ctx->managed.manager_ctx = ctx;
  ctx->managed.deleter = [](DLManagedTensor* m) { delete static_cast<DLContext*>(m->manager_ctx); };
  // A capsule nobody consumed still owns the tensor; a consumer renames it to "used_dltensor".
  PyObject* cap = PyCapsule_New(&ctx->managed, "dltensor", [](PyObject* c) {
    if (PyCapsule_IsValid(c, "dltensor")) {
      auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(c, "dltensor"));
      m->deleter(m);
    }
  });
  if (!cap) {
    delete ctx;
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(cap);
}

Tensor from_dlpack(const py::object& ext) {
  py::object cap = py::hasattr(ext, "__dlpack__") ? ext.attr("__dlpack__")() : ext;
  if (!PyCapsule_IsValid(cap.ptr(), "dltensor")) {
    throw py::type_error("from_dlpack: expected an object with __dlpack__ or an unconsumed 'dltensor' capsule");
  }
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap.ptr(), "dltensor"));
  const DLTensor& dl = m->dl_tensor;
  if (dl.device.device_type != kDLCPU) {
    throw adept::DeviceError(fmt::format("from_dlpack: unsupported device type {} (only CPU)",
                                         static_cast<int>(dl.device.device_type)));
  }
  Dtype dtype = from_dl_dtype(dl.dtype);
  Shape sizes(dl.shape, dl.shape + dl.ndim), strides(dl.ndim);
  if (dl.strides) {
    strides.assign(dl.strides, dl.strides + dl.ndim);
  } else {
    int64_t s = 1;
    for (int d = dl.ndim - 1; d >= 0; --d) { strides[d] = s; s *= sizes[d]; }
  }
  char* data = static_cast<char*>(dl.data) + dl.byte_offset;
  PyCapsule_SetName(cap.ptr(), "used_dltensor");
  return wrap_external(data, sizes, strides, dtype, [m](void*) { if (m->deleter) m->deleter(m); });
}

// ---- pickling ----

py::tuple get_state(const Tensor& t) {
  Tensor c = t.detach().cpu().contiguous();
  py::bytes data(static_cast<const char*>(c.data_ptr()), c.numel() * c.element_size());
  return py::make_tuple(dtype_name(t.dtype()), py::cast(t.sizes()), data, t.requires_grad(), t.device().str());
}

Tensor set_state(const py::tuple& st) {
  if (st.size() != 5) throw py::value_error("Tensor.__setstate__: invalid state");
  Dtype dtype = dtype_from_string(st[0].cast<std::string>());
  Shape shape = st[1].cast<Shape>();
  std::string data = st[2].cast<std::string>();
  Tensor t = from_blob_copy(data.data(), shape, dtype);
  Device dev(st[4].cast<std::string>());
  if (!dev.is_cpu()) t = t.to(dev);
  if (st[3].cast<bool>()) t.requires_grad_(true);
  return t;
}

}  // namespace

void init_interop(py::module_& m, TensorClass& cls) {
  cls.def_buffer([](Tensor& t) -> py::buffer_info {
    if (!t.device().is_cpu()) throw py::buffer_error("buffer protocol: only CPU tensors export a buffer");
    if (t.dtype() == kBFloat16) throw py::buffer_error("buffer protocol: bfloat16 has no buffer format");
    static const char* formats[] = {"?", "B", "i", "q", "e", "", "f", "d"};
    std::vector<py::ssize_t> shape(t.sizes().begin(), t.sizes().end()), strides;
    for (int64_t s : t.strides()) strides.push_back(s * static_cast<py::ssize_t>(t.element_size()));
    return py::buffer_info(t.data_ptr(), static_cast<py::ssize_t>(t.element_size()),
                           formats[static_cast<int>(t.dtype())], t.dim(), shape, strides);
  });
  cls.def("numpy", &to_numpy, py::kw_only(), py::arg("force") = false,
          "A NumPy array sharing memory with this CPU tensor (float16 -> float16; bfloat16 unsupported).");
  cls.def("__array__", [](const py::object& self, const py::object& dtype) {
    py::array a = to_numpy(self, false);
    return dtype.is_none() ? py::object(a) : a.attr("astype")(dtype, py::arg("copy") = false);
  }, py::arg("dtype") = py::none());
  m.def("from_numpy", &from_numpy, py::arg("ndarray"), "A tensor sharing memory with a NumPy array.");

  cls.def("__dlpack__", [](const Tensor& t, const py::object&) { return to_dlpack(t); }, py::arg("stream") = py::none());
  cls.def("__dlpack_device__", [](const Tensor& t) {
    return py::make_tuple(static_cast<int>(t.device().is_cpu() ? kDLCPU : kDLVulkan),
                          t.device().is_cpu() ? 0 : std::max(0, t.device().index));
  });
  m.def("from_dlpack", &from_dlpack, py::arg("ext_tensor"),
        "A tensor sharing memory with a DLPack-exporting object (or a 'dltensor' capsule).");
  m.def("to_dlpack", &to_dlpack, py::arg("tensor"));

  cls.def(py::pickle(&get_state, &set_state));
  cls.def("__deepcopy__", [](const Tensor& t, py::dict memo) {
    if (!t.is_leaf()) {
      throw adept::Error("Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol "
                         "at the moment");
    }
    Tensor c = t.detach().clone();
    if (t.requires_grad()) c.requires_grad_(true);
    if (t.grad().defined()) c.set_grad(t.grad().detach().clone());
    return c;
  }, py::arg("memo"));
}

}  // namespace adept::python
