// Bindings of the data pipeline: the C++ Dataset base (for datasets written in C++, e.g.
// adept.vision.DetectionDataset), samplers, and the worker pool that runs Python datasets in
// worker processes. The Python DataLoader (python/adept/data/) drives the pool.
#include <Python.h>

#include <cstring>

#include "adept/data.h"
#include "common.h"
#include "data/worker_pool.h"

namespace adept::python {

py::dict tensor_dict_to_py(const data::TensorDict& d) {
  py::dict out;
  for (const auto& [k, t] : d) out[py::str(k)] = t;
  return out;
}

data::TensorDict tensor_dict_from_py(const py::handle& obj) {
  data::TensorDict out;
  for (auto [k, v] : py::cast<py::dict>(obj)) out.set(py::cast<std::string>(k), py::cast<Tensor>(v));
  return out;
}

namespace {

// The pending Python error as a WorkerFailure: its qualified type name, "Traceback ...\n" text and
// the pickled exception type (so the main process can raise the same type).
data::detail::WorkerFailure failure_from(py::error_already_set& e) {
  py::module_ tb = py::module_::import("traceback");
  std::string text = py::str("").attr("join")(tb.attr("format_exception")(e.type(), e.value(), e.trace())).cast<std::string>();
  std::string type = py::str(e.type().attr("__qualname__")).cast<std::string>();
  std::string payload;
  try {
    payload = py::module_::import("pickle").attr("dumps")(e.type()).cast<std::string>();
  } catch (py::error_already_set&) {  // a local class cannot be pickled: the message still says it all
  }
  return {type, text, payload};
}

data::detail::ProcessHooks python_hooks() {
  data::detail::ProcessHooks h;
  h.before_fork = [] { PyOS_BeforeFork(); };
  h.after_fork_parent = [] { PyOS_AfterFork_Parent(); };
  h.after_fork_child = [] { PyOS_AfterFork_Child(); };
  h.check_interrupt = [] {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  };
  return h;
}

py::object& worker_error_type() {
  static py::object type;
  return type;
}

// A worker pool whose produce function is a Python callable (indices, epoch, worker_id) -> dict.
// `indices` is a list of ints, or the bytes the index source gave for keys that are not int64.
class PyWorkerPool {
 public:
  PyWorkerPool(py::function produce, int num_workers, int prefetch_factor, double timeout, uint64_t seed,
               py::object worker_init_fn) {
    data::detail::WorkerPoolOptions o;
    o.num_workers = num_workers;
    o.prefetch_factor = prefetch_factor;
    o.timeout = timeout;
    o.seed = seed;
    o.hooks = python_hooks();
    if (!worker_init_fn.is_none())
      o.worker_init = [fn = worker_init_fn](int id) {
        py::gil_scoped_acquire gil;
        try {
          fn(id);
        } catch (py::error_already_set& e) {
          throw failure_from(e);
        }
      };
    // Forks here, with the GIL held by this thread (PyOS_BeforeFork takes the import lock too).
    pool_ = std::make_unique<data::detail::WorkerPool>(
        [produce](const data::detail::Task& task, int64_t epoch, int worker) {
          py::gil_scoped_acquire gil;
          try {
            py::object indices = task.keys.empty() ? py::cast(task.indices) : py::object(py::bytes(task.keys));
            return tensor_dict_from_py(produce(indices, epoch, worker));
          } catch (py::error_already_set& e) {
            throw failure_from(e);
          }
        },
        o);
  }

  void start_pass(py::iterator batches, int64_t epoch) {
    check_open();
    pool_->start_pass(
        [batches]() mutable -> std::optional<data::detail::Task> {
          py::gil_scoped_acquire gil;
          if (batches == py::iterator::sentinel()) return std::nullopt;
          py::handle item = *batches;
          data::detail::Task task;
          if (py::isinstance<py::bytes>(item)) task.keys = item.cast<std::string>();
          else task.indices = item.cast<std::vector<int64_t>>();
          ++batches;
          return task;
        },
        epoch);
  }

  py::object next() {
    check_open();
    std::optional<data::Batch> b;
    try {
      py::gil_scoped_release release;
      b = pool_->next();
    } catch (const data::DataLoaderWorkerError& e) {
      // WorkerError(message, worker_id, index, original_type, original_message, pickled type)
      py::object err = worker_error_type()(e.what(), e.worker_id, e.index, e.original_type, e.original_message,
                                           py::bytes(e.payload));
      PyErr_SetObject(worker_error_type().ptr(), err.ptr());
      throw py::error_already_set();
    }
    if (!b) return py::none();
    return tensor_dict_to_py(*b);
  }

  void shutdown() { pool_.reset(); }

 private:
  void check_open() const {
    if (!pool_) throw py::value_error("DataLoader worker pool used after shutdown()");
  }

