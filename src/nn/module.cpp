// nn::Module: registration, traversal, modes, in-place device/dtype moves, state_dict and repr.
#include "adept/nn/module.h"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "adept/autograd.h"
#include "adept/errors.h"
#include "adept/set_data.h"

namespace adept::nn {

namespace {

template <class Vec>
auto find_named(Vec& v, const std::string& name) {
  return std::find_if(v.begin(), v.end(), [&](const auto& e) {
    if constexpr (requires { e.name; }) return e.name == name;
    else return e.first == name;
  });
}

std::string join_name(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

std::string shape_str(const Shape& s) { return fmt::format("[{}]", fmt::join(s, ", ")); }

/// Indents every line but the first by `n` spaces (torch's _addindent).
std::string add_indent(const std::string& s, int n) {
  std::string out;
  std::string pad(n, ' ');
  for (char c : s) {
    out += c;
    if (c == '\n') out += pad;
  }
  return out;
}

}  // namespace

Module::Module(std::string type_name) : type_name_(std::move(type_name)) {}

Tensor Module::forward(const Tensor&) {
  throw Error(fmt::format("Module [{}] is missing the required \"forward\" function (or has no forward "
                          "taking a single tensor)", type_name()));
}

// ---------------------------------------------------------------------------------------------
// registration

void Module::check_new_name(const std::string& name, const char* kind) const {
  ADEPT_CHECK(!name.empty(), ValueError, "{} name can't be empty string \"\" (module {})", kind, type_name());
  ADEPT_CHECK(name.find('.') == std::string::npos, ValueError, "{} name can't contain \".\", got \"{}\" (module {})",
              kind, name, type_name());
  const std::string k = kind;
  bool taken = (k != "parameter" && has_parameter(name)) || (k != "buffer" && has_buffer(name)) ||
               (k != "module" && has_child(name));
  ADEPT_CHECK(!taken, ValueError, "attribute '{}' already exists in {} (cannot register it as a {})", name,
              type_name(), kind);
}

Tensor Parameter(const Tensor& t, bool requires_grad) {
  Tensor p = t.detach();
  if (requires_grad) p.requires_grad_(true);
  return p;
}

Tensor Module::register_parameter(const std::string& name, Tensor t, bool requires_grad) {
  check_new_name(name, "parameter");
  if (t.defined() && !(t.is_leaf() && t.requires_grad() == requires_grad)) t = Parameter(t, requires_grad);
  auto it = find_named(parameters_, name);
  if (it != parameters_.end()) it->tensor = t;
  else parameters_.push_back({name, t, true});
  return t;
}

Tensor Module::register_buffer(const std::string& name, Tensor t, bool persistent) {
  check_new_name(name, "buffer");
  auto it = find_named(buffers_, name);
  if (it != buffers_.end()) *it = {name, t, persistent};
  else buffers_.push_back({name, t, persistent});
  return t;
}

void Module::register_module_impl(const std::string& name, std::shared_ptr<Module> m) {
  check_new_name(name, "module");
  auto it = find_named(children_, name);
  if (it != children_.end()) it->second = std::move(m);
  else children_.emplace_back(name, std::move(m));
}

void Module::replace_module(const std::string& name, std::shared_ptr<Module> m) {
  auto it = find_named(children_, name);
  ADEPT_CHECK(it != children_.end(), ValueError, "{} has no child module '{}' to replace", type_name(), name);
  it->second = std::move(m);
}

bool Module::unregister(const std::string& name) {
  if (auto it = find_named(parameters_, name); it != parameters_.end()) { parameters_.erase(it); return true; }
  if (auto it = find_named(buffers_, name); it != buffers_.end()) { buffers_.erase(it); return true; }
  if (auto it = find_named(children_, name); it != children_.end()) { children_.erase(it); return true; }
  return false;
}

// ---------------------------------------------------------------------------------------------
// lookup

Tensor& Module::parameter(const std::string& name) {
  return const_cast<Tensor&>(static_cast<const Module*>(this)->parameter(name));
}
const Tensor& Module::parameter(const std::string& name) const {
  auto it = find_named(parameters_, name);
  ADEPT_CHECK(it != parameters_.end(), ValueError, "{} has no parameter '{}'", type_name(), name);
  return it->tensor;
}
Tensor& Module::buffer(const std::string& name) {
  return const_cast<Tensor&>(static_cast<const Module*>(this)->buffer(name));
}
const Tensor& Module::buffer(const std::string& name) const {
  auto it = find_named(buffers_, name);
  ADEPT_CHECK(it != buffers_.end(), ValueError, "{} has no buffer '{}'", type_name(), name);
  return it->tensor;
}
std::shared_ptr<Module> Module::child(const std::string& name) const {
  auto it = find_named(children_, name);
  ADEPT_CHECK(it != children_.end(), ValueError, "{} has no child module '{}'", type_name(), name);
  return it->second;
}
bool Module::has_parameter(const std::string& name) const { return find_named(parameters_, name) != parameters_.end(); }
bool Module::has_buffer(const std::string& name) const { return find_named(buffers_, name) != buffers_.end(); }
bool Module::has_child(const std::string& name) const { return find_named(children_, name) != children_.end(); }
bool Module::is_persistent_buffer(const std::string& name) const {
  auto it = find_named(buffers_, name);
  return it != buffers_.end() && it->persistent;
}

// ---------------------------------------------------------------------------------------------
// traversal

void Module::collect_named_tensors(bool params, const std::string& prefix, bool recurse,
                                   std::vector<std::pair<std::string, Tensor>>& out,
                                   std::vector<const TensorImpl*>& seen) const {
  for (const Slot& s : params ? parameters_ : buffers_) {
    if (!s.tensor.defined()) continue;
    if (std::find(seen.begin(), seen.end(), s.tensor.impl()) != seen.end()) continue;
    seen.push_back(s.tensor.impl());
    out.emplace_back(join_name(prefix, s.name), s.tensor);
  }
  if (!recurse) return;
  std::vector<const Module*> visited;
  for (const auto& [name, m] : children_) {
    if (!m || std::find(visited.begin(), visited.end(), m.get()) != visited.end()) continue;
    visited.push_back(m.get());
    m->collect_named_tensors(params, join_name(prefix, name), true, out, seen);
  }
}

std::vector<std::pair<std::string, Tensor>> Module::named_parameters(const std::string& prefix, bool recurse) const {
  std::vector<std::pair<std::string, Tensor>> out;
  std::vector<const TensorImpl*> seen;
  collect_named_tensors(true, prefix, recurse, out, seen);
  return out;
}

std::vector<std::pair<std::string, Tensor>> Module::named_buffers(const std::string& prefix, bool recurse) const {
  std::vector<std::pair<std::string, Tensor>> out;
  std::vector<const TensorImpl*> seen;
  collect_named_tensors(false, prefix, recurse, out, seen);
  return out;
}

std::vector<Tensor> Module::parameters(bool recurse) const {
  std::vector<Tensor> out;
  for (auto& [n, t] : named_parameters("", recurse)) out.push_back(t);
  return out;
}

std::vector<Tensor> Module::buffers(bool recurse) const {
  std::vector<Tensor> out;
  for (auto& [n, t] : named_buffers("", recurse)) out.push_back(t);
  return out;
}

std::vector<std::pair<std::string, std::shared_ptr<Module>>> Module::named_children() const {
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> out;
  for (const auto& [name, m] : children_) {
    if (!m) continue;
    bool dup = std::any_of(out.begin(), out.end(), [&](const auto& e) { return e.second == m; });
    if (!dup) out.emplace_back(name, m);
  }
  return out;
}

std::vector<std::shared_ptr<Module>> Module::children() const {
  std::vector<std::shared_ptr<Module>> out;
  for (auto& [n, m] : named_children()) out.push_back(m);
  return out;
}

void Module::collect_named_modules(const std::string& prefix, std::shared_ptr<Module> self,
                                   std::vector<std::pair<std::string, std::shared_ptr<Module>>>& out,
                                   std::vector<const Module*>& seen) {
  if (std::find(seen.begin(), seen.end(), this) != seen.end()) return;
  seen.push_back(this);
  out.emplace_back(prefix, std::move(self));
  for (const auto& [name, m] : children_) {
    if (m) m->collect_named_modules(join_name(prefix, name), m, out, seen);
  }
}

std::vector<std::pair<std::string, std::shared_ptr<Module>>> Module::named_modules(const std::string& prefix) {
  std::shared_ptr<Module> self = weak_from_this().lock();
  if (!self) self = std::shared_ptr<Module>(std::shared_ptr<Module>(), this);  // not owned by a shared_ptr
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> out;
  std::vector<const Module*> seen;
  collect_named_modules(prefix, self, out, seen);
  return out;
}

std::vector<std::shared_ptr<Module>> Module::modules() {
  std::vector<std::shared_ptr<Module>> out;
  for (auto& [n, m] : named_modules()) out.push_back(m);
  return out;
}

Module& Module::apply(const std::function<void(Module&)>& fn) {
  for (auto& m : children()) m->apply(fn);
  fn(*this);
  return *this;
}

// ---------------------------------------------------------------------------------------------
// modes and state

Module& Module::train(bool mode) {
  training_ = mode;
  for (auto& m : children()) m->train(mode);
  return *this;
}

Module& Module::requires_grad_(bool requires_grad) {
  for (Tensor& p : parameters()) p.requires_grad_(requires_grad);
  return *this;
}

void Module::zero_grad(bool set_to_none) {
  for (Tensor& p : parameters()) {
    Tensor g = p.grad();
    if (!g.defined()) continue;
    if (set_to_none) {
      p.set_grad(Tensor());
    } else {
      NoGradGuard ng;
      Tensor z = g.detach();
      z.zero_();
      p.set_grad(z);
    }
  }
}

void Module::convert(const std::optional<Device>& device, std::optional<Dtype> dtype) {
  auto target = [&](const Tensor& t) {
    Dtype d = (dtype && t.is_floating_point()) ? *dtype : t.dtype();
    return t.to(device.value_or(t.device()), d);
  };
  NoGradGuard ng;
  for (auto& m : modules()) {
    for (auto* slots : {&m->parameters_, &m->buffers_}) {
      for (Slot& s : *slots) {
        if (!s.tensor.defined()) continue;
        Tensor g = s.tensor.grad();
        Tensor moved = target(s.tensor);
        if (!moved.is_same(s.tensor)) set_data(s.tensor, moved);
        if (g.defined()) {
          Tensor gm = target(g);
          if (!gm.is_same(g)) set_data(g, gm);
        }
      }
    }
  }
  for (auto& m : modules()) m->on_converted(device, dtype);
}

Module& Module::to(const Device& device) {
  convert(device, std::nullopt);
  return *this;
}

Module& Module::to(Dtype dtype) {
  ADEPT_CHECK(is_floating_point(dtype), DtypeError,
              "nn.Module.to only accepts floating point dtypes, but got desired dtype={}", dtype_name(dtype));
  convert(std::nullopt, dtype);
  return *this;
}

Module& Module::to(const Device& device, Dtype dtype) {
  ADEPT_CHECK(is_floating_point(dtype), DtypeError,
              "nn.Module.to only accepts floating point dtypes, but got desired dtype={}", dtype_name(dtype));
  convert(device, dtype);
  return *this;
}

void Module::collect_state(const std::string& prefix, StateDict& out) const {
  for (const Slot& s : parameters_)
    if (s.tensor.defined()) out.emplace_back(prefix + s.name, s.tensor.detach());
  for (const Slot& s : buffers_)
    if (s.tensor.defined() && s.persistent) out.emplace_back(prefix + s.name, s.tensor.detach());
  for (const auto& [name, m] : children_)
    if (m) m->collect_state(prefix + name + ".", out);
}

StateDict Module::state_dict(const std::string& prefix) const {
  StateDict out;
  collect_state(prefix.empty() ? "" : prefix + ".", out);
  return out;
}

LoadStateDictResult Module::load_state_dict(const StateDict& state, bool strict) {
  // The module's own entries (including ones repeated under several names), as references.
  StateDict own;
  collect_state("", own);
  LoadStateDictResult result;
  std::vector<std::string> mismatches;
  std::vector<std::pair<Tensor, Tensor>> copies;  // (destination, source)
  for (const auto& [key, dst] : own) {
    auto it = std::find_if(state.begin(), state.end(), [&](const auto& e) { return e.first == key; });
    if (it == state.end()) {
      result.missing_keys.push_back(key);
      continue;
    }
    const Tensor& src = it->second;
    ADEPT_CHECK(src.defined(), ValueError, "load_state_dict: entry '{}' of the state dict is an undefined tensor", key);
    if (src.sizes() != dst.sizes()) {
      mismatches.push_back(fmt::format("size mismatch for {}: copying a param with shape {} from checkpoint, the "
                                       "shape in current model is {}.", key, shape_str(src.sizes()),
                                       shape_str(dst.sizes())));
      continue;
    }
    copies.emplace_back(dst, src);
  }
  for (const auto& [key, t] : state) {
    bool known = std::any_of(own.begin(), own.end(), [&](const auto& e) { return e.first == key; });
    if (!known) result.unexpected_keys.push_back(key);
  }
  std::vector<std::string> errors;
  auto quoted = [](const std::vector<std::string>& keys) {
    std::vector<std::string> q;
    for (const auto& k : keys) q.push_back("\"" + k + "\"");
    return fmt::format("{}", fmt::join(q, ", "));
  };
  if (strict && !result.missing_keys.empty())
    errors.push_back(fmt::format("Missing key(s) in state_dict: {}. ", quoted(result.missing_keys)));
  if (strict && !result.unexpected_keys.empty())
    errors.push_back(fmt::format("Unexpected key(s) in state_dict: {}. ", quoted(result.unexpected_keys)));
  errors.insert(errors.end(), mismatches.begin(), mismatches.end());
  if (!errors.empty())
    throw Error(fmt::format("Error(s) in loading state_dict for {}:\n\t{}", type_name(), fmt::join(errors, "\n\t")));
  NoGradGuard ng;
  for (auto& [dst, src] : copies) dst.copy_(src);
  return result;
}

// ---------------------------------------------------------------------------------------------
// repr

std::string Module::repr() const {
  std::vector<std::string> lines;
  std::string extra = extra_repr();
  if (!extra.empty()) {
    std::stringstream ss(extra);
    std::string line;
    while (std::getline(ss, line)) lines.push_back(line);
  }
  size_t n_extra = lines.size();
  for (const auto& [name, m] : children_) {
    std::string child = m ? add_indent(m->repr(), 2) : "None";
    lines.push_back("(" + name + "): " + child);
  }
  std::string out = type_name() + "(";
  if (!lines.empty()) {
    if (n_extra == 1 && lines.size() == 1) out += lines[0];
    else out += "\n  " + fmt::format("{}", fmt::join(lines, "\n  ")) + "\n";
  }
  return out + ")";
}

}  // namespace adept::nn
