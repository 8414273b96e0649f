// The transport under adept::distributed: a Backend runs collectives on contiguous host tensors. The
// core (process groups, DDP, SyncBatchNorm) is MPI-free; the "mpi" backend lives in the plugin
// libadept_mpi.so (src/distributed/mpi/), which registers itself when load_backend("mpi") opens it,
// so that neither libadept nor the Python module needs libmpi unless a process group is started.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>

#include "adept/distributed.h"
#include "adept/tensor.h"

namespace adept::distributed::detail {

enum class Kind { AllReduce, Broadcast, AllGather, ReduceScatter, Barrier };

/// The name of the barrier destroy_process_group starts with: a rank that meets it while in another collective
/// reports that the other rank is leaving, not a mismatched barrier.
inline constexpr const char* kLeaving = "destroy_process_group";

/// One collective on host buffers. `in` and `out` are contiguous CPU tensors in a dtype the backend
/// takes (bool, uint8, int32, int64, float32, float64); for AllReduce and Broadcast they are the same
/// tensor (in place). `count` is the element count per rank (of `out` for AllReduce / Broadcast /
/// ReduceScatter, of `in` for AllGather).
struct Task {
  Kind kind = Kind::Barrier;
  ReduceOp op = ReduceOp::SUM;  ///< AllReduce / ReduceScatter; AVG arrives here as SUM
  int root = 0;                 ///< Broadcast's source rank
  Tensor in, out;
  int64_t count = 0;
  std::string name;    ///< torch's name of the public call, e.g. "all_reduce"
  std::string detail;  ///< for messages: "sum, float32 [1024] on cpu"
  uint64_t seq = 0;    ///< set by the backend when queued: 1, 2, ...

  /// Called by the backend once the collective has finished (with its error, if it failed).
  void complete(std::exception_ptr error = nullptr);
  /// Blocks until complete() was called; rethrows its error.
  void wait();
  bool is_done();

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::atomic<bool> done_flag_{false};  // done_, readable without the lock
  std::exception_ptr error_;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  virtual int local_rank() const = 0;
  /// Queues `task`; collectives run in submission order.
  virtual void submit(const std::shared_ptr<Task>& task) = 0;
  /// Finishes the queue and shuts the transport down (MPI_Finalize).
  virtual void stop() = 0;
  /// Ends every rank of the job after printing `message` (MPI_Abort).
  [[noreturn]] virtual void abort(int code, const std::string& message) = 0;
};

/// Makes a backend whose collectives time out after `timeout`; throws what initialisation threw.
using BackendFactory = std::unique_ptr<Backend> (*)(std::chrono::milliseconds timeout);

/// Called by a plugin when it is loaded (a static initialiser of libadept_<name>.so).
void register_backend(const std::string& name, BackendFactory factory);
/// The factory of `name`, opening libadept_<name>.so from libadept.so's folder first when it is not
/// registered yet; nullptr with `why` filled when that fails.
BackendFactory load_backend(const std::string& name, std::string* why);

}  // namespace adept::distributed::detail
