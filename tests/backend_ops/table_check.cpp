// --check-table (see table_check.h): the cases against the op table, and the runs against
// adept::supported().
#include "table_check.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "adept/supported.h"

namespace adept::backend_ops {
namespace {

// Case names that are not rows of the op table: Tensor methods, the indexing operators and the
// in-place forms (which dispatch to their out-of-place row's kernels). Every entry must have a case.
const std::set<std::string>& method_names() {
  static const std::set<std::string> names = {
      "__getitem__", "__setitem__", "clone", "contiguous", "from_blob_copy", "t", "to", "fill_", "zero_",
      // in-place forms
      "add_", "sub_", "mul_", "div_", "pow_", "clamp_", "neg_", "exp_", "sqrt_", "relu_", "sigmoid_", "masked_fill_",
      "index_add_", "index_put_", "scatter_", "scatter_add_"};
  return names;
}

const std::set<std::string>& table_names() {
  static const std::set<std::string> names = [] {
    const std::vector<std::string> v = op_table_names();
    return std::set<std::string>(v.begin(), v.end());
  }();
  return names;
}

// Whether a tensor of `dtype` can be moved to `device` at all (the move raises otherwise, before any op).
bool lives_on(Device device, Dtype dtype) {
  static std::map<std::pair<std::string, Dtype>, bool> known;
  auto [it, fresh] = known.try_emplace({device_name(device), dtype}, true);
  if (fresh && !device.is_cpu()) {
    try {
      (void)zeros({1}, TensorOptions(dtype)).to(device);
    } catch (const NotImplementedForDevice&) {
      it->second = false;
    }
  }
  return it->second;
}

void print_names(const char* what, const std::vector<std::string>& names) {
  if (!names.empty()) fmt::print("check-table: {} ({}): {}\n", what, names.size(), fmt::join(names, " "));
}

}  // namespace

int check_table_coverage(const std::vector<Case>& cases) {
  std::set<std::string> case_ops;
  for (const Case& c : cases) case_ops.insert(c.op);
  std::vector<std::string> no_case, unknown, stale, redundant;
  for (const std::string& op : op_table_names())
    if (!case_ops.count(op)) no_case.push_back(op);
  for (const std::string& op : case_ops)
    if (!table_names().count(op) && !method_names().count(op)) unknown.push_back(op);
  for (const std::string& op : method_names()) {
    if (!case_ops.count(op)) stale.push_back(op);
    if (table_names().count(op)) redundant.push_back(op);
  }
  print_names("ops of the op table without a case", no_case);
  print_names("case ops neither in the op table nor in table_check.cpp's method list", unknown);
  print_names("method list entries without a case", stale);
  print_names("method list entries that are op table rows", redundant);
  const int problems = static_cast<int>(no_case.size() + unknown.size() + stale.size() + redundant.size());
  fmt::print("check-table: {} table ops, {} method names, {} case ops: {}\n", table_names().size(), method_names().size(),
             case_ops.size(), problems ? "MISMATCH" : "every table op has a case and every case op is known");
  return problems;
}

void RegistryCheck::observe(const Case& c, const Result& r, Device device) {
  if (r.mode != "forward" && r.mode != "backward") return;
  if (r.status != Status::Pass && r.status != Status::NotImpl) return;  // skipped, or failed (reported elsewhere)
  if (!table_names().count(c.op)) return;                               // method-style names
  const bool backward = r.mode == "backward";
  const bool says = supported(c.op, device, r.dtype, backward);
  if (r.status == Status::Pass) {
    if (says) ++agreed_;
    else add(ran_anyway_, r, "");
    return;
  }
  if (r.input_not_on_device) {      // the move of an input raised before the op ran
    if (lives_on(device, r.dtype))  // a fixed-dtype input, not the case dtype: supported() cannot know
      ++not_comparable_;
    else if (says)
      add(unmovable_, r, r.message);
    else
      ++agreed_;
    return;
  }
  if (says) add(missing_, r, r.message);
  else ++agreed_;
}

void RegistryCheck::add(ByOp& to, const Result& r, const std::string& detail) {
  Runs& runs = to[r.op][r.backend + " " + r.mode];
  runs.dtypes.insert(dtype_name(r.dtype));
  if (runs.count++ == 0) runs.example = detail.empty() ? r.label : fmt::format("{}: {}", r.label, detail);
}

int RegistryCheck::print(const ByOp& d, const char* title) {
  int n = 0;
  for (const auto& [op, where] : d)
    for (const auto& [w, runs] : where) n += runs.count;
  if (n == 0) return 0;
  fmt::print("check-table: {}: {} runs of {} ops\n", title, n, d.size());
  for (const auto& [op, where] : d)
    for (const auto& [w, runs] : where)
      fmt::print("  {:<24} {:<16} {} ({} runs), e.g. {}\n", op, w, fmt::join(runs.dtypes, " "), runs.count, runs.example);
  return n;
}

int RegistryCheck::report() const {
  fmt::print("check-table: supported() agrees with {} runs; {} runs not comparable (an input of a fixed dtype that "
             "cannot live on the device)\n",
             agreed_, not_comparable_);
  const int fails = print(missing_, "FAIL supported() says true but the run lacked a kernel") +
                    print(unmovable_, "FAIL supported() says true for a dtype that cannot live on the device");
  print(ran_anyway_, "warning: supported() says false but the run passed");
  return fails;
}

}  // namespace adept::backend_ops
