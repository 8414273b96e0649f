// supported(op, device, dtype): the op table's kernel lists checked against the registry.
#include "adept/supported.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "adept/errors.h"
#include "adept/storage.h"
#include "kernels/op_ids.h"
#include "kernels/registry.h"

namespace adept {
namespace {

struct OpRow {
  DtypeRule dtypes = DtypeRule::All;
  bool grad = false;
  std::string forward, backward;  // space-separated "family" or "family:Code" tokens
};

// Rows of the table, merged by name (gelu has two unary codes, pow a unary and a binary one).
struct Table {
  std::vector<std::string> order;
  std::map<std::string, OpRow> rows;
  std::map<std::string, int> codes;  // "unary:Exp" -> UnaryOp::Exp
  std::map<std::string, std::string> aliases;  // "negative" -> "neg"

  void add(const char* name, DtypeRule d, bool grad, const std::string& fwd, const std::string& bwd) {
    auto [it, fresh] = rows.try_emplace(name);
    if (fresh) {
      order.emplace_back(name);
      it->second.dtypes = d;
    }
    it->second.grad = it->second.grad || grad;
    it->second.forward += " " + fwd;
    it->second.backward += " " + bwd;
  }
};

const Table& table() {
  static const Table t = [] {
    Table r;
    using enum DtypeRule;
    constexpr bool Yes = true, No = false;
    // Backward formulas of the pointwise families are written with binary ops and sum reductions.
#define ADEPT_UNARY_OP(E, NAME, DT, GRAD, BIND, SCOPE, DOC)                        \
  r.codes["unary:" #E] = static_cast<int>(UnaryOp::E);                             \
  r.add(#NAME, DT, GRAD, "unary:" #E, GRAD ? "binary:Mul" : "");
#define ADEPT_BINARY_OP(E, NAME, DT, GRAD, BIND, DOC)                              \
  r.codes["binary:" #E] = static_cast<int>(BinaryOp::E);                           \
  r.add(#NAME, DT, GRAD, "binary:" #E, GRAD ? "binary:Mul reduce:Sum" : "");
#define ADEPT_REDUCE_OP(E, NAME, DT, GRAD, DOC)                                    \
  r.codes["reduce:" #E] = static_cast<int>(ReduceOp::E);                           \
  r.add(#NAME, DT, GRAD, "reduce:" #E, GRAD ? "binary:Mul where" : "");
#define ADEPT_OP(NAME, KIND, DT, GRAD, FWD, BWD) r.add(#NAME, DT, GRAD, FWD, BWD);
#include "kernels/op_table.def"
#define ADEPT_ALIAS(ALIAS, NAME) r.aliases[#ALIAS] = #NAME;
#include "kernels/op_table.def"
    return r;
  }();
  return t;
}

const OpRow& row_of(const std::string& op) {
  const Table& t = table();
  auto alias = t.aliases.find(op);
  auto it = t.rows.find(alias == t.aliases.end() ? op : alias->second);
  ADEPT_CHECK(it != t.rows.end(), ValueError, "supported: '{}' is not an op of the op table", op);
  return it->second;
}

// Appends to `missing` each token of `kernels` that `device` lacks for `dtype`.
void check_kernels(const std::string& op, const std::string& kernels, const Device& device, Dtype dtype,
                   std::vector<std::string>& missing) {
  std::istringstream in("copy fill " + kernels);
  std::string token;
  while (in >> token) {
    const size_t colon = token.find(':');
    const std::string family = token.substr(0, colon);
    const KernelFamily* f = find_kernel_family(family);
    ADEPT_CHECK(f != nullptr, ValueError, "supported: the op table names an unknown kernel family '{}' for '{}'",
                family, op);
    int code = -1;
    if (colon != std::string::npos) {
      auto c = table().codes.find(token);
      ADEPT_CHECK(c != table().codes.end(), ValueError, "supported: unknown op code '{}' for '{}'", token, op);
      code = c->second;
    }
    if (!f->supports(device.type, code, dtype)) {
      std::string entry = fmt::format("{}: {} ({})", op, token, dtype_name(dtype));
      if (std::find(missing.begin(), missing.end(), entry) == missing.end()) missing.push_back(entry);
    }
  }
}

}  // namespace

std::vector<std::string> missing_kernels(const std::vector<std::string>& ops, const Device& device, Dtype dtype,
                                         bool backward) {
  // A device that does not exist (vulkan:7 on a one-GPU machine) is an error, not a "yes": its
  // allocator says so (DeviceError).
  if (!device.is_cpu()) Storage::allocate(1, device);
  std::vector<std::string> missing;
  for (const std::string& op : ops) {
    const OpRow& r = row_of(op);
    if (!accepts(r.dtypes, dtype)) {
      missing.push_back(fmt::format("{}: dtype {} not accepted", op, dtype_name(dtype)));
      continue;
    }
    check_kernels(op, r.forward, device, dtype, missing);
    if (backward && r.grad) check_kernels(op, r.backward, device, dtype, missing);
  }
  return missing;
}

bool supported(const std::string& op, const Device& device, Dtype dtype, bool backward) {
  return missing_kernels({op}, device, dtype, backward).empty();
}

std::vector<std::string> op_table_names() { return table().order; }

}  // namespace adept
