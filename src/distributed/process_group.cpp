// The default process group: argument checks, staging of tensors through contiguous host buffers in
// MPI's element types, and the collectives queued on the communication thread (comm_thread.h).
#include <climits>
#include <cstdlib>
#include <mutex>

#include "adept/autograd.h"
#include "adept/distributed.h"
#include "adept/ops.h"
#include "distributed/comm_thread.h"

namespace adept::distributed {
namespace {

using detail::Collective;
using detail::CommThread;

std::mutex g_mu;
std::unique_ptr<CommThread> g_comm;  // destroyed at exit: finishes the queue and finalises MPI
bool g_was_initialized = false;

CommThread& group(const char* op) {
  std::lock_guard lock(g_mu);
  ADEPT_CHECK(g_comm != nullptr, ValueError,
              "{}: Default process group has not been initialized, please make sure to call init_process_group.",
              op);
  return *g_comm;
}

// float16 / bfloat16 travel as float32 (MPI has no half types; the sum is also more accurate).
Dtype wire_dtype(Dtype d) { return d == kFloat16 || d == kBFloat16 ? kFloat32 : d; }

MPI_Datatype mpi_type(Dtype d) {
  switch (d) {
    case kBool: return MPI_C_BOOL;
    case kUInt8: return MPI_UINT8_T;
    case kInt32: return MPI_INT32_T;
    case kInt64: return MPI_INT64_T;
    case kFloat32: return MPI_FLOAT;
    case kFloat64: return MPI_DOUBLE;
    default: break;
  }
  throw DtypeError(fmt::format("adept.distributed: no MPI type for {}", dtype_name(d)));
}

MPI_Op mpi_op(ReduceOp op, Dtype wire, const char* name) {
  if (op == ReduceOp::AVG) {
    ADEPT_CHECK(is_floating_point(wire), ValueError,
                "{}: ReduceOp.AVG needs a floating-point tensor, got {}", name, dtype_name(wire));
  }
  if (wire == kBool) {
    return op == ReduceOp::SUM || op == ReduceOp::MAX ? MPI_LOR : MPI_LAND;
  }
  switch (op) {
    case ReduceOp::SUM:
    case ReduceOp::AVG: return MPI_SUM;
    case ReduceOp::PRODUCT: return MPI_PROD;
    case ReduceOp::MIN: return MPI_MIN;
    case ReduceOp::MAX: return MPI_MAX;
  }
  return MPI_SUM;
}

int as_count(int64_t n, const char* op) {
  ADEPT_CHECK(n <= INT_MAX, ValueError, "{}: {} elements per rank is more than MPI's limit of {}", op, n, INT_MAX);
  return static_cast<int>(n);
}

std::string describe(const Tensor& t) {
  return fmt::format("{} [{}] on {}", dtype_name(t.dtype()), fmt::join(t.sizes(), ", "), t.device().str());
}

// A contiguous host tensor in the wire dtype holding (when `with_data`) the values of `t`; `t` itself
// when it already is one.
Tensor stage(const Tensor& t, bool with_data) {
  NoGradGuard no_grad;
  const Dtype wire = wire_dtype(t.dtype());
  if (t.device().is_cpu() && t.is_contiguous() && t.dtype() == wire) return t;
  if (!with_data) return empty(t.sizes(), TensorOptions(wire));
  Tensor h = t.to(kCPU, wire, /*copy=*/true);
  return h.is_contiguous() ? h : h.contiguous();
}

// Copies host results back into the caller's tensor when it was staged.
void unstage(Tensor& user, const Tensor& host) {
  if (!user.is_same(host)) user.copy_(host);
}

class WorkImpl : public Work {
 public:
  WorkImpl(std::shared_ptr<Collective> c, std::function<void()> finish)
      : c_(std::move(c)), finish_(std::move(finish)) {}
  void wait() override {
    {
      std::unique_lock lock(c_->mu);
      c_->cv.wait(lock, [this] { return c_->done; });
    }
    if (c_->error) std::rethrow_exception(c_->error);
    if (finish_) {
      auto f = std::move(finish_);
      finish_ = nullptr;
      NoGradGuard no_grad;  // results land in the caller's tensors as data, outside autograd
      f();
    }
  }
  bool is_completed() const override {
    std::lock_guard lock(c_->mu);
    return c_->done;
  }

 private:
  std::shared_ptr<Collective> c_;
  std::function<void()> finish_;
};

std::shared_ptr<Work> launch(const char* op, std::string detail, int64_t count, Dtype wire,
                             std::function<int(MPI_Comm, MPI_Request*)> start, std::function<void()> finish,
                             bool async_op) {
  CommThread& comm = group(op);
  auto c = std::make_shared<Collective>();
  c->op = op;
  c->detail = std::move(detail);
  c->count = count;
  c->dtype_code = static_cast<int>(wire);
  c->start = std::move(start);
  auto work = std::make_shared<WorkImpl>(c, std::move(finish));
  comm.submit(c);
  if (async_op) return work;
  work->wait();
  return nullptr;
}

void check_same(const Tensor& t, const Tensor& ref, const char* op, const char* what, size_t i) {
  ADEPT_CHECK(t.defined(), ValueError, "{}: {}[{}] is undefined", op, what, i);
  ADEPT_CHECK(t.sizes() == ref.sizes() && t.dtype() == ref.dtype(), ValueError,
              "{}: {}[{}] is {}, expected {} as the {}", op, what, i, describe(t), describe(ref),
              std::string(what) == "outputs" ? "input" : "output");
}

}  // namespace

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM: return "sum";
    case ReduceOp::AVG: return "avg";
    case ReduceOp::PRODUCT: return "product";
    case ReduceOp::MIN: return "min";
    case ReduceOp::MAX: return "max";
  }
  return "?";
}

