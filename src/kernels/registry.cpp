// The registry of kernel families by name, and the names of op codes.
#include "kernels/registry.h"

#include <iterator>
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
  const std::string suffix = "_kernel";
  if (name_.size() > suffix.size() && name_.compare(name_.size() - suffix.size(), suffix.size(), suffix) == 0) {
    name_.resize(name_.size() - suffix.size());
  }
  families()[name_] = this;
}

const KernelFamily* find_kernel_family(const std::string& name) {
  auto it = families().find(name);
  return it == families().end() ? nullptr : it->second;
}

bool accepts(DtypeRule r, Dtype d) {
  switch (r) {
    case DtypeRule::All: return true;
    case DtypeRule::Numeric: return d != kBool;
    case DtypeRule::Floating: return is_floating_point(d);
    case DtypeRule::Integral: return !is_floating_point(d);
    case DtypeRule::Signed: return d == kInt32 || d == kInt64;
  }
  return false;
}

DtypeRule dtype_rule(UnaryOp op) {
  using enum DtypeRule;
  static const DtypeRule rules[] = {
#define ADEPT_UNARY_OP(E, NAME, DTYPES, ...) DTYPES,
#include "kernels/op_table.def"
  };
  static_assert(std::size(rules) == kNumUnaryOps, "one dtype rule per unary op");
  return rules[static_cast<int>(op)];
}

const char* op_name(UnaryOp op) {
  static const char* const names[] = {
#define ADEPT_UNARY_OP(E, NAME, ...) #NAME,
#include "kernels/op_table.def"
  };
  static_assert(std::size(names) == kNumUnaryOps, "one name per op code");
  return names[static_cast<int>(op)];
}
const char* op_name(BinaryOp op) {
  static const char* const names[] = {
#define ADEPT_BINARY_OP(E, NAME, ...) #NAME,
#include "kernels/op_table.def"
  };
  static_assert(std::size(names) == kNumBinaryOps, "one name per op code");
  return names[static_cast<int>(op)];
}
const char* op_name(ReduceOp op) {
  static const char* const names[] = {
#define ADEPT_REDUCE_OP(E, NAME, ...) #NAME,
#include "kernels/op_table.def"
  };
  static_assert(std::size(names) == kNumReduceOps, "one name per op code");
  return names[static_cast<int>(op)];
}

}  // namespace adept
