// The communication thread: MPI initialisation and finalisation, the queue of collectives, arrival
// notices, deadlines and aborts (see comm_thread.h).
#include "distributed/mpi/comm_thread.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <fmt/format.h>

#include "adept/errors.h"

namespace adept::distributed::detail {
namespace {

std::string mpi_error(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) return fmt::format("MPI error {}", code);
  return std::string(text, len);
}

// An arrival notice: the collective a rank has started.
using Notice = std::array<int64_t, 5>;  // sequence number, op hash, element count, dtype code, broadcast's source
constexpr int kArrivalTag = 7;

int64_t op_code(const std::string& op) { return static_cast<int64_t>(std::hash<std::string>{}(op) & 0x7fffffff); }

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

MPI_Op mpi_op(ReduceOp op, Dtype d) {
  if (d == kBool) return op == ReduceOp::SUM || op == ReduceOp::MAX ? MPI_LOR : MPI_LAND;
  switch (op) {
    case ReduceOp::SUM:
    case ReduceOp::AVG: return MPI_SUM;
    case ReduceOp::PRODUCT: return MPI_PROD;
    case ReduceOp::MIN: return MPI_MIN;
    case ReduceOp::MAX: return MPI_MAX;
  }
  return MPI_SUM;
}

// Runs the blocking MPI call of `t`. Called once every rank has announced the same collective, so it returns
// unless a process dies (then mpirun ends the job). Blocking calls use Open MPI's tuned algorithms, which move
// large messages 2-4x faster than the non-blocking ones (libnbc) here, and progress on this thread alone.
int run_collective(const Task& t, MPI_Comm comm) {
  const int n = static_cast<int>(t.count);  // checked against INT_MAX by the caller
  switch (t.kind) {
    case Kind::AllReduce:
      return MPI_Allreduce(MPI_IN_PLACE, t.out.data_ptr(), n, mpi_type(t.out.dtype()), mpi_op(t.op, t.out.dtype()),
                           comm);
    case Kind::Broadcast: return MPI_Bcast(t.out.data_ptr(), n, mpi_type(t.out.dtype()), t.root, comm);
    case Kind::AllGather:
      return MPI_Allgather(t.in.data_ptr(), n, mpi_type(t.in.dtype()), t.out.data_ptr(), n, mpi_type(t.out.dtype()),
                           comm);
    case Kind::ReduceScatter:
      return MPI_Reduce_scatter_block(t.in.data_ptr(), t.out.data_ptr(), n, mpi_type(t.out.dtype()),
                                      mpi_op(t.op, t.out.dtype()), comm);
    case Kind::Barrier: return MPI_SUCCESS;  // every rank has announced it: that is the barrier
  }
  return MPI_ERR_OTHER;
}

// " (sum, float32 [4] on cpu)", or "" for a collective without details (a barrier).
std::string in_brackets(const std::string& detail) { return detail.empty() ? "" : " (" + detail + ")"; }

int dtype_code(const Task& t) {
  const Tensor& b = t.out.defined() ? t.out : t.in;
  return b.defined() ? static_cast<int>(b.dtype()) : -1;
}

}  // namespace

CommThread::CommThread(std::chrono::milliseconds timeout) : timeout_(timeout) {
  thread_ = std::thread([this] { run(); });
  std::unique_lock lock(mu_);
  // MPI_Init waits for every process of the job; one that exits without joining can leave it waiting for good.
  if (!cv_.wait_for(lock, timeout_, [this] { return ready_; })) {
    std::fprintf(stderr,
                 "adept.distributed: init_process_group: MPI_Init did not finish within the timeout of %.1f s (a "
                 "process of the job may have exited without joining). Exiting.\n",
                 timeout_.count() / 1000.0);
    std::fflush(stderr);
    std::_Exit(1);  // the thread is inside MPI_Init: nothing can be undone
  }
  if (init_error_) {
    lock.unlock();
    thread_.join();
    std::rethrow_exception(init_error_);
  }
}

CommThread::~CommThread() { stop(); }