void init_process_group(const std::string& backend, std::chrono::milliseconds timeout) {
  ADEPT_CHECK(backend == "mpi", ValueError,
              "init_process_group: backend '{}' is not available; Adept's process groups run on 'mpi' (Open MPI)",
              backend);
  ADEPT_CHECK(timeout.count() > 0, ValueError, "init_process_group: timeout must be positive, got {} ms",
              timeout.count());
  std::lock_guard lock(g_mu);
  ADEPT_CHECK(g_comm == nullptr, ValueError,
              "init_process_group: trying to initialize the default process group twice!");
  ADEPT_CHECK(!g_was_initialized, ValueError,
              "init_process_group: the default process group was destroyed, and MPI cannot be initialised twice "
              "in one process");
  g_comm = std::make_unique<CommThread>(timeout);
  g_was_initialized = true;
}

bool is_initialized() {
  std::lock_guard lock(g_mu);
  return g_comm != nullptr;
}

bool is_mpi_available() { return true; }

void destroy_process_group() {
  std::unique_ptr<CommThread> comm;
  {
    std::lock_guard lock(g_mu);
    comm = std::move(g_comm);
  }
  if (comm) comm->stop();
}

void abort(int code, const std::string& message) {
  CommThread* comm = nullptr;
  {
    std::lock_guard lock(g_mu);
    comm = g_comm.get();
  }
  std::string text = message.empty() || message.back() == '\n' ? message : message + "\n";
  if (comm) comm->abort(code, text);
  std::fputs(text.c_str(), stderr);
  std::fflush(stderr);
  std::_Exit(code);
}

int get_rank() { return group("get_rank").rank(); }
int get_world_size() { return group("get_world_size").world_size(); }
int get_node_local_rank() { return group("get_node_local_rank").local_rank(); }
std::chrono::milliseconds get_timeout() { return group("get_timeout").timeout(); }

std::shared_ptr<Work> all_reduce(Tensor& tensor, ReduceOp op, bool async_op) {
  const char* name = "all_reduce";
  ADEPT_CHECK(tensor.defined(), ValueError, "{}: the tensor is undefined", name);
  const int world = group(name).world_size();
  const Dtype wire = wire_dtype(tensor.dtype());
  MPI_Datatype type = mpi_type(wire);
  MPI_Op mop = mpi_op(op, wire, name);
  const int n = as_count(tensor.numel(), name);
  Tensor host = stage(tensor, true);
  Tensor user = tensor;
  auto start = [host, n, type, mop](MPI_Comm comm, MPI_Request* req) {
    return MPI_Iallreduce(MPI_IN_PLACE, host.data_ptr(), n, type, mop, comm, req);
  };
  auto finish = [user, host, op, world]() mutable {
    if (op == ReduceOp::AVG) host.div_(world);
    unstage(user, host);
  };
  return launch(name, fmt::format("{}, {}", reduce_op_name(op), describe(tensor)), n, wire, start, finish, async_op);
}

std::shared_ptr<Work> broadcast(Tensor& tensor, int src, bool async_op) {
  const char* name = "broadcast";
  ADEPT_CHECK(tensor.defined(), ValueError, "{}: the tensor is undefined", name);
  CommThread& comm = group(name);
  ADEPT_CHECK(src >= 0 && src < comm.world_size(), ValueError, "{}: src {} is not a rank of a group of {}", name, src,
              comm.world_size());
  const Dtype wire = wire_dtype(tensor.dtype());
  MPI_Datatype type = mpi_type(wire);
  const int n = as_count(tensor.numel(), name);
  Tensor host = stage(tensor, comm.rank() == src);
  Tensor user = tensor;
  auto start = [host, n, type, src](MPI_Comm c, MPI_Request* req) {
    return MPI_Ibcast(host.data_ptr(), n, type, src, c, req);
  };
  auto finish = [user, host]() mutable { unstage(user, host); };
  return launch(name, fmt::format("src {}, {}", src, describe(tensor)), n, wire, start, finish, async_op);
}

