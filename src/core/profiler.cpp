// Thread-local profile labels (see adept/profiler.h).
#include "adept/profiler.h"

#include <algorithm>
#include <mutex>
#include <unordered_set>
#include <vector>

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

namespace {
// The thread's live RecordFunctions, oldest first.
thread_local std::vector<RecordFunction*> t_live;
}  // namespace

RecordFunction::RecordFunction(const std::string& name) : name_(name) {
  set_parent(t_state.scope);
  t_state.scope = path_;
  t_live.push_back(this);
}

void RecordFunction::set_parent(const std::string* parent) {
  parent_ = parent;
  path_ = intern(parent ? *parent + "/" + name_ : name_);
}

RecordFunction::~RecordFunction() {
  const auto it = std::find(t_live.begin(), t_live.end(), this);
  if (it == t_live.end()) return;
  if (it + 1 == t_live.end()) {  // the innermost: its parent is in force again
    if (t_state.scope == path_) t_state.scope = parent_;
    t_live.pop_back();
    return;
  }
  // Out of order: the labels begun after this one lose it from their paths.
  const std::string* innermost = t_live.back()->path_;
  const std::string* parent = parent_;
  for (auto j = it + 1; j != t_live.end(); ++j) {
    (*j)->set_parent(parent);
    parent = (*j)->path_;
  }
  if (t_state.scope == innermost) t_state.scope = parent;
  t_live.erase(it);
}

const std::string& current_scope() { return t_state.scope ? *t_state.scope : empty_label(); }

bool in_backward() { return t_state.backward; }

ScopeState current_state() { return t_state; }

ScopeGuard::ScopeGuard(ScopeState s) : saved_(t_state) { t_state = s; }

ScopeGuard::~ScopeGuard() { t_state = saved_; }

}  // namespace adept::profiler
