// The backend registry and plugin loading, and Task's completion handshake (backend.h).
#include "distributed/backend.h"

#include <dlfcn.h>

#include <chrono>
#include <filesystem>
#include <thread>
#include <map>

namespace adept::distributed::detail {
namespace {

std::mutex& registry_mutex() {
  static std::mutex mu;
  return mu;
}
std::map<std::string, BackendFactory>& registry() {
  static std::map<std::string, BackendFactory> r;
  return r;
}

}  // namespace

void Task::complete(std::exception_ptr error) {
  {
    std::lock_guard lock(mu_);
    done_ = true;
    error_ = std::move(error);
  }
  done_flag_.store(true, std::memory_order_release);
  cv_.notify_all();
}

void Task::wait() {
  // A collective often ends within microseconds: poll briefly before sleeping, which saves the wake-up.
  const auto t0 = std::chrono::steady_clock::now();
  while (!done_flag_.load(std::memory_order_acquire) &&
         std::chrono::steady_clock::now() - t0 < std::chrono::microseconds(100)) {
    std::this_thread::yield();
  }
  std::unique_lock lock(mu_);
  cv_.wait(lock, [this] { return done_; });
  if (error_) std::rethrow_exception(error_);
}

bool Task::is_done() {
  std::lock_guard lock(mu_);
  return done_;
}

void register_backend(const std::string& name, BackendFactory factory) {
  std::lock_guard lock(registry_mutex());
  registry()[name] = factory;
}

BackendFactory load_backend(const std::string& name, std::string* why) {
  {
    std::lock_guard lock(registry_mutex());
    if (auto it = registry().find(name); it != registry().end()) return it->second;
  }
  // The plugin sits next to libadept.so (the build folder, or the wheel's adept/lib).
  Dl_info info{};
  std::string path = "libadept_" + name + ".so";
  if (dladdr(reinterpret_cast<void*>(&register_backend), &info) && info.dli_fname) {
    path = (std::filesystem::path(info.dli_fname).parent_path() / path).string();
  }
  // RTLD_GLOBAL: Open MPI's own components (dlopened by libmpi) look up libmpi's symbols globally.
  if (!dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL)) {
    if (why) *why = dlerror();
    return nullptr;
  }
  std::lock_guard lock(registry_mutex());
  if (auto it = registry().find(name); it != registry().end()) return it->second;
  if (why) *why = path + " loaded but registered no backend '" + name + "'";
  return nullptr;
}

}  // namespace adept::distributed::detail
