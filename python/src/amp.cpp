// adept._C._amp: autocast state (adept/ops/autocast.h) and GradScaler (adept/optim/grad_scaler.h); the package
// adept.amp wraps them with torch.autocast's context manager and torch.amp.GradScaler's API.
#include "adept/ops/autocast.h"
#include "adept/optim/grad_scaler.h"
#include "common.h"

namespace adept::python {

namespace {

DeviceType autocast_type(const std::string& device_type) {
  ADEPT_CHECK(device_type == "cpu" || device_type == "vulkan", Error,
              "autocast: unsupported device_type '{}' (expected 'cpu' or 'vulkan')", device_type);
  return device_type == "cpu" ? DeviceType::CPU : DeviceType::Vulkan;
}

}  // namespace

void init_amp(py::module_& parent) {
  using optim::GradScaler;
  py::module_ m = parent.def_submodule("_amp", "Autocast state and GradScaler (C++ side; use adept.amp).");
  m.def(
      "is_autocast_enabled", [](const std::string& t) { return is_autocast_enabled(autocast_type(t)); },
      py::arg("device_type"));
  m.def(
      "get_autocast_dtype", [](const std::string& t) { return get_autocast_dtype(autocast_type(t)); },
      py::arg("device_type"));
  m.def(
      "set_autocast_enabled", [](const std::string& t, bool e) { set_autocast_enabled(autocast_type(t), e); },
      py::arg("device_type"), py::arg("enabled"));
  m.def(
      "set_autocast_dtype", [](const std::string& t, Dtype d) { set_autocast_dtype(autocast_type(t), d); },
      py::arg("device_type"), py::arg("dtype"));

  py::class_<GradScaler>(m, "GradScaler")
      .def(py::init([](double init_scale, double growth_factor, double backoff_factor, int64_t growth_interval,
                       bool enabled) {
             return GradScaler({init_scale, growth_factor, backoff_factor, growth_interval, enabled});
           }),
           py::arg("init_scale"), py::arg("growth_factor"), py::arg("backoff_factor"), py::arg("growth_interval"),
           py::arg("enabled"))
      .def("scale", &GradScaler::scale, py::arg("outputs"))
      .def("unscale_", &GradScaler::unscale_, py::arg("optimizer"))
      .def("step", &GradScaler::step, py::arg("optimizer"))
      .def("_step_begin", &GradScaler::step_begin, py::arg("optimizer"))
      .def("_step_end", &GradScaler::step_end, py::arg("optimizer"))
      .def("update", &GradScaler::update, py::arg("new_scale") = py::none())
      .def("get_scale", &GradScaler::get_scale)
      .def("get_growth_factor", &GradScaler::get_growth_factor)
      .def("set_growth_factor", &GradScaler::set_growth_factor, py::arg("new_factor"))
      .def("get_backoff_factor", &GradScaler::get_backoff_factor)
      .def("set_backoff_factor", &GradScaler::set_backoff_factor, py::arg("new_factor"))
      .def("get_growth_interval", &GradScaler::get_growth_interval)
      .def("set_growth_interval", &GradScaler::set_growth_interval, py::arg("new_interval"))
      .def("get_growth_tracker", &GradScaler::get_growth_tracker)
      .def("is_enabled", &GradScaler::is_enabled)
      .def("state_dict",
           [](const GradScaler& s) {
             py::dict d;
             for (const auto& [k, v] : s.state_dict()) {
               if (const auto* i = std::get_if<int64_t>(&v))
                 d[py::str(k)] = *i;
               else
                 d[py::str(k)] = std::get<double>(v);
             }
             return d;
           })
      .def(
          "load_state_dict",
          [](GradScaler& s, const py::dict& d) {
            optim::Options o;
            for (const auto& [k, v] : d) o[py::str(k)] = v.cast<double>();
            s.load_state_dict(o);
          },
          py::arg("state_dict"));
}

}  // namespace adept::python
