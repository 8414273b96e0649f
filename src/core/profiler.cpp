// Thread-local profile labels (see adept/profiler.h).
#include "adept/profiler.h"

#include <mutex>
#include <unordered_set>

namespace adept::profiler {

namespace {
thread_local ScopeState t_state;

const std::string& empty_label() {
  static const std::string empty;
  return empty;
}

// Labels live for the life of the process, so kernels may keep pointers to them.
const std::string* intern(std::string s) {
  static std::mutex mu;
  static std::unordered_set<std::string> labels;
  std::lock_guard<std::mutex> lock(mu);
  return &*labels.insert(std::move(s)).first;
}
}  // namespace

RecordFunction::RecordFunction(const std::string& name) : saved_(t_state.scope) {
  t_state.scope = intern(saved_ ? *saved_ + "/" + name : name);
}

RecordFunction::~RecordFunction() { t_state.scope = saved_; }

const std::string& current_scope() { return t_state.scope ? *t_state.scope : empty_label(); }

bool in_backward() { return t_state.backward; }

ScopeState current_state() { return t_state; }

ScopeGuard::ScopeGuard(ScopeState s) : saved_(t_state) { t_state = s; }

ScopeGuard::~ScopeGuard() { t_state = saved_; }

}  // namespace adept::profiler
