// Labels for profiles (torch.profiler.record_function): work recorded while a RecordFunction lives is
// attributed to its name, nested under the enclosing ones ("model.2 C3k2/m.0 Bottleneck"). Autograd
// nodes remember the label under which they were created, so their backward work is attributed to the
// same layer, marked as backward. Backends that profile (vulkan_profiler_start) read the calling
// thread's label for every kernel they record. Labels are per thread and cost one string join and one
// lookup in a global table when a RecordFunction starts; nothing when it ends.
#pragma once
#include <string>

namespace adept::profiler {

/// RAII scope label. `name` is appended to the enclosing label with '/'. Not copyable or movable.
/// Labels that end out of order (Python generators, ExitStack) leave the others' paths without them.
class RecordFunction {
 public:
  explicit RecordFunction(const std::string& name);
  ~RecordFunction();
  RecordFunction(const RecordFunction&) = delete;
  RecordFunction& operator=(const RecordFunction&) = delete;

 private:
  void set_parent(const std::string* parent);
  std::string name_;
  const std::string* parent_;  // the label in force when this one began (interned, nullptr = "")
  const std::string* path_;    // parent + '/' + name (interned)
};

/// The calling thread's label path ("" outside every RecordFunction). The reference stays valid for
/// the life of the process (labels are interned).
const std::string& current_scope();
/// True while the autograd engine runs a backward function on the calling thread.
bool in_backward();

/// The calling thread's labelling state: the autograd engine captures it when a node is created and
/// restores it while the node's backward runs (ScopeGuard).
struct ScopeState {
  const std::string* scope = nullptr;  // interned label, nullptr = ""
  bool backward = false;
};
ScopeState current_state();
/// Sets the calling thread's state for its lifetime and restores the previous one afterwards.
class ScopeGuard {
 public:
  explicit ScopeGuard(ScopeState s);
  ~ScopeGuard();
  ScopeGuard(const ScopeGuard&) = delete;
  ScopeGuard& operator=(const ScopeGuard&) = delete;

 private:
  ScopeState saved_;
};

}  // namespace adept::profiler
