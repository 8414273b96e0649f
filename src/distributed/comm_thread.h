// The communication thread of a process group: the one thread that calls MPI. Collectives are queued
// by the caller's thread and run in order; each is a non-blocking MPI collective polled to completion
// against a deadline. Next to it, every rank tells every other one which collective it has started
// (sequence number, op, element count and type, on a duplicate communicator), so that a timeout names
// the ranks that never arrived and a mismatched collective (another op or size as the same step) is an
// error naming both ranks before it can corrupt data or hang.
#pragma once
#include <mpi.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace adept::distributed::detail {

/// One queued collective. `start` runs on the communication thread and posts the non-blocking MPI call
/// into `request`; `done` is set (under `mu`) once it has finished, with `error` on failure.
struct Collective {
  std::string op;      ///< torch's name: "all_reduce", "broadcast", ...
  std::string detail;  ///< what it reduces, for messages: "sum, float32 [1024]"
  int64_t count = 0;   ///< elements per rank, compared across ranks
  int dtype_code = 0;  ///< element type, compared across ranks
  std::function<int(MPI_Comm comm, MPI_Request* request)> start;  ///< returns an MPI error code
  uint64_t seq = 0;    ///< set when queued: 1, 2, ... per process group

  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::exception_ptr error;
};

class CommThread {
 public:
  /// Starts the thread, which initialises MPI; throws the initialisation's error.
  explicit CommThread(std::chrono::milliseconds timeout);
  ~CommThread();  // stop()
  CommThread(const CommThread&) = delete;
  CommThread& operator=(const CommThread&) = delete;

  /// Queues `c` (assigning its sequence number).
  void submit(const std::shared_ptr<Collective>& c);
  /// Runs the queue dry, frees the communicators, calls MPI_Finalize and joins the thread.
  void stop();
  /// MPI_Abort from the communication thread (the only one allowed to call MPI) after printing `message`.
  [[noreturn]] void abort(int code, const std::string& message);

  int rank() const { return rank_; }
  int world_size() const { return world_size_; }
  int local_rank() const { return local_rank_; }
  std::chrono::milliseconds timeout() const { return timeout_; }

 private:
  void run();
  void init();
  void execute(Collective& c);
  [[noreturn]] void timed_out(const Collective& c, const std::vector<bool>& arrived);
  [[noreturn]] void abort_now(int code, const std::string& message);  // on this thread

  std::chrono::milliseconds timeout_;
  int rank_ = 0, world_size_ = 1, local_rank_ = 0;
  MPI_Comm comm_ = MPI_COMM_NULL;     // collectives
  MPI_Comm arrival_ = MPI_COMM_NULL;  // who started which collective
  uint64_t next_seq_ = 1;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Collective>> queue_;
  bool stopping_ = false;
  bool ready_ = false;
  std::exception_ptr init_error_;
  int abort_code_ = -1;  // >= 0: the caller asked the thread to MPI_Abort
  std::string abort_message_;
  std::thread thread_;
};

}  // namespace adept::distributed::detail
