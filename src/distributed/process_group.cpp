// The default process group: argument checks, staging of tensors through contiguous host buffers in
// the backend's element types, and the collectives queued on the backend (backend.h).
#include <climits>
#include <cstdlib>
#include <mutex>

#include "adept/autograd.h"
#include "adept/distributed.h"
#include "adept/ops.h"
#include "distributed/backend.h"

namespace adept::distributed {
namespace {

using detail::Backend;
using detail::Kind;
using detail::Task;

std::mutex g_mu;
std::unique_ptr<Backend> g_comm;  // destroyed at exit: finishes the queue and finalises MPI
bool g_was_initialized = false;
std::chrono::milliseconds g_timeout{0};

Backend& group(const char* op) {
  std::lock_guard lock(g_mu);
  ADEPT_CHECK(g_comm != nullptr, ValueError,
              "{}: Default process group has not been initialized, please make sure to call init_process_group.",
              op);
  return *g_comm;
}

// float16 / bfloat16 travel as float32 (MPI has no half types; the sum is also more accurate).
Dtype wire_dtype(Dtype d) { return d == kFloat16 || d == kBFloat16 ? kFloat32 : d; }

void check_op(ReduceOp op, Dtype wire, const char* name) {
  if (op == ReduceOp::AVG) {
    ADEPT_CHECK(is_floating_point(wire), ValueError,
                "{}: ReduceOp.AVG needs a floating-point tensor, got {}", name, dtype_name(wire));
  }
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
  WorkImpl(std::shared_ptr<Task> t, std::function<void()> finish) : t_(std::move(t)), finish_(std::move(finish)) {}
  void wait() override {
    t_->wait();
    if (finish_) {
      auto f = std::move(finish_);
      finish_ = nullptr;
      NoGradGuard no_grad;  // results land in the caller's tensors as data, outside autograd
      f();
    }
  }
  bool is_completed() const override { return t_->is_done(); }

 private:
  std::shared_ptr<Task> t_;
  std::function<void()> finish_;
};

std::shared_ptr<Work> launch(const char* name, Kind kind, std::string detail, int64_t count, Tensor in, Tensor out,
                             ReduceOp op, int root, std::function<void()> finish, bool async_op) {
  Backend& comm = group(name);
  ADEPT_CHECK(count <= INT_MAX, ValueError, "{}: {} elements per rank is more than MPI's limit of {}", name, count,
              INT_MAX);
  auto t = std::make_shared<Task>();
  t->kind = kind;
  t->name = name;
  t->detail = std::move(detail);
  t->count = count;
  t->in = std::move(in);
  t->out = std::move(out);
  t->op = op;
  t->root = root;
  auto work = std::make_shared<WorkImpl>(t, std::move(finish));
  comm.submit(t);
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
  std::string why;
  detail::BackendFactory make = detail::load_backend(backend, &why);
  ADEPT_CHECK(make != nullptr, Error,
              "init_process_group: the '{}' backend cannot be loaded ({}); Adept's process groups need Open MPI "
              "(Debian: libopenmpi3, from scripts/setup.sh)", backend, why);
  g_comm = make(timeout);
  g_timeout = timeout;
  g_was_initialized = true;
}

bool is_initialized() {
  std::lock_guard lock(g_mu);
  return g_comm != nullptr;
}

bool is_mpi_available() { return detail::load_backend("mpi", nullptr) != nullptr; }

void destroy_process_group() {
  // A barrier first: a rank that leaves early (an error handled by exit(), the end of a script) then meets
  // the others' pending collective at the same sequence number, a mismatch that ends the job at once,
  // instead of waiting in MPI_Finalize for ranks that wait for it until their timeout.
  if (is_initialized()) {
    launch(detail::kLeaving, Kind::Barrier, "", 0, Tensor(), Tensor(), ReduceOp::SUM, 0, nullptr, /*async_op=*/false);
  }
  std::unique_ptr<Backend> comm;
  {
    std::lock_guard lock(g_mu);
    comm = std::move(g_comm);
  }
  if (comm) comm->stop();
}

void abort(int code, const std::string& message) {
  Backend* comm = nullptr;
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
std::chrono::milliseconds get_timeout() {
  group("get_timeout");
  return g_timeout;
}

std::shared_ptr<Work> all_reduce(Tensor& tensor, ReduceOp op, bool async_op) {
  const char* name = "all_reduce";
  ADEPT_CHECK(tensor.defined(), ValueError, "{}: the tensor is undefined", name);
  const int world = group(name).world_size();
  check_op(op, wire_dtype(tensor.dtype()), name);
  Tensor host = stage(tensor, true);
  auto finish = [user = tensor, host, op, world]() mutable {
    if (op == ReduceOp::AVG) host.div_(world);
    unstage(user, host);
  };
  return launch(name, Kind::AllReduce, fmt::format("{}, {}", reduce_op_name(op), describe(tensor)), tensor.numel(),
                host, host, op == ReduceOp::AVG ? ReduceOp::SUM : op, 0, finish, async_op);
}

std::shared_ptr<Work> broadcast(Tensor& tensor, int src, bool async_op) {
  const char* name = "broadcast";
  ADEPT_CHECK(tensor.defined(), ValueError, "{}: the tensor is undefined", name);
  Backend& comm = group(name);
  ADEPT_CHECK(src >= 0 && src < comm.world_size(), ValueError, "{}: src {} is not a rank of a group of {}", name, src,
              comm.world_size());
  Tensor host = stage(tensor, comm.rank() == src);
  auto finish = [user = tensor, host]() mutable { unstage(user, host); };
  return launch(name, Kind::Broadcast, fmt::format("src {}, {}", src, describe(tensor)), tensor.numel(), host, host,
                ReduceOp::SUM, src, finish, async_op);
}

std::shared_ptr<Work> all_gather(std::vector<Tensor>& outputs, const Tensor& input, bool async_op) {
  const char* name = "all_gather";
  ADEPT_CHECK(input.defined(), ValueError, "{}: the input is undefined", name);
  const int world = group(name).world_size();
  ADEPT_CHECK(static_cast<int>(outputs.size()) == world, ValueError,
              "{}: got {} output tensors for a group of {} ranks", name, outputs.size(), world);
  for (size_t i = 0; i < outputs.size(); ++i) check_same(outputs[i], input, name, "outputs", i);
  const int64_t n = input.numel();
  Tensor in = stage(input, true);
  Tensor out = empty({world * n}, TensorOptions(in.dtype()));
  auto finish = [users = outputs, out, n]() mutable {
    for (size_t r = 0; r < users.size(); ++r) {
      users[r].copy_(out.narrow(0, static_cast<int64_t>(r) * n, n).view(users[r].sizes()));
    }
  };
  return launch(name, Kind::AllGather, describe(input), n, in, out, ReduceOp::SUM, 0, finish, async_op);
}

std::shared_ptr<Work> all_gather_into_tensor(Tensor& output, const Tensor& input, bool async_op) {
  const char* name = "all_gather_into_tensor";
  ADEPT_CHECK(input.defined() && output.defined(), ValueError, "{}: a tensor is undefined", name);
  const int world = group(name).world_size();
  ADEPT_CHECK(output.numel() == world * input.numel() && output.dtype() == input.dtype(), ValueError,
              "{}: output is {}, expected {} times the elements of the input ({}) in its dtype", name,
              describe(output), world, describe(input));
  Tensor in = stage(input, true);
  Tensor out = stage(output, false);
  auto finish = [user = output, out]() mutable { unstage(user, out); };
  return launch(name, Kind::AllGather, describe(input), input.numel(), in, out, ReduceOp::SUM, 0, finish, async_op);
}

namespace {

std::shared_ptr<Work> reduce_scatter_flat(const char* name, Tensor& output, Tensor in, ReduceOp op, bool async_op,
                                          const std::string& detail) {
  const int world = group(name).world_size();
  check_op(op, wire_dtype(output.dtype()), name);
  Tensor out = stage(output, false);
  auto finish = [user = output, out, op, world]() mutable {
    if (op == ReduceOp::AVG) out.div_(world);
    unstage(user, out);
  };
  return launch(name, Kind::ReduceScatter, fmt::format("{}, {}", reduce_op_name(op), detail), output.numel(), in, out,
                op == ReduceOp::AVG ? ReduceOp::SUM : op, 0, finish, async_op);
}

}  // namespace

std::shared_ptr<Work> reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op, bool async_op) {
  const char* name = "reduce_scatter";
  ADEPT_CHECK(output.defined(), ValueError, "{}: the output is undefined", name);
  const int world = group(name).world_size();
  ADEPT_CHECK(static_cast<int>(inputs.size()) == world, ValueError,
              "{}: got {} input tensors for a group of {} ranks", name, inputs.size(), world);
  for (size_t i = 0; i < inputs.size(); ++i) check_same(inputs[i], output, name, "inputs", i);
  Tensor in = empty({world, output.numel()}, TensorOptions(wire_dtype(output.dtype())));
  {
    NoGradGuard no_grad;
    for (int r = 0; r < world; ++r) in.select(0, r).copy_(inputs[r].reshape({-1}));
  }
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
  return launch("barrier", Kind::Barrier, "", 0, Tensor(), Tensor(), ReduceOp::SUM, 0, nullptr, async_op);
}

}  // namespace adept::distributed
