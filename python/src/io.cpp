// Bindings of the checkpoint files (adept::io) into the submodule `adept._C._io`; the Pythonic
// API (dicts, os.PathLike, adept.save/load) is python/adept/io.py.
#include "adept/io/safetensors.h"
#include "common.h"

namespace adept::python {

void init_io(py::module_& m) {
  py::module_ io = m.def_submodule("_io", "Checkpoint files (safetensors); use adept.io.");
  io.def("save_file", &io::save_file, py::arg("tensors"), py::arg("filename"), py::arg("metadata"),
         py::call_guard<py::gil_scoped_release>(),
         "Writes [(name, tensor), ...] and {str: str} metadata to a safetensors file, atomically.");
  io.def(
      "load_file",
      [](const std::string& filename, const py::handle& device) {
        Device dev = device_arg(device);
        io::SafetensorsFile f;
        {
          py::gil_scoped_release nogil;
          f = io::load_file(filename, dev);
        }
        return py::make_tuple(f.tensors, f.metadata);
      },
      py::arg("filename"), py::arg("device"),
      "Reads a safetensors file: ([(name, tensor), ...] in file order, {str: str} metadata).");
  io.def("load_metadata", &io::load_metadata, py::arg("filename"), py::call_guard<py::gil_scoped_release>(),
         "The \"__metadata__\" of a safetensors file (its header is validated, its data not read).");
}

}  // namespace adept::python