  std::unique_ptr<data::detail::WorkerPool> pool_;
};

class PyDataset : public data::Dataset {
 public:
  int64_t size() const override { PYBIND11_OVERRIDE_PURE_NAME(int64_t, data::Dataset, "__len__", size); }
  data::Sample get(int64_t index) override {
    py::gil_scoped_acquire gil;
    py::function f = py::get_override(static_cast<const data::Dataset*>(this), "__getitem__");
    ADEPT_CHECK(f, NotImplementedForDevice, "Dataset subclass must define __getitem__");
    return tensor_dict_from_py(f(index));
  }
};

}  // namespace

void init_data(py::module_& m) {
  py::module_ d = m.def_submodule("_data", "Datasets, samplers and the DataLoader's worker processes");
  // A worker's failure. Python's DataLoader re-raises it as the worker's own exception type.
  worker_error_type() = py::reinterpret_steal<py::object>(
      PyErr_NewException("adept._C._data.WorkerError", PyExc_RuntimeError, nullptr));
  d.attr("WorkerError") = worker_error_type();

  py::class_<data::Dataset, PyDataset, std::shared_ptr<data::Dataset>>(d, "Dataset")
      .def(py::init<>())
      .def("__len__", &data::Dataset::size)
      .def("__getitem__", [](data::Dataset& ds, int64_t i) {
        const int64_t n = ds.size();
        if (i < 0) i += n;
        if (i < 0 || i >= n) throw py::index_error(fmt::format("index {} is out of range for a dataset of size {}", i, n));
        py::gil_scoped_release release;
        data::Sample s = ds.get(i);
        py::gil_scoped_acquire gil;
        return tensor_dict_to_py(s);
      }, py::arg("index"));

  d.def("_set_worker_info", [](int id, int num_workers, uint64_t seed, int64_t epoch, int64_t index) {
    data::detail::set_worker_info(data::WorkerInfo{id, num_workers, seed, epoch, index});
  });
  d.def("_clear_worker_info", [] { data::detail::set_worker_info(std::nullopt); });
  d.def("_worker_info", []() -> py::object {
    auto w = data::get_worker_info();
    if (!w) return py::none();
    return py::make_tuple(w->id, w->num_workers, w->seed, w->epoch, w->index);
  });
  d.def("sample_seed", &data::sample_seed,
        "A 64-bit seed for the sample being loaded, mixed from (loader seed, epoch, index).");
  d.def("_mix_seed", &data::detail::mix_seed);
  d.def("_bytes_to_tensor", [](const py::bytes& b) {
    std::string_view v = b;
    Tensor t = empty({static_cast<int64_t>(v.size())}, kUInt8);
    if (!v.empty()) std::memcpy(t.data_ptr(), v.data(), v.size());
    return t;
  }, "A uint8 tensor holding a copy of the bytes (the pickled structure of a worker's batch).");

  py::class_<data::Sampler, std::shared_ptr<data::Sampler>>(d, "Sampler")
      .def("__len__", &data::Sampler::size)
      .def("indices", &data::Sampler::indices, py::arg("epoch"));
  py::class_<data::SequentialSampler, data::Sampler, std::shared_ptr<data::SequentialSampler>>(d, "SequentialSampler")
      .def(py::init<int64_t>(), py::arg("n"));
  py::class_<data::RandomSampler, data::Sampler, std::shared_ptr<data::RandomSampler>>(d, "RandomSampler")
      .def(py::init<int64_t, bool, std::optional<int64_t>, std::optional<uint64_t>>(), py::arg("n"),
           py::arg("replacement") = false, py::arg("num_samples") = py::none(), py::arg("seed") = py::none());
  py::class_<data::WeightedRandomSampler, data::Sampler, std::shared_ptr<data::WeightedRandomSampler>>(
      d, "WeightedRandomSampler")
      .def(py::init<std::vector<double>, int64_t, bool, std::optional<uint64_t>>(), py::arg("weights"),
           py::arg("num_samples"), py::arg("replacement") = true, py::arg("seed") = py::none());
  py::class_<data::DistributedSampler, data::Sampler, std::shared_ptr<data::DistributedSampler>>(d, "DistributedSampler")
      .def(py::init<int64_t, int64_t, int64_t, bool, uint64_t, bool>(), py::arg("n"), py::arg("num_replicas"),
           py::arg("rank"), py::arg("shuffle") = true, py::arg("seed") = 0, py::arg("drop_last") = false)
      .def("set_epoch", &data::DistributedSampler::set_epoch, py::arg("epoch"))
      .def_property_readonly("epoch", &data::DistributedSampler::epoch)
      .def_property_readonly("total_size", &data::DistributedSampler::total_size);

  py::class_<PyWorkerPool>(d, "_WorkerPool")
      .def(py::init<py::function, int, int, double, uint64_t, py::object>(), py::arg("produce"),
           py::arg("num_workers"), py::arg("prefetch_factor"), py::arg("timeout"), py::arg("seed"),
           py::arg("worker_init_fn"))
      .def("start_pass", &PyWorkerPool::start_pass, py::arg("batches"), py::arg("epoch"))
      .def("next", &PyWorkerPool::next)
      .def("shutdown", &PyWorkerPool::shutdown);
}

}  // namespace adept::python
