// adept._C._distributed: process groups, the DDP Reducer (adept/distributed.h,
// adept/distributed/data_parallel.h); the Python API is python/adept/distributed/.
#include <pybind11/chrono.h>
#include <pybind11/stl.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include "common.h"

#include "adept/distributed.h"
#include "adept/distributed/data_parallel.h"
#include "adept/distributed/sync_batch_norm.h"

namespace adept::python {

namespace dist = adept::distributed;

namespace {

// Runs a collective with the GIL released (a synchronous one blocks in Work::wait()), so other Python
// threads run meanwhile; None for a synchronous one, else its Work.
template <class F>
py::object run(F&& collective) {
  std::shared_ptr<dist::Work> w;
  {
    py::gil_scoped_release nogil;
    w = collective();
  }
  if (!w) return py::none();
  return py::cast(std::move(w));
}

}  // namespace

void init_distributed(py::module_& parent) {
  py::module_ m = parent.def_submodule("_distributed", "Process groups over Open MPI (use adept.distributed)");
  m.def("is_mpi_available", &dist::is_mpi_available);

  py::enum_<dist::ReduceOp>(m, "ReduceOp", "How all_reduce and reduce_scatter combine tensors (torch.distributed).")
      .value("SUM", dist::ReduceOp::SUM)
      .value("AVG", dist::ReduceOp::AVG)
      .value("PRODUCT", dist::ReduceOp::PRODUCT)
      .value("MIN", dist::ReduceOp::MIN)
      .value("MAX", dist::ReduceOp::MAX);

  py::class_<dist::Work, std::shared_ptr<dist::Work>>(m, "Work", "A collective started with async_op=True.")
      .def("wait", [](dist::Work& w, std::optional<std::chrono::milliseconds> timeout) {
        bool done = true;
        {
          py::gil_scoped_release nogil;
          if (timeout) {  // poll, then fail as torch's wait(timeout) does when the collective is still running
            const auto deadline = std::chrono::steady_clock::now() + *timeout;
            while (!w.is_completed() && std::chrono::steady_clock::now() < deadline) {
              std::this_thread::sleep_for(std::chrono::microseconds(200));
            }
            done = w.is_completed();
          }
          if (done) w.wait();
        }
        if (!done) {
          const std::string msg =
              fmt::format("Work.wait: the collective did not finish within {} ms", timeout->count());
          PyErr_SetString(PyExc_TimeoutError, msg.c_str());
          throw py::error_already_set();
        }
        return true;
      }, py::arg("timeout") = py::none(),
      "Blocks until the collective has finished and its results are in the tensors; returns True. With `timeout` "
      "(a datetime.timedelta), raises TimeoutError if it has not finished by then (the collective keeps running).")
      .def("is_completed", &dist::Work::is_completed);

  m.def("init_process_group", [](const std::string& backend, std::chrono::milliseconds timeout) {
    py::gil_scoped_release nogil;
    dist::init_process_group(backend, timeout);
  }, py::arg("backend"), py::arg("timeout"));
  m.def("is_initialized", &dist::is_initialized);
  m.def("destroy_process_group", [] {
    py::gil_scoped_release nogil;
    dist::destroy_process_group();
  });
  m.def("abort", [](int code, const std::string& message) { dist::abort(code, message); }, py::arg("code"),
        py::arg("message"));
  m.def("get_rank", &dist::get_rank);
  m.def("get_world_size", &dist::get_world_size);
  m.def("get_node_local_rank", &dist::get_node_local_rank);
  m.def("get_timeout", &dist::get_timeout);

  using adept::Tensor;
  m.def("all_reduce", [](Tensor t, dist::ReduceOp op, bool async_op) {
    return run([&] { return dist::all_reduce(t, op, async_op); });
  }, py::arg("tensor"), py::arg("op"), py::arg("async_op"));
  m.def("broadcast", [](Tensor t, int src, bool async_op) {
    return run([&] { return dist::broadcast(t, src, async_op); });
  }, py::arg("tensor"), py::arg("src"), py::arg("async_op"));
  m.def("all_gather", [](std::vector<Tensor> outputs, const Tensor& input, bool async_op) {
    return run([&] { return dist::all_gather(outputs, input, async_op); });
  }, py::arg("tensor_list"), py::arg("tensor"), py::arg("async_op"));
  m.def("all_gather_into_tensor", [](Tensor out, const Tensor& in, bool async_op) {
    return run([&] { return dist::all_gather_into_tensor(out, in, async_op); });
  }, py::arg("output_tensor"), py::arg("input_tensor"), py::arg("async_op"));
  m.def("reduce_scatter", [](Tensor out, const std::vector<Tensor>& inputs, dist::ReduceOp op, bool async_op) {
    return run([&] { return dist::reduce_scatter(out, inputs, op, async_op); });
  }, py::arg("output"), py::arg("input_list"), py::arg("op"), py::arg("async_op"));
  m.def("reduce_scatter_tensor", [](Tensor out, const Tensor& in, dist::ReduceOp op, bool async_op) {
    return run([&] { return dist::reduce_scatter_tensor(out, in, op, async_op); });
  }, py::arg("output"), py::arg("input"), py::arg("op"), py::arg("async_op"));
  py::class_<dist::Reducer>(m, "Reducer", "Averages gradients across ranks in buckets (DistributedDataParallel).")
      .def(py::init([](const std::vector<std::pair<std::string, adept::Tensor>>& named, int64_t cap, int64_t first_cap,
                       bool find_unused) {
        dist::ReducerOptions o;
        o.bucket_cap_bytes = cap;
        o.first_bucket_cap_bytes = first_cap;
        o.find_unused_parameters = find_unused;
        return std::make_unique<dist::Reducer>(named, o);
      }), py::arg("named_parameters"), py::arg("bucket_cap_bytes"), py::arg("first_bucket_cap_bytes"),
         py::arg("find_unused_parameters"))
      .def("prepare_for_backward", &dist::Reducer::prepare_for_backward, py::arg("outputs"))
      .def_property("require_sync", &dist::Reducer::require_sync, &dist::Reducer::set_require_sync)
      .def("bucket_indices", &dist::Reducer::bucket_indices);
  py::class_<dist::SyncBatchNorm, nn::BatchNorm, std::shared_ptr<dist::SyncBatchNorm>>(
      m, "SyncBatchNorm", py::dynamic_attr(),
      "BatchNorm over (N, C, *) whose training statistics span every rank's batch (torch.nn.SyncBatchNorm).")
      .def(py::init<int64_t, double, std::optional<double>, bool, bool>(), py::arg("num_features"),
           py::arg("eps") = 1e-5, py::arg("momentum") = 0.1, py::arg("affine") = true,
           py::arg("track_running_stats") = true);
  m.def("convert_sync_batchnorm", &dist::convert_sync_batchnorm, py::arg("module"),
        "Replaces every BatchNorm under module (and module itself) by a SyncBatchNorm sharing its tensors.");
  m.def("broadcast_coalesced", [](const std::vector<adept::Tensor>& tensors, int src) {
    py::gil_scoped_release nogil;
    dist::broadcast_coalesced(tensors, src);
  }, py::arg("tensors"), py::arg("src") = 0);
  m.def("barrier", [](bool async_op) { return run([&] { return dist::barrier(async_op); }); }, py::arg("async_op"));
}

}  // namespace adept::python
