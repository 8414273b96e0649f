// The registry of kernel families by name, and the names of op codes.
#include "kernels/registry.h"

#include <map>

#include "kernels/op_ids.h"

namespace adept {
namespace {
std::map<std::string, const KernelFamily*>& families() {
  static std::map<std::string, const KernelFamily*> m;
  return m;
}
}  // namespace

KernelFamily::KernelFamily(const char* name) : name_(name) {
  std::string key(name);
  const std::string suffix = "_kernel";
  if (key.size() > suffix.size() && key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0) {
    key.resize(key.size() - suffix.size());
  }
  families()[key] = this;
}

const KernelFamily* find_kernel_family(const std::string& name) {
  auto it = families().find(name);
  return it == families().end() ? nullptr : it->second;
}

const char* op_name(UnaryOp op) {
  static const char* const names[] = {
#define ADEPT_UNARY_OP(E, NAME, ...) #NAME,
#include "kernels/op_table.def"
  };
  return names[static_cast<int>(op)];
}
const char* op_name(BinaryOp op) {
  static const char* const names[] = {
#define ADEPT_BINARY_OP(E, NAME, ...) #NAME,
#include "kernels/op_table.def"
  };
  return names[static_cast<int>(op)];
}
const char* op_name(ReduceOp op) {
  static const char* const names[] = {
#define ADEPT_REDUCE_OP(E, NAME, ...) #NAME,
#include "kernels/op_table.def"
  };
  return names[static_cast<int>(op)];
}

}  // namespace adept