void CommThread::init() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) throw ValueError("init_process_group: MPI is already initialised in this process");
  int provided = 0;
  // FUNNELED: this thread, which calls MPI_Init_thread, is the only one that calls MPI.
  int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  if (rc != MPI_SUCCESS) throw Error(fmt::format("init_process_group: MPI_Init_thread failed: {}", mpi_error(rc)));
  if (provided < MPI_THREAD_FUNNELED) {
    MPI_Finalize();
    throw Error(fmt::format("init_process_group: MPI provides thread level {} (FUNNELED needed)", provided));
  }
  MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
  MPI_Comm_dup(MPI_COMM_WORLD, &arrival_);
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);  // errors become messages naming the collective
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &world_size_);
  if (const char* env = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK")) {
    local_rank_ = std::atoi(env);
  } else {
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank_);
    MPI_Comm_free(&node);
  }
}

void CommThread::run() {
  try {
    init();
  } catch (...) {
    std::lock_guard lock(mu_);
    init_error_ = std::current_exception();
    ready_ = true;
    cv_.notify_all();
    return;
  }
  {
    std::lock_guard lock(mu_);
    ready_ = true;
  }
  cv_.notify_all();
  for (;;) {
    std::shared_ptr<Task> c;
    // Collectives come in bursts (DDP's buckets, SyncBatchNorm's layers): poll the queue briefly before sleeping.
    for (const auto t0 = std::chrono::steady_clock::now();
         std::chrono::steady_clock::now() - t0 < std::chrono::microseconds(100);) {
      {
        std::lock_guard lock(mu_);
        if (!queue_.empty() || stopping_ || abort_code_ >= 0) break;
      }
      std::this_thread::yield();
    }
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || abort_code_ >= 0 || !queue_.empty(); });
      if (abort_code_ >= 0) abort_now(abort_code_, abort_message_);
      if (queue_.empty()) break;  // stopping, and nothing left
      c = queue_.front();
      queue_.pop_front();
    }
    execute(*c);
  }
  MPI_Comm_free(&arrival_);
  MPI_Comm_free(&comm_);
  MPI_Finalize();
}

void CommThread::execute(Task& c) {
  const int n = world_size_;
  // Tell every other rank which collective this is, and listen for theirs.
  // The op's name and, for reductions, the reduce op: SUM on one rank and MAX on another is a mismatch too.
  const bool reduces = c.kind == Kind::AllReduce || c.kind == Kind::ReduceScatter;
  const Notice mine{static_cast<int64_t>(c.seq), op_code(c.name) * 8 + (reduces ? static_cast<int64_t>(c.op) + 1 : 0),
                    c.count, dtype_code(c), c.kind == Kind::Broadcast ? c.root : 0};
  std::vector<Notice> theirs(n);
  std::vector<MPI_Request> notices;  // receives first (index = peer order), then sends
  std::vector<int> peer_of;
  for (int r = 0; r < n; ++r) {
    if (r == rank_) continue;
    notices.emplace_back();
    peer_of.push_back(r);
    MPI_Irecv(theirs[r].data(), static_cast<int>(Notice{}.size()), MPI_INT64_T, r, kArrivalTag, arrival_,
              &notices.back());
  }
  const size_t n_recv = notices.size();
  for (int r = 0; r < n; ++r) {
    if (r == rank_) continue;
    notices.emplace_back();
    MPI_Isend(mine.data(), static_cast<int>(mine.size()), MPI_INT64_T, r, kArrivalTag, arrival_, &notices.back());
  }
  std::vector<bool> arrived(n, false);
  arrived[rank_] = true;

  // Wait for every rank's notice (the deadline and aborts are checked meanwhile), then run the collective.
  const auto t0 = std::chrono::steady_clock::now();
  const auto deadline = t0 + timeout_;
  size_t waiting = n_recv;
  std::chrono::microseconds pause(50);
  while (waiting > 0) {
    for (size_t i = 0; i < n_recv; ++i) {
      const int r = peer_of[i];
      if (arrived[r]) continue;
      int got = 0;
      MPI_Test(&notices[i], &got, MPI_STATUS_IGNORE);
      if (!got) continue;
      arrived[r] = true;
      --waiting;
      const Notice& t = theirs[r];
      if (t[1] != mine[1] || t[2] != mine[2] || t[3] != mine[3] || t[4] != mine[4]) {
        // destroy_process_group's barrier against another collective: one rank is ending early.
        const int64_t leaving = op_code(kLeaving) * 8;
        if (t[1] == leaving) {
          abort_now(1, fmt::format("adept.distributed: rank {}: rank {} left the process group (destroy_process_group, "
                                   "or its process is exiting) while this rank is in collective #{} ({}{}): every "
                                   "rank must run the same collectives before it ends. Aborting the job.\n",
                                   rank_, r, c.seq, c.name, c.detail.empty() ? "" : ", " + c.detail));
        }
        if (mine[1] == leaving) {
          abort_now(1, fmt::format("adept.distributed: rank {}: this rank is leaving the process group "
                                   "(destroy_process_group, or the process is exiting) while rank {} is in collective "
                                   "#{} ({} elements): every rank must run the same collectives before it ends. "
                                   "Aborting the job.\n",
                                   rank_, r, t[0], t[2]));
        }
        abort_now(1, fmt::format(
            "adept.distributed: rank {}: collective #{} is {} ({}{} elements) here, but rank {} started a "
            "different collective #{} ({} elements{}): every rank must call the same collectives in the same "
            "order with the same sizes{}. Aborting the job.\n",
            rank_, c.seq, c.name, c.detail.empty() ? "" : c.detail + ", ", c.count, r, t[0], t[2],
            t[1] != mine[1]   ? ", another op"
            : t[3] != mine[3] ? ", another dtype"
            : t[4] != mine[4] ? fmt::format(", src {} where this rank has src {}", t[4], mine[4])
                              : "",
            c.kind == Kind::Broadcast ? " and source rank" : ""));
      }
    }
    if (waiting == 0) break;
    const auto now = std::chrono::steady_clock::now();
    if (now > deadline) timed_out(c, arrived);
    {
      std::lock_guard lock(mu_);
      if (abort_code_ >= 0) abort_now(abort_code_, abort_message_);
    }
    // Spin (yielding) for 1 ms for latency, then sleep between polls, twice as long each time up to 1 ms, so that
    // a bucket launched early in backward does not take the cores from the computing threads while it waits.
    if (now - t0 < std::chrono::microseconds(1000)) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(pause);
      pause = std::min(2 * pause, std::chrono::microseconds(1000));
    }
  }
  // Every peer has received this rank's notice or will: its receive was posted before its own sends.
  MPI_Waitall(static_cast<int>(notices.size()), notices.data(), MPI_STATUSES_IGNORE);
  int rc = MPI_SUCCESS;
  try {
    rc = run_collective(c, comm_);
  } catch (...) {
    c.complete(std::current_exception());
    return;
  }
  c.complete(rc == MPI_SUCCESS ? nullptr
                               : std::make_exception_ptr(Error(fmt::format(
                                     "{} #{}{} failed on rank {}: {}", c.name, c.seq, in_brackets(c.detail), rank_,
                                     mpi_error(rc)))));
}

