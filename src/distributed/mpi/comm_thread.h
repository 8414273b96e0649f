// The "mpi" backend of adept::distributed (libadept_mpi.so): the one thread that calls MPI. Collectives are queued
// by the caller's thread and run in order. Before each, every rank tells every other one which collective it has
// started (sequence number, op, element count and type, on a duplicate communicator) and polls for the others'
// notices against a deadline, so that a timeout names the ranks that never arrived and a mismatched collective
// (another op or size as the same step) is an error naming both ranks before it can corrupt data or hang. Once
// every rank has arrived, the blocking MPI collective runs on this thread.
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

#include "distributed/backend.h"

namespace adept::distributed::detail {

/// The "mpi" backend (backend.h): a thread that owns MPI and runs the queued tasks one at a time.
class CommThread : public Backend {
 public:
  /// Starts the thread, which initialises MPI; throws the initialisation's error.
  explicit CommThread(std::chrono::milliseconds timeout);
  ~CommThread() override;  // stop()
  CommThread(const CommThread&) = delete;
  CommThread& operator=(const CommThread&) = delete;

  /// Queues `task` (assigning its sequence number).
  void submit(const std::shared_ptr<Task>& task) override;
  /// Runs the queue dry, frees the communicators, calls MPI_Finalize and joins the thread.
  void stop() override;
  /// MPI_Abort from the communication thread (the only one allowed to call MPI) after printing `message`.
  [[noreturn]] void abort(int code, const std::string& message) override;

  int rank() const override { return rank_; }
  int world_size() const override { return world_size_; }
  int local_rank() const override { return local_rank_; }

 private:
  void run();
  void init();
  void execute(Task& t);
  [[noreturn]] void timed_out(const Task& t, const std::vector<bool>& arrived);
  [[noreturn]] void abort_now(int code, const std::string& message);  // on this thread

  std::chrono::milliseconds timeout_;
  int rank_ = 0, world_size_ = 1, local_rank_ = 0;
  MPI_Comm comm_ = MPI_COMM_NULL;     // collectives
  MPI_Comm arrival_ = MPI_COMM_NULL;  // who started which collective
  uint64_t next_seq_ = 1;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Task>> queue_;
  bool stopping_ = false;
  bool ready_ = false;
  std::exception_ptr init_error_;
  int abort_code_ = -1;  // >= 0: the caller asked the thread to MPI_Abort
  std::string abort_message_;
  std::thread thread_;
};

}  // namespace adept::distributed::detail
