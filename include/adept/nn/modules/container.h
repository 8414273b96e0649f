// Module containers: Sequential (chains its children), ModuleList and ModuleDict (hold modules so
// that they are registered), as torch.nn.Sequential / ModuleList / ModuleDict.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "adept/nn/module.h"

namespace adept::nn {

using ModulePtr = std::shared_ptr<Module>;

/// Children named "0", "1", ... (or given names); forward(x) feeds x through them in order
/// (an empty Sequential returns its input). Indexing accepts negative indices (IndexError when out
/// of range); slice() returns a new Sequential sharing the selected children under their names.
class Sequential : public Module {
 public:
  Sequential();
  explicit Sequential(const std::vector<ModulePtr>& modules);
  /// Named children in the given order (torch's Sequential(OrderedDict(...))).
  explicit Sequential(const std::vector<std::pair<std::string, ModulePtr>>& named_modules);

  Tensor forward(const Tensor& input) override;
  int64_t size() const { return static_cast<int64_t>(children_list().size()); }
  ModulePtr operator[](int64_t index) const;
  /// Python-style slice [start:stop:step] (step != 0, ValueError otherwise).
  std::shared_ptr<Sequential> slice(std::optional<int64_t> start, std::optional<int64_t> stop,
                                    int64_t step = 1) const;
  /// Replaces the module at `index` (negative allowed), keeping its name.
  void set(int64_t index, ModulePtr m);
  /// Removes the module at `index` and renames the remaining children "0", "1", ... in order, even
  /// ones given other names (as torch 1.13's __delitem__).
  void erase(int64_t index);
  /// Appends under the name str(size()).
  Sequential& append(ModulePtr m);

 protected:
  size_t checked_index(int64_t index) const;
};

/// A list of registered modules named "0", "1", ... (renumbered on insert/erase). No forward.
class ModuleList : public Module {
 public:
  ModuleList();
  explicit ModuleList(const std::vector<ModulePtr>& modules);

  int64_t size() const { return static_cast<int64_t>(children_list().size()); }
  ModulePtr operator[](int64_t index) const;
  std::shared_ptr<ModuleList> slice(std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step = 1) const;
  void set(int64_t index, ModulePtr m);
  void erase(int64_t index);
  ModuleList& append(ModulePtr m);
  ModuleList& extend(const std::vector<ModulePtr>& modules);
  /// Inserts before `index` (Python list.insert semantics: clamped, negative from the end).
  void insert(int64_t index, ModulePtr m);

 private:
  size_t checked_index(int64_t index) const;
};

/// Modules by string key in insertion order (torch.nn.ModuleDict). No forward.
class ModuleDict : public Module {
 public:
  ModuleDict();
  explicit ModuleDict(const std::vector<std::pair<std::string, ModulePtr>>& modules);

  int64_t size() const { return static_cast<int64_t>(children_list().size()); }
  bool contains(const std::string& key) const { return has_child(key); }
  /// The module under `key` (IndexError-like ValueError naming the key when absent).
  ModulePtr operator[](const std::string& key) const { return child(key); }
  /// Inserts or replaces (a replaced key keeps its position).
  void set(const std::string& key, ModulePtr m);
  /// Removes and returns the module under `key`.
  ModulePtr pop(const std::string& key);
  void clear();
  void update(const std::vector<std::pair<std::string, ModulePtr>>& modules);
  std::vector<std::string> keys() const;
  std::vector<ModulePtr> values() const;
  std::vector<std::pair<std::string, ModulePtr>> items() const { return children_list(); }
};

/// Python-style slice of `n` positions: the selected indices in order.
std::vector<size_t> slice_indices(size_t n, std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step);

}  // namespace adept::nn