void CommThread::timed_out(const Task& c, const std::vector<bool>& arrived) {
  std::vector<int> missing;
  for (int r = 0; r < world_size_; ++r) if (!arrived[r]) missing.push_back(r);
  const std::string who =
      fmt::format("rank{} {} did not arrive", missing.size() > 1 ? "s" : "", fmt::join(missing, ", "));
  abort_now(1, fmt::format(
      "adept.distributed: rank {}: collective {} #{}{} did not finish within the timeout of {:.1f} s: {}. "
      "Aborting the job.\n",
      rank_, c.name, c.seq, in_brackets(c.detail), timeout_.count() / 1000.0, who));
}

void CommThread::abort_now(int code, const std::string& message) {
  std::fputs(message.c_str(), stderr);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);  // MPI_Abort does not return; in case it does
}

void CommThread::submit(const std::shared_ptr<Task>& c) {
  {
    std::lock_guard lock(mu_);
    ADEPT_CHECK(!stopping_, ValueError, "{}: the process group has been destroyed", c->name);
    c->seq = next_seq_++;
    queue_.push_back(c);
  }
  cv_.notify_all();
}

void CommThread::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_ || !thread_.joinable()) return;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

void CommThread::abort(int code, const std::string& message) {
  {
    std::lock_guard lock(mu_);
    abort_message_ = message;
    abort_code_ = code;
  }
  cv_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
  // The thread ends the process; reached only when it had already stopped.
  std::fputs(message.c_str(), stderr);
  std::_Exit(code);
}

namespace {
// Registers "mpi" when adept::distributed opens this plugin (backend.h: load_backend).
const bool registered = (register_backend("mpi",
                                          [](std::chrono::milliseconds timeout) -> std::unique_ptr<Backend> {
                                            return std::make_unique<CommThread>(timeout);
                                          }),
                         true);
}  // namespace

}  // namespace adept::distributed::detail