std::shared_ptr<Work> all_gather(std::vector<Tensor>& outputs, const Tensor& input, bool async_op) {
  const char* name = "all_gather";
  ADEPT_CHECK(input.defined(), ValueError, "{}: the input is undefined", name);
  const int world = group(name).world_size();
  ADEPT_CHECK(static_cast<int>(outputs.size()) == world, ValueError,
              "{}: got {} output tensors for a group of {} ranks", name, outputs.size(), world);
  for (size_t i = 0; i < outputs.size(); ++i) check_same(outputs[i], input, name, "outputs", i);
  const Dtype wire = wire_dtype(input.dtype());
  MPI_Datatype type = mpi_type(wire);
  const int n = as_count(input.numel(), name);
  Tensor in = stage(input, true);
  Tensor out = empty({static_cast<int64_t>(world) * n}, TensorOptions(wire));
  auto start = [in, out, n, type](MPI_Comm c, MPI_Request* req) {
    return MPI_Iallgather(in.data_ptr(), n, type, out.data_ptr(), n, type, c, req);
  };
  std::vector<Tensor> users = outputs;
  auto finish = [users, out, n]() mutable {
    for (size_t r = 0; r < users.size(); ++r) {
      users[r].copy_(out.narrow(0, static_cast<int64_t>(r) * n, n).view(users[r].sizes()));
    }
  };
  return launch(name, describe(input), n, wire, start, finish, async_op);
}

std::shared_ptr<Work> all_gather_into_tensor(Tensor& output, const Tensor& input, bool async_op) {
  const char* name = "all_gather_into_tensor";
  ADEPT_CHECK(input.defined() && output.defined(), ValueError, "{}: a tensor is undefined", name);
  const int world = group(name).world_size();
  ADEPT_CHECK(output.numel() == world * input.numel() && output.dtype() == input.dtype(), ValueError,
              "{}: output is {}, expected {} times the elements of the input ({}) in its dtype", name,
              describe(output), world, describe(input));
  const Dtype wire = wire_dtype(input.dtype());
  MPI_Datatype type = mpi_type(wire);
  const int n = as_count(input.numel(), name);
  Tensor in = stage(input, true);
  Tensor out = stage(output, false);
  auto start = [in, out, n, type](MPI_Comm c, MPI_Request* req) {
    return MPI_Iallgather(in.data_ptr(), n, type, out.data_ptr(), n, type, c, req);
  };
  Tensor user = output;
  auto finish = [user, out]() mutable { unstage(user, out); };
  return launch(name, describe(input), n, wire, start, finish, async_op);
}

namespace {

std::shared_ptr<Work> reduce_scatter_flat(const char* name, Tensor& output, Tensor in, ReduceOp op, bool async_op,
                                          const std::string& detail) {
  const int world = group(name).world_size();
  const Dtype wire = wire_dtype(output.dtype());
  MPI_Datatype type = mpi_type(wire);
  MPI_Op mop = mpi_op(op, wire, name);
  const int n = as_count(output.numel(), name);
  Tensor out = stage(output, false);
  auto start = [in, out, n, type, mop](MPI_Comm c, MPI_Request* req) {
    return MPI_Ireduce_scatter_block(in.data_ptr(), out.data_ptr(), n, type, mop, c, req);
  };
  Tensor user = output;
  auto finish = [user, out, op, world]() mutable {
    if (op == ReduceOp::AVG) out.div_(world);
    unstage(user, out);
  };
  return launch(name, fmt::format("{}, {}", reduce_op_name(op), detail), n, wire, start, finish, async_op);
}

}  // namespace

std::shared_ptr<Work> reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op, bool async_op) {
  const char* name = "reduce_scatter";
  ADEPT_CHECK(output.defined(), ValueError, "{}: the output is undefined", name);
  const int world = group(name).world_size();
  ADEPT_CHECK(static_cast<int>(inputs.size()) == world, ValueError,
              "{}: got {} input tensors for a group of {} ranks", name, inputs.size(), world);
  for (size_t i = 0; i < inputs.size(); ++i) check_same(inputs[i], output, name, "inputs", i);
  const Dtype wire = wire_dtype(output.dtype());
  Tensor in = empty({world, output.numel()}, TensorOptions(wire));
  NoGradGuard no_grad;
  for (int r = 0; r < world; ++r) in.select(0, r).copy_(inputs[r].reshape({-1}));
  return reduce_scatter_flat(name, output, in, op, async_op, describe(output));
}

std::shared_ptr<Work> reduce_scatter_tensor(Tensor& output, const Tensor& input, ReduceOp op, bool async_op) {
  const char* name = "reduce_scatter_tensor";
  ADEPT_CHECK(input.defined() && output.defined(), ValueError, "{}: a tensor is undefined", name);
  const int world = group(name).world_size();
  ADEPT_CHECK(input.numel() == world * output.numel() && output.dtype() == input.dtype(), ValueError,
              "{}: input is {}, expected {} times the elements of the output ({}) in its dtype", name,
              describe(input), world, describe(output));
  return reduce_scatter_flat(name, output, stage(input, true), op, async_op, describe(output));
}

std::shared_ptr<Work> barrier(bool async_op) {
  return launch("barrier", "", 0, kBool, [](MPI_Comm c, MPI_Request* req) { return MPI_Ibarrier(c, req); }, nullptr,
                async_op);
}

}  // namespace adept::distributed
