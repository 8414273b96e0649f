// Maps Adept's C++ exceptions to Python: each becomes `adept.<Name>`, a subclass of adept.Error
// (itself a RuntimeError) and of the builtin type PyTorch raises for that kind of error.
#include "common.h"

namespace adept::python {

namespace {
// Exception classes, created once at import; the interpreter owns them through the module.
PyObject* g_error = nullptr;
PyObject* g_shape = nullptr;
PyObject* g_dtype = nullptr;
PyObject* g_device = nullptr;
PyObject* g_index = nullptr;
PyObject* g_value = nullptr;
PyObject* g_oom = nullptr;
PyObject* g_notimpl = nullptr;
PyObject* g_autograd = nullptr;
PyObject* g_io = nullptr;

PyObject* make(py::module_& m, const char* name, std::initializer_list<PyObject*> bases, const char* doc) {
  py::tuple b(bases.size());
  size_t i = 0;
  for (PyObject* base : bases) b[i++] = py::reinterpret_borrow<py::object>(base);
  std::string qual = std::string("adept.") + name;
  PyObject* cls = PyErr_NewExceptionWithDoc(qual.c_str(), doc, b.ptr(), nullptr);
  if (!cls) throw py::error_already_set();
  m.attr(name) = py::reinterpret_borrow<py::object>(cls);
  return cls;
}
}  // namespace

void init_errors(py::module_& m) {
  g_error = make(m, "Error", {PyExc_RuntimeError}, "Base of all Adept errors.");
  g_shape = make(m, "ShapeError", {g_error}, "Incompatible or invalid shapes.");
  g_dtype = make(m, "DtypeError", {g_error, PyExc_TypeError}, "Unsupported or mismatched dtype.");
  g_device = make(m, "DeviceError", {g_error}, "Tensors on different devices or an unknown device.");
  g_index = make(m, "IndexError", {g_error, PyExc_IndexError}, "Index or dimension out of range.");
  g_value = make(m, "ValueError", {g_error, PyExc_ValueError}, "Invalid argument value.");
  g_oom = make(m, "OutOfMemoryError", {g_error, PyExc_MemoryError}, "Allocation failure.");
  g_notimpl = make(m, "NotImplementedForDevice", {g_error, PyExc_NotImplementedError},
                   "The op has no kernel for the tensor's device.");
  g_autograd = make(m, "AutogradError", {g_error}, "Autograd misuse.");
  g_io = make(m, "IOError", {g_error, PyExc_OSError}, "A file cannot be read or written, or is malformed.");

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ShapeError& e) { PyErr_SetString(g_shape, e.what());
    } catch (const DtypeError& e) { PyErr_SetString(g_dtype, e.what());
    } catch (const DeviceError& e) { PyErr_SetString(g_device, e.what());
    } catch (const adept::IndexError& e) { PyErr_SetString(g_index, e.what());
    } catch (const adept::ValueError& e) { PyErr_SetString(g_value, e.what());
    } catch (const OutOfMemoryError& e) { PyErr_SetString(g_oom, e.what());
    } catch (const NotImplementedForDevice& e) { PyErr_SetString(g_notimpl, e.what());
    } catch (const AutogradError& e) { PyErr_SetString(g_autograd, e.what());
    } catch (const adept::IOError& e) { PyErr_SetString(g_io, e.what());
    } catch (const adept::Error& e) { PyErr_SetString(g_error, e.what());
    }
  });
}

}  // namespace adept::python
