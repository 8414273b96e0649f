// Worker processes of a DataLoader: forking, the task/result protocol over a socket pair per
// worker, shared-memory segment reuse, failure detection and cleanup.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "adept/data/tensor_dict.h"

namespace adept::data::detail {

struct MessageReader;

/// Thrown by a produce function in a worker to report an error with its own type name and
/// payload (the Python bindings pass the exception's type and traceback this way).
struct WorkerFailure : std::exception {
  std::string type, message, payload;
  WorkerFailure(std::string t, std::string m, std::string p) : type(std::move(t)), message(std::move(m)), payload(std::move(p)) {}
  const char* what() const noexcept override { return message.c_str(); }
};

/// One batch to load: its dataset indices, or opaque bytes naming keys that are not integers
/// (the Python bindings pickle such keys there).
struct Task {
  std::vector<int64_t> indices;
  std::string keys;
};
/// Runs in a worker: loads and collates the batch of `task`. The dataset index being fetched
/// when it throws is read from get_worker_info().
using ProduceFn = std::function<Batch(const Task& task, int64_t epoch, int worker_id)>;
/// The next batch of a pass, or nullopt at its end (runs in the main process).
using IndexSource = std::function<std::optional<Task>()>;

/// Process-level callbacks of the embedding runtime (the Python bindings: PyOS_BeforeFork and
/// friends, so a worker forks with the GIL held; PyErr_CheckSignals for Ctrl-C).
struct ProcessHooks {
  std::function<void()> before_fork, after_fork_parent, after_fork_child;
  /// Called about every 100 ms while waiting; throws to abandon the wait (e.g. KeyboardInterrupt).
  std::function<void()> check_interrupt;
};

struct WorkerPoolOptions {
  int num_workers = 1;
  int prefetch_factor = 2;
  double timeout = 0;  // seconds per batch, 0 = none
  uint64_t seed = 0;
  std::function<void(int)> worker_init;
  ProcessHooks hooks;
};

/// Registers a function every worker runs right after it starts (e.g. to turn off a library's
/// thread pool, which a forked child must not use).
void register_worker_start_hook(std::function<void()> fn);

class WorkerPool {
 public:
  /// Forks the workers now. Throws if fork fails.
  WorkerPool(ProduceFn produce, WorkerPoolOptions options);
  /// Stops the workers (EXIT, then SIGKILL after a grace period), reaps them and unlinks every
  /// shared-memory name of the pool. In a process forked from the owner (which inherited this
  /// object), only closes its copies of the sockets: the workers are the owner's.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  /// Starts a pass; results still queued from an earlier pass are received and dropped first.
  void start_pass(IndexSource source, int64_t epoch);
  /// The next batch of the pass, in source order, or nullopt at its end. Throws
  /// DataLoaderWorkerError when a worker fails, dies or times out; the pool is unusable after.
  std::optional<Batch> next();

 private:
  struct Worker;
  void spawn(int id);
  void shutdown();
  [[noreturn]] void worker_main(Worker& self);
  void top_up();
  Batch receive(int64_t seq);
  [[noreturn]] void fail_dead(Worker& w);
  /// Reaps any worker that exited and raises for it (called while waiting on another one).
  void check_workers_alive();
  [[noreturn]] void throw_worker_error(Worker& w, int64_t seq, MessageReader& r);

  ProduceFn produce_;
  WorkerPoolOptions options_;
  std::string prefix_;  // "/adept.<pid>.<pool>." names every segment of this pool
  pid_t owner_ = -1;    // the process that forked the workers (a forked copy of it must not stop them)
  std::vector<std::unique_ptr<Worker>> workers_;
  IndexSource source_;
  int64_t epoch_ = 0;
  int64_t next_submit_ = 0, next_take_ = 0;
  bool source_done_ = true;
  bool broken_ = false;
};

}  // namespace adept::data::detail
