// TensorDict: an insertion-ordered name -> tensor list (linear lookup: a sample has a handful of keys).
#include "adept/data/tensor_dict.h"

#include <algorithm>

#include "adept/errors.h"

namespace adept::data {

TensorDict::TensorDict(std::initializer_list<Item> items) {
  for (const auto& [name, t] : items) set(name, t);
}

void TensorDict::set(std::string name, Tensor t) {
  auto it = std::find_if(items_.begin(), items_.end(), [&](const Item& i) { return i.first == name; });
  if (it != items_.end()) it->second = std::move(t);
  else items_.emplace_back(std::move(name), std::move(t));
}

const Tensor& TensorDict::at(std::string_view name) const {
  for (const auto& [k, t] : items_)
    if (k == name) return t;
  throw IndexError(fmt::format("TensorDict: no key '{}' (keys: {})", name, fmt::join(keys(), ", ")));
}

Tensor& TensorDict::at(std::string_view name) {
  return const_cast<Tensor&>(static_cast<const TensorDict&>(*this).at(name));
}

bool TensorDict::contains(std::string_view name) const {
  return std::any_of(items_.begin(), items_.end(), [&](const Item& i) { return i.first == name; });
}

std::vector<std::string> TensorDict::keys() const {
  std::vector<std::string> out;
  for (const auto& [k, t] : items_) out.push_back(k);
  return out;
}

}  // namespace adept::data
