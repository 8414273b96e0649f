// Process groups over Open MPI (torch.distributed's names): collectives between the processes that
// `mpirun -np N` starts. One communication thread per process makes every MPI call, so collectives
// started with async_op=true progress while the caller computes (Open MPI 4.1 does not progress
// non-blocking collectives by itself). Tensors on a GPU are staged through host memory: a device-to-host
// copy before the collective and a host-to-device copy in Work::wait(), two transfers of the tensor's
// bytes on top of the network's (the seed's design: synchronisation through the host).
//
// A collective never waits forever: when one has not finished within the process group's timeout, the
// communication thread prints which collective (op, sequence number, tensor) and which ranks had not
// started it, then calls MPI_Abort, which ends every rank of the job.
#pragma once
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "adept/errors.h"
#include "adept/tensor.h"

namespace adept::distributed {

/// How all_reduce and reduce_scatter combine the ranks' tensors (torch.distributed.ReduceOp). AVG is the
/// sum divided by the world size, for floating-point tensors only.
enum class ReduceOp { SUM, AVG, PRODUCT, MIN, MAX };

/// A collective that may still be running (torch.distributed.Work). wait() blocks until it has finished,
/// copies staged results into the caller's tensors and rethrows the collective's error, if any; waiting
/// again is a no-op. Every Work must be waited on before its tensors are read.
class Work {
 public:
  virtual ~Work() = default;
  /// Blocks until the collective has finished and its results are in the caller's tensors.
  virtual void wait() = 0;
  /// True once the communication thread has finished the collective (wait() may still copy results).
  virtual bool is_completed() const = 0;
};

/// Default timeout of a collective (torch's default for its process groups).
inline constexpr std::chrono::milliseconds kDefaultTimeout = std::chrono::minutes(30);

/// Initialises MPI (MPI_Init_thread, called from the communication thread, which then makes every MPI
/// call) and the default process group over MPI_COMM_WORLD. `backend` must be "mpi" (ValueError names
/// the supported ones); `timeout` bounds every collective. Raises ValueError when called twice or after
/// destroy_process_group (MPI cannot be initialised twice in a process), and Error when MPI fails.
/// Outside mpirun it makes a process group of one (an MPI singleton).
void init_process_group(const std::string& backend = "mpi",
                        std::chrono::milliseconds timeout = kDefaultTimeout);
/// True between init_process_group and destroy_process_group.
bool is_initialized();
/// True when Adept was built with MPI (always, for this library).
bool is_mpi_available();
/// Ends the default process group: a barrier (so that a rank leaving while others wait in a collective
/// is a mismatch that aborts the job at once), then MPI_Finalize. Collective: every rank must call it.
/// No-op when no group exists.
void destroy_process_group();
/// Ends every rank of the job now (MPI_Abort on MPI_COMM_WORLD with `code`), after writing `message`
/// to stderr; for errors after which the other ranks would wait for this one forever. With no process
/// group it exits the process with `code`.
[[noreturn]] void abort(int code, const std::string& message);

/// This process's rank in the default group, 0 .. world_size - 1 (ValueError without a process group).
int get_rank();
/// Number of processes in the default group (ValueError without a process group).
int get_world_size();
/// This process's rank among the ranks on its node (Open MPI's OMPI_COMM_WORLD_LOCAL_RANK; MPI's
/// shared-memory split when that is not set). torch.distributed.get_node_local_rank.
int get_node_local_rank();
/// The default group's timeout.
std::chrono::milliseconds get_timeout();

/// Combines `tensor` across all ranks with `op`, in place on every rank. Any dtype except complex;
/// float16 / bfloat16 are reduced in float32. Returns the Work when `async_op`, else waits and returns
/// nullptr. ValueError without a process group or for AVG on an integer or bool tensor.
std::shared_ptr<Work> all_reduce(Tensor& tensor, ReduceOp op = ReduceOp::SUM, bool async_op = false);
/// Copies `tensor` of rank `src` into `tensor` on every rank (same shape and dtype everywhere).
/// ValueError when src is not a rank.
std::shared_ptr<Work> broadcast(Tensor& tensor, int src, bool async_op = false);
/// Gathers every rank's `input` into `outputs[rank]` (world_size tensors shaped and typed as input).
std::shared_ptr<Work> all_gather(std::vector<Tensor>& outputs, const Tensor& input, bool async_op = false);
/// Gathers every rank's `input` into `output`, whose first dimension is world_size times input's
/// (the ranks' inputs stacked along dim 0 in rank order; torch.distributed.all_gather_into_tensor).
std::shared_ptr<Work> all_gather_into_tensor(Tensor& output, const Tensor& input, bool async_op = false);
/// Reduces inputs[r] of every rank with `op` into `output` of rank r (world_size inputs shaped and
/// typed as output).
std::shared_ptr<Work> reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs,
                                     ReduceOp op = ReduceOp::SUM, bool async_op = false);
/// reduce_scatter over the world_size equal chunks of `input`'s dim 0 (torch.distributed.reduce_scatter_tensor).
std::shared_ptr<Work> reduce_scatter_tensor(Tensor& output, const Tensor& input, ReduceOp op = ReduceOp::SUM,
                                            bool async_op = false);
/// Returns (or, with async_op, completes) when every rank has reached it.
std::shared_ptr<Work> barrier(bool async_op = false);

/// The name of `op` as torch prints it ("sum", "avg", ...).
const char* reduce_op_name(ReduceOp op);

}  // namespace adept::distributed
