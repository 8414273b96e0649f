// TensorDict: tensors by name in insertion order, the unit a Dataset returns (a sample) and a
// DataLoader yields (a batch), and what worker processes send through shared memory.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "adept/tensor.h"

namespace adept::data {

class TensorDict {
 public:
  using Item = std::pair<std::string, Tensor>;
  TensorDict() = default;
  TensorDict(std::initializer_list<Item> items);

  /// Adds `name`, or replaces the tensor already stored under it (keeping its position).
  void set(std::string name, Tensor t);
  /// The tensor under `name`; IndexError naming the missing key and the keys present.
  const Tensor& at(std::string_view name) const;
  Tensor& at(std::string_view name);
  bool contains(std::string_view name) const;
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  std::vector<std::string> keys() const;

  auto begin() { return items_.begin(); }
  auto end() { return items_.end(); }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }

 private:
  std::vector<Item> items_;
};

/// One example of a Dataset (e.g. {"img": (3, H, W) uint8, "cls": (n, 1), "bboxes": (n, 4)}).
using Sample = TensorDict;
/// Samples collated by a DataLoader (e.g. {"img": (B, 3, H, W), "batch_idx": (n,) ...}).
using Batch = TensorDict;

}  // namespace adept::data
