// Sequential, ModuleList and ModuleDict.
#include "adept/nn/modules/container.h"

#include <algorithm>

#include "adept/errors.h"

namespace adept::nn {

std::vector<size_t> slice_indices(size_t n, std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step) {
  ADEPT_CHECK(step != 0, ValueError, "slice step cannot be zero");
  const int64_t len = static_cast<int64_t>(n);
  auto norm = [&](std::optional<int64_t> v, int64_t dflt) {
    if (!v) return dflt;
    int64_t x = *v < 0 ? *v + len : *v;
    if (step > 0) return std::clamp<int64_t>(x, 0, len);
    return std::clamp<int64_t>(x, -1, len - 1);
  };
  int64_t b = norm(start, step > 0 ? 0 : len - 1);
  int64_t e = norm(stop, step > 0 ? len : -1);
  std::vector<size_t> out;
  for (int64_t i = b; step > 0 ? i < e : i > e; i += step) out.push_back(static_cast<size_t>(i));
  return out;
}

namespace {
size_t wrap_index(int64_t index, size_t n, const char* what) {
  int64_t len = static_cast<int64_t>(n);
  ADEPT_CHECK(index >= -len && index < len, IndexError, "index {} is out of range for {} of length {}", index, what, len);
  return static_cast<size_t>(index < 0 ? index + len : index);
}

/// Renames the children "0", "1", ... in order.
void renumber(std::vector<std::pair<std::string, ModulePtr>>& children) {
  for (size_t i = 0; i < children.size(); ++i) children[i].first = std::to_string(i);
}
}  // namespace

// ---------------------------------------------------------------------------------------------
// Sequential

Sequential::Sequential() : Module("Sequential") {}

Sequential::Sequential(const std::vector<ModulePtr>& modules) : Module("Sequential") {
  for (const auto& m : modules) append(m);
}

Sequential::Sequential(const std::vector<std::pair<std::string, ModulePtr>>& named_modules) : Module("Sequential") {
  for (const auto& [name, m] : named_modules) register_module(name, m);
}

Tensor Sequential::forward(const Tensor& input) {
  Tensor x = input;
  for (const auto& [name, m] : children_list())
    if (m) x = m->forward(x);
  return x;
}

size_t Sequential::checked_index(int64_t index) const { return wrap_index(index, children_list().size(), "Sequential"); }

ModulePtr Sequential::operator[](int64_t index) const { return children_list()[checked_index(index)].second; }

std::shared_ptr<Sequential> Sequential::slice(std::optional<int64_t> start, std::optional<int64_t> stop,
                                              int64_t step) const {
  std::vector<std::pair<std::string, ModulePtr>> picked;
  for (size_t i : slice_indices(children_list().size(), start, stop, step)) picked.push_back(children_list()[i]);
  return std::make_shared<Sequential>(picked);
}

void Sequential::set(int64_t index, ModulePtr m) {
  ADEPT_CHECK(m != nullptr, ValueError, "Sequential: cannot store a null module");
  children_list()[checked_index(index)].second = std::move(m);
}

void Sequential::erase(int64_t index) {
  auto& c = children_list();
  c.erase(c.begin() + static_cast<std::ptrdiff_t>(checked_index(index)));
  renumber(c);
}

Sequential& Sequential::append(ModulePtr m) {
  ADEPT_CHECK(m != nullptr, ValueError, "Sequential.append: cannot append a null module");
  register_module(std::to_string(size()), std::move(m));
  return *this;
}

// ---------------------------------------------------------------------------------------------
// ModuleList

ModuleList::ModuleList() : Module("ModuleList") {}

ModuleList::ModuleList(const std::vector<ModulePtr>& modules) : Module("ModuleList") { extend(modules); }

size_t ModuleList::checked_index(int64_t index) const { return wrap_index(index, children_list().size(), "ModuleList"); }

ModulePtr ModuleList::operator[](int64_t index) const { return children_list()[checked_index(index)].second; }

std::shared_ptr<ModuleList> ModuleList::slice(std::optional<int64_t> start, std::optional<int64_t> stop,
                                              int64_t step) const {
  std::vector<ModulePtr> picked;
  for (size_t i : slice_indices(children_list().size(), start, stop, step)) picked.push_back(children_list()[i].second);
  return std::make_shared<ModuleList>(picked);
}

void ModuleList::set(int64_t index, ModulePtr m) {
  ADEPT_CHECK(m != nullptr, ValueError, "ModuleList: cannot store a null module");
  children_list()[checked_index(index)].second = std::move(m);
}

void ModuleList::erase(int64_t index) {
  auto& c = children_list();
  c.erase(c.begin() + static_cast<std::ptrdiff_t>(checked_index(index)));
  renumber(c);
}

ModuleList& ModuleList::append(ModulePtr m) {
  ADEPT_CHECK(m != nullptr, ValueError, "ModuleList.append: cannot append a null module");
  register_module(std::to_string(size()), std::move(m));
  return *this;
}

ModuleList& ModuleList::extend(const std::vector<ModulePtr>& modules) {
  for (const auto& m : modules) append(m);
  return *this;
}

void ModuleList::insert(int64_t index, ModulePtr m) {
  ADEPT_CHECK(m != nullptr, ValueError, "ModuleList.insert: cannot insert a null module");
  auto& c = children_list();
  int64_t n = size();
  int64_t pos = std::clamp<int64_t>(index < 0 ? index + n : index, 0, n);
  c.insert(c.begin() + pos, {"", std::move(m)});
  renumber(c);
}

// ---------------------------------------------------------------------------------------------
// ModuleDict

ModuleDict::ModuleDict() : Module("ModuleDict") {}

ModuleDict::ModuleDict(const std::vector<std::pair<std::string, ModulePtr>>& modules) : Module("ModuleDict") {
  update(modules);
}

void ModuleDict::set(const std::string& key, ModulePtr m) { register_module(key, std::move(m)); }

ModulePtr ModuleDict::pop(const std::string& key) {
  ModulePtr m = child(key);
  unregister(key);
  return m;
}

void ModuleDict::clear() { children_list().clear(); }

void ModuleDict::update(const std::vector<std::pair<std::string, ModulePtr>>& modules) {
  for (const auto& [k, m] : modules) set(k, m);
}

std::vector<std::string> ModuleDict::keys() const {
  std::vector<std::string> out;
  for (const auto& [k, m] : children_list()) out.push_back(k);
  return out;
}

std::vector<ModulePtr> ModuleDict::values() const {
  std::vector<ModulePtr> out;
  for (const auto& [k, m] : children_list()) out.push_back(m);
  return out;
}

}  // namespace adept::nn
