// DataLoader worker processes. Each worker talks to the main process over one Unix socket pair:
// tasks go down (batch number, epoch, dataset indices, and the segments the main process has
// finished with), results come up (which segment holds the batch, or an error). Batch i goes to
// worker i mod N, and each worker answers in order, so the main process reads batch i from
// worker i mod N and the order never depends on timing.
#include "data/worker_pool.h"

#include "core/worker_process.h"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cxxabi.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>

#include "adept/data/dataloader.h"
#include "adept/parallel.h"
#include "data/shm_segment.h"

namespace adept::data::detail {

// Reads a message body with bounds checks.
struct MessageReader {
  const std::string& buf;
  size_t at = 0;
  template <class T> T get() {
    ADEPT_CHECK(at + sizeof(T) <= buf.size(), IOError, "DataLoader: truncated message from a worker");
    T v;
    std::memcpy(&v, buf.data() + at, sizeof v);
    at += sizeof v;
    return v;
  }
  std::string str() {
    const auto n = get<uint32_t>();
    ADEPT_CHECK(at + n <= buf.size(), IOError, "DataLoader: truncated message from a worker");
    std::string s = buf.substr(at, n);
    at += n;
    return s;
  }
};

namespace {

enum : uint8_t { kTask = 1, kExit = 2, kBatch = 3, kError = 4 };


std::vector<std::function<void()>>& start_hooks() {
  static std::vector<std::function<void()>> hooks;
  return hooks;
}

// Length-prefixed messages: a writer builds the body as a byte string.
struct Writer {
  std::string buf;
  template <class T> void put(T v) { buf.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void str(const std::string& s) { put<uint32_t>(static_cast<uint32_t>(s.size())); buf += s; }
};

// Sends a whole message; false when the peer is gone. MSG_NOSIGNAL: no SIGPIPE in either process.
bool send_message(int fd, const std::string& body) {
  std::string msg;
  const uint32_t n = static_cast<uint32_t>(body.size());
  msg.append(reinterpret_cast<const char*>(&n), sizeof n);
  msg += body;
  for (size_t at = 0; at < msg.size();) {
    ssize_t w = send(fd, msg.data() + at, msg.size() - at, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    at += static_cast<size_t>(w);
  }
  return true;
}

bool recv_exact(int fd, char* p, size_t n) {
  for (size_t at = 0; at < n;) {
    ssize_t r = recv(fd, p + at, n - at, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    at += static_cast<size_t>(r);
  }
  return true;
}

// Receives one message; nullopt when the peer closed its end (it exited or died).
std::optional<std::string> recv_message(int fd) {
  uint32_t n = 0;
  if (!recv_exact(fd, reinterpret_cast<char*>(&n), sizeof n)) return std::nullopt;
  std::string body(n, '\0');
  if (!recv_exact(fd, body.data(), n)) return std::nullopt;
  return body;
}

std::string describe_status(int status) {
  if (WIFSIGNALED(status))
    return fmt::format("killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
  return "stopped";
}

// Waits up to `seconds` for `pid` to exit; returns its status, or nullopt if it is still running.
std::optional<int> wait_for(pid_t pid, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    int status = 0;
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (r < 0 && errno != EINTR) return 0;  // not our child any more (reaped elsewhere)
    if (std::chrono::steady_clock::now() >= end) return std::nullopt;
    usleep(2000);
  }
}

std::atomic<int> g_pool_counter{0};

}  // namespace

void register_worker_start_hook(std::function<void()> fn) { start_hooks().push_back(std::move(fn)); }

// Segments the main process has released, filled by batch tensors' deleters (any thread).
struct FreeList {
  std::mutex mu;
  std::vector<int32_t> ids;
};

struct WorkerPool::Worker {
  int id = 0;
  pid_t pid = -1;
  int fd = -1;           // the main process's end of the socket pair
  int child_fd = -1;     // the worker's end (only open in the worker)
  std::deque<int64_t> queued;  // batch numbers sent and not yet received
  std::map<int32_t, std::shared_ptr<ShmSegment>> segments;  // mapped in the main process
  std::shared_ptr<FreeList> released = std::make_shared<FreeList>();
  bool alive = true;
  std::optional<int> exit_status;  // set once reaped
};

WorkerPool::WorkerPool(ProduceFn produce, WorkerPoolOptions options)
    : produce_(std::move(produce)), options_(std::move(options)) {
  ADEPT_CHECK(options_.num_workers >= 1, ValueError, "WorkerPool: num_workers must be >= 1, got {}", options_.num_workers);
  ADEPT_CHECK(options_.prefetch_factor >= 1, ValueError, "WorkerPool: prefetch_factor must be >= 1, got {}",
              options_.prefetch_factor);
  owner_ = getpid();
  prefix_ = fmt::format("/adept.{}.{}.", owner_, g_pool_counter.fetch_add(1));
  try {
    for (int i = 0; i < options_.num_workers; ++i) spawn(i);
  } catch (...) {
    shutdown();  // reap the workers already started
    throw;
  }
}

void WorkerPool::spawn(int id) {
  auto w = std::make_unique<Worker>();
  w->id = id;
  int fds[2];
  ADEPT_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0, IOError,
              "DataLoader: cannot create a socket pair for worker {}: {}", id, std::strerror(errno));
  w->fd = fds[0];
  w->child_fd = fds[1];
  if (options_.hooks.before_fork) options_.hooks.before_fork();
  pid_t pid = fork();
  if (pid == 0) {
    if (options_.hooks.after_fork_child) options_.hooks.after_fork_child();
    workers_.push_back(std::move(w));
    worker_main(*workers_.back());
  }
  const int fork_errno = errno;
  if (options_.hooks.after_fork_parent) options_.hooks.after_fork_parent();
  close(w->child_fd);
  w->child_fd = -1;
  if (pid < 0) {
    close(w->fd);
    throw Error(fmt::format("DataLoader: cannot fork worker {}: {}", id, std::strerror(fork_errno)));
  }
  w->pid = pid;
  workers_.push_back(std::move(w));
}

void WorkerPool::worker_main(Worker& self) {
  // In the child: only this thread exists. Never return into the caller's stack, never run the
  // parent's atexit handlers or static destructors: leave with _exit.
  mark_worker_process();
  // Ctrl-C and SIGTERM sent to the whole process group are the main process's to handle: it stops
  // us and unlinks the shared-memory segments in flight. Without it (killed), our socket closes
  // and we exit on our own.
  signal(SIGINT, SIG_IGN);
  signal(SIGTERM, SIG_IGN);
  signal(SIGPIPE, SIG_IGN);
  for (auto& w : workers_)
    if (w.get() != &self) close(w->fd);
  close(self.fd);
  const int fd = self.child_fd;
  set_num_threads(1);
  struct Owned {
    std::shared_ptr<ShmSegment> seg;
    std::string name;
    bool free = false;
  };
  std::map<int32_t, Owned> owned;
  int32_t next_id = 0;
  auto finish = [&](int code) {
    for (auto& [id, o] : owned) ShmSegment::unlink(o.name);
    _exit(code);
  };
  auto send_error = [&](int64_t seq, int64_t index, const std::string& type, const std::string& msg,
                        const std::string& payload) {
    Writer m;
    m.put<uint8_t>(kError);
    m.put<int64_t>(seq);
    m.put<int64_t>(index);
    m.str(type);
    m.str(msg);
    m.str(payload);
    send_message(fd, m.buf);
  };
  auto report = [&](int64_t seq) {
    // fetch_batch clears the info once the batch is collated: -2 marks a failure after that.
    auto info = get_worker_info();
    const int64_t index = info ? info->index : -2;
    try {
      throw;
    } catch (const WorkerFailure& e) {
      send_error(seq, index, e.type, e.message, e.payload);
    } catch (const std::exception& e) {
      int status = 0;
      char* name = abi::__cxa_demangle(typeid(e).name(), nullptr, nullptr, &status);
      std::string type = status == 0 && name ? name : typeid(e).name();
      std::free(name);
      send_error(seq, index, type, e.what(), {});
    } catch (...) {
      send_error(seq, index, "unknown", "unknown exception", {});
    }
  };
  try {
    for (auto& hook : start_hooks()) hook();
    if (options_.worker_init) options_.worker_init(self.id);
  } catch (...) {
    detail::set_worker_info(std::nullopt);
    report(-1);
    finish(1);
  }
  for (;;) {
    auto msg = recv_message(fd);
    if (!msg) finish(0);  // the main process closed the pool or died
    MessageReader r{*msg};
    const auto kind = r.get<uint8_t>();
    if (kind == kExit) finish(0);
    const auto seq = r.get<int64_t>();
    const auto epoch = r.get<int64_t>();
    for (uint32_t n = r.get<uint32_t>(); n > 0; --n) owned.at(r.get<int32_t>()).free = true;
    Task task;
    task.indices.resize(r.get<uint32_t>());
    for (auto& i : task.indices) i = r.get<int64_t>();
    task.keys = r.str();
    try {
      Batch batch = produce_(task, epoch, self.id);
      const size_t need = encoded_size(batch);
      // Reuse the smallest free segment that fits; drop free ones that are too small.
      Writer m;
      std::vector<int32_t> dropped;
      int32_t pick = -1;
      for (auto& [id, o] : owned)
        if (o.free && o.seg->capacity() >= need && (pick < 0 || o.seg->capacity() < owned.at(pick).seg->capacity()))
          pick = id;
      bool created = false;
      if (pick < 0) {
        for (auto it = owned.begin(); it != owned.end();) {
          if (it->second.free) {
            dropped.push_back(it->first);
            ShmSegment::unlink(it->second.name);
            it = owned.erase(it);
          } else {
            ++it;
          }
        }
        pick = next_id++;
        std::string name = fmt::format("{}{}.{}", prefix_, self.id, pick);
        owned[pick] = Owned{ShmSegment::create(name, need), name};
        created = true;
      }
      Owned& o = owned.at(pick);
      encode(batch, *o.seg);
      o.free = false;
      m.put<uint8_t>(kBatch);
      m.put<int64_t>(seq);
      m.put<int32_t>(pick);
      m.put<uint64_t>(o.seg->capacity());
      m.str(created ? o.name : std::string());
      m.put<uint32_t>(static_cast<uint32_t>(dropped.size()));
      for (int32_t d : dropped) m.put<int32_t>(d);
      if (!send_message(fd, m.buf)) finish(0);
    } catch (...) {
      report(seq);
    }
    detail::set_worker_info(std::nullopt);
  }
}

void WorkerPool::start_pass(IndexSource source, int64_t epoch) {
  ADEPT_CHECK(!broken_, Error, "DataLoader: the worker pool stopped after an error; start a new one");
  while (next_take_ < next_submit_) receive(next_take_++);  // a pass left unfinished
  source_ = std::move(source);
  epoch_ = epoch;
  source_done_ = false;
}

void WorkerPool::top_up() {
  const int n = options_.num_workers;
  while (!source_done_) {
    Worker& w = *workers_[next_submit_ % n];
    if (static_cast<int>(w.queued.size()) >= options_.prefetch_factor) return;
    std::optional<Task> task = source_();
    if (!task) {
      source_done_ = true;
      return;
    }
    Writer m;
    m.put<uint8_t>(kTask);
    m.put<int64_t>(next_submit_);
    m.put<int64_t>(epoch_);
    std::vector<int32_t> released;
    {
      std::lock_guard<std::mutex> l(w.released->mu);
      released.swap(w.released->ids);
    }
    m.put<uint32_t>(static_cast<uint32_t>(released.size()));
    for (int32_t id : released) m.put<int32_t>(id);
    m.put<uint32_t>(static_cast<uint32_t>(task->indices.size()));
    for (int64_t i : task->indices) m.put<int64_t>(i);
    m.str(task->keys);
    if (!send_message(w.fd, m.buf)) fail_dead(w);
    w.queued.push_back(next_submit_++);
  }
}

std::optional<Batch> WorkerPool::next() {
  ADEPT_CHECK(!broken_, Error, "DataLoader: the worker pool stopped after an error; start a new one");
  try {
    top_up();
    if (next_take_ == next_submit_) return std::nullopt;
    Batch b = receive(next_take_++);
    top_up();
    return b;
  } catch (...) {
    broken_ = true;
    throw;
  }
}

Batch WorkerPool::receive(int64_t seq) {
  Worker& w = *workers_[seq % options_.num_workers];
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  for (;;) {
    pollfd p{w.fd, POLLIN, 0};
    int rc = poll(&p, 1, 100);
    if (rc < 0 && errno != EINTR)
      throw Error(fmt::format("DataLoader: poll on worker {} failed: {}", w.id, std::strerror(errno)));
    if (rc <= 0) {
      if (options_.hooks.check_interrupt) options_.hooks.check_interrupt();
      check_workers_alive();  // a dead worker is an error even while we wait on another one
      const double waited = std::chrono::duration<double>(clock::now() - start).count();
      if (options_.timeout > 0 && waited > options_.timeout)
        throw DataLoaderWorkerError(fmt::format("DataLoader timed out after {} seconds waiting for batch {} from worker {} (pid {})",
                                                options_.timeout, seq, w.id, w.pid), w.id, -1);
      continue;
    }
    auto msg = recv_message(w.fd);
    if (!msg) fail_dead(w);
    MessageReader r{*msg};
    const auto kind = r.get<uint8_t>();
    const auto got = r.get<int64_t>();
    if (kind == kError) throw_worker_error(w, got, r);
    ADEPT_CHECK(kind == kBatch && got == w.queued.front(), IOError,
                "DataLoader: worker {} answered batch {} while batch {} was expected", w.id, got, w.queued.front());
    w.queued.pop_front();
    const auto seg_id = r.get<int32_t>();
    const auto capacity = r.get<uint64_t>();
    const std::string name = r.str();
    for (uint32_t n = r.get<uint32_t>(); n > 0; --n) w.segments.erase(r.get<int32_t>());
    if (!name.empty()) {
      w.segments[seg_id] = ShmSegment::open(name, capacity);
      ShmSegment::unlink(name);  // both processes have it mapped: nothing left in /dev/shm
    }
    return decode(w.segments.at(seg_id), [released = w.released, seg_id] {
      std::lock_guard<std::mutex> l(released->mu);
      released->ids.push_back(seg_id);
    });
  }
}

void WorkerPool::throw_worker_error(Worker& w, int64_t seq, MessageReader& r) {
  const auto index = r.get<int64_t>();
  std::string type = r.str(), text = r.str(), payload = r.str();
  std::string where = seq < 0 ? std::string("while starting (worker_init_fn)")
                      : index >= 0  ? fmt::format("while loading sample {} of batch {}", index, seq)
                      : index == -1 ? fmt::format("while collating batch {}", seq)
                                    : fmt::format("while passing batch {} to the main process", seq);
  throw DataLoaderWorkerError(fmt::format("DataLoader worker {} (pid {}) raised {} {}: {}", w.id, w.pid, type, where, text),
                              w.id, index, type, text, payload);
}

void WorkerPool::check_workers_alive() {
  for (auto& w : workers_) {
    if (!w->alive || w->pid <= 0) continue;
    int status = 0;
    if (waitpid(w->pid, &status, WNOHANG) == w->pid) {
      w->exit_status = status;
      fail_dead(*w);
    }
  }
}

void WorkerPool::fail_dead(Worker& w) {
  auto status = w.exit_status ? w.exit_status : wait_for(w.pid, 2.0);
  if (!status) {
    kill(w.pid, SIGKILL);
    status = wait_for(w.pid, 5.0);
  }
  w.alive = false;
  ShmSegment::unlink_prefix(fmt::format("{}{}.", prefix_, w.id));
  broken_ = true;
  // A worker that reported an error before exiting (e.g. worker_init_fn raised): that error is
  // the one to raise. Its end is closed, so these reads do not block.
  while (auto msg = recv_message(w.fd)) {
    MessageReader r{*msg};
    const auto kind = r.get<uint8_t>();
    const auto seq = r.get<int64_t>();
    if (kind == kError) throw_worker_error(w, seq, r);
  }
  throw DataLoaderWorkerError(
      fmt::format("DataLoader worker {} (pid {}) exited unexpectedly: {}", w.id, w.pid,
                  status ? describe_status(*status) : "it closed its connection"),
      w.id, -1);
}

WorkerPool::~WorkerPool() { shutdown(); }

void WorkerPool::shutdown() {
  if (getpid() != owner_) {  // a fork of the owner: leave the owner's workers and segments alone
    for (auto& w : workers_)
      if (w->fd >= 0) close(w->fd);
    workers_.clear();
    return;
  }
  for (auto& w : workers_) {
    if (w->alive && w->pid > 0) {
      Writer m;
      m.put<uint8_t>(kExit);
      send_message(w->fd, m.buf);
    }
  }
  for (auto& w : workers_) {
    if (w->fd >= 0) close(w->fd);
    w->fd = -1;
    if (!w->alive || w->pid <= 0) continue;
    if (!wait_for(w->pid, 1.0)) {
      kill(w->pid, SIGKILL);
      wait_for(w->pid, 5.0);
    }
    w->alive = false;
  }
  ShmSegment::unlink_prefix(prefix_);
}

}  // namespace adept::data::detail
