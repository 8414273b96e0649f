// adept.profiler.record_function: labels for GPU profiles (torch.profiler.record_function), as a context
// manager around adept/profiler.h's RecordFunction.
#include <memory>
#include <optional>

#include "adept/profiler.h"
#include "common.h"

namespace adept::python {

namespace {
// The label is pushed on __enter__ and popped on __exit__ (RecordFunction's lifetime).
class RecordFunctionContext {
 public:
  explicit RecordFunctionContext(std::string name) : name_(std::move(name)) {}
  void enter() {
    ADEPT_CHECK(!active_, ValueError, "record_function('{}'): already entered", name_);
    active_.emplace(name_);
  }
  void exit() { active_.reset(); }

 private:
  std::string name_;
  std::optional<profiler::RecordFunction> active_;
};
}  // namespace

void init_profiler(py::module_& parent) {
  py::module_ m = parent.def_submodule("profiler", "Labels for GPU profiles (torch.profiler's record_function).");
  py::class_<RecordFunctionContext>(m, "record_function",
                                    "Context manager: work recorded inside is attributed to `name` in "
                                    "adept.vulkan.profiler_stop()'s rows (nested labels join with '/'); "
                                    "autograd nodes created inside run their backward under it too.")
      .def(py::init<std::string>(), py::arg("name"))
      .def("__enter__", [](RecordFunctionContext& r) -> RecordFunctionContext& { r.enter(); return r; },
           py::return_value_policy::reference)
      .def("__exit__", [](RecordFunctionContext& r, py::args) { r.exit(); return false; });
  m.def("current_scope", [] { return profiler::current_scope(); },
        "The calling thread's label path ('' outside every record_function).");
}

}  // namespace adept::python
