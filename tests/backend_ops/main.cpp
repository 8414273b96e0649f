// adept_test_backend_ops: runs every op of the public API as small cases on every compiled backend
// and checks each against the CPU, in the manner of ggml's test-backend-ops.
//
// What it does, per case (an op, its inputs, dtypes and layouts; see harness.h) and backend:
//   forward   inputs are drawn once on the CPU from a seeded generator, moved to the backend
//             (`.to(device)`) and put in the layout under test (transposed, permuted, stepped
//             slice, expanded), the op runs there and its results come back with `.cpu()`; they
//             must equal the CPU's result for the same inputs: dtype, shape, values within the
//             dtype's tolerance (ints and bools exactly, NaN where NaN). The CPU row itself is
//             checked against the op on contiguous float64 copies of the inputs (rounded back to
//             the dtype) for floating inputs, contiguous copies otherwise, so it checks layouts
//             and the 16-bit paths.
//   backward  the same with requires_grad on the floating inputs: backward(outputs, g) for fixed
//             random upstream gradients g (loss = sum_i sum(out_i * g_i)); every input gradient is
//             compared with the reference's.
//   gradcheck CPU, float64: autograd's vector-Jacobian product vs central finite differences
//             (eps 1e-6, at most 256 elements per input). Not under AddressSanitizer.
//   perf      each case with a perf size, timed after warmup: GB/s of inputs + outputs, or
//             GFLOP/s where the case counts FLOPs. Not part of CI.
// An op without a kernel for the device (NotImplementedForDevice, also when an input's dtype cannot
// live there) is recorded as n/i, never as a failure; anything else thrown, or a mismatch, fails
// with a message naming the case, mode, backend, dtype, layout, max errors and the first bad index.
//
// Options: --backend cpu|vulkan|all   --mode forward|backward|gradcheck|perf (repeatable; default
// forward and backward)   --op REGEX (searched in op names and labels)   --coverage FILE (Markdown
// table: one row per op, one column per backend and mode, no timings)   --list (op names covered)
// --check-table (table_check.h: every op of the op table has a case, every case op is in the table
// or in table_check.cpp's method list, and every forward/backward run agrees with
// adept::supported(): a run that lacks a kernel where supported() says true fails, one that passes
// where it says false is a warning)   -v (every run). Exit code 1 on any failure; 77 when the only
// requested work cannot run here (no Vulkan device, gradcheck under ASan).
//
// Adding a case: in the cases_*.cpp file of its family, append a Case made with make_case(op,
// variant, inputs, fn, dtypes) (or unary_proto/binary_proto + add_family for the standard shape
// sets). `op` is the public name as PyTorch spells it; inputs use the in/fixed/mask/idx/uidx/range/
// anchor helpers; fn takes the input tensors and returns the outputs; adjust with .no_grad(),
// .with_tol(), .with_device_tol(), .with_compare(), .perf(). Creation ops take an anchor() input
// for the device and dtype. An op name that is not a row of src/kernels/op_table.def (a Tensor
// method, an in-place form) goes into table_check.cpp's method list, or --check-table fails.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "adept/vulkan.h"
#include "runner.h"
#include "table_check.h"

using namespace adept;
using namespace adept::backend_ops;

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAsan = true;
#else
constexpr bool kAsan = false;
#endif
#else
constexpr bool kAsan = false;
#endif

struct Options {
  std::string backend = "all";
  std::vector<std::string> modes;
  std::string op_regex;
  std::string coverage_file;
  bool list = false;
  bool check_table = false;
  bool verbose = false;
};

[[noreturn]] void usage(const char* msg, int exit_code = 2) {
  std::fprintf(stderr,
               "%s\nusage: adept_test_backend_ops [--backend cpu|vulkan|all] [--mode forward|backward|gradcheck|perf]"
               " [--op REGEX] [--coverage FILE] [--list] [--check-table] [-v]\n",
               msg);
  std::exit(exit_code);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(("missing value after " + a).c_str());
      return argv[++i];
    };
    if (a == "--backend") o.backend = value();
    else if (a == "--mode") o.modes.push_back(value());
    else if (a == "--op") o.op_regex = value();
    else if (a == "--coverage") o.coverage_file = value();
    else if (a == "--list") o.list = true;
    else if (a == "--check-table") o.check_table = true;
    else if (a == "-v" || a == "--verbose") o.verbose = true;
    else if (a == "-h" || a == "--help") usage("adept_test_backend_ops: every op on every backend against the CPU", 0);
    else usage(("unknown option " + a).c_str());
  }
  if (o.modes.empty()) o.modes = {"forward", "backward"};
  for (const std::string& m : o.modes)
    if (m != "forward" && m != "backward" && m != "gradcheck" && m != "perf") usage(("unknown mode " + m).c_str());
  if (o.backend != "cpu" && o.backend != "vulkan" && o.backend != "all") usage(("unknown backend " + o.backend).c_str());
  if (o.backend == "vulkan" && std::count(o.modes.begin(), o.modes.end(), "gradcheck")) {
    usage("--mode gradcheck runs on the CPU only (float64 finite differences); use --backend cpu");
  }
  return o;
}

bool vulkan_present() {
#ifdef ADEPT_WITH_VULKAN
  return vulkan_is_available();
#else
  return false;
#endif
}

const char* short_dtype(Dtype d) {
  switch (d) {
    case kFloat32: return "f32";
    case kFloat64: return "f64";
    case kFloat16: return "f16";
    case kBFloat16: return "bf16";
    case kInt32: return "i32";
    case kInt64: return "i64";
    case kUInt8: return "u8";
    case kBool: return "bool";
  }
  return "?";
}

// The runs of one case: every dtype contiguous, then dtypes[0] in each layout that applies to an input.
std::vector<std::pair<Dtype, Layout>> variants(const Case& c) {
  std::vector<std::pair<Dtype, Layout>> v;
  for (Dtype d : c.dtypes) v.emplace_back(d, Layout::Contiguous);
  for (Layout l : c.layouts) {
    bool applies = false;
    for (const Input& in : c.inputs) applies |= in.layouts && layout_applies(l, in.shape);
    if (l == Layout::Expanded)
      for (const Input& in : c.inputs) applies &= in.gen != Gen::Distinct && in.gen != Gen::UniqueIndex;
    if (applies) v.emplace_back(c.dtypes[0], l);
  }
  return v;
}

// Coverage: per op, per column (backend + mode), per dtype, the outcomes of its runs: fail if any
// failed, pass if all passed, n/i if none ran, partial for pass + n/i (some variants lack a kernel).
struct Coverage {
  enum class Cell { Pass, Fail, NotImpl, Partial };
  struct Counts {
    int pass = 0, fail = 0, ni = 0;
  };
  std::vector<std::string> ops;     // table order
  std::vector<std::string> columns;
  std::map<std::string, std::map<std::string, std::map<Dtype, Counts>>> cells;

  void add(const Result& r) {
    if (std::find(ops.begin(), ops.end(), r.op) == ops.end()) ops.push_back(r.op);
    const std::string col = r.backend + " " + r.mode;
    if (std::find(columns.begin(), columns.end(), col) == columns.end()) columns.push_back(col);
    auto& by_dtype = cells[r.op][col];
    if (r.status == Status::Skip) return;
    Counts& n = by_dtype[r.dtype];
    (r.status == Status::Pass ? n.pass : r.status == Status::Fail ? n.fail : n.ni)++;
  }

  static const char* name(Cell c) {
    switch (c) {
      case Cell::Pass: return "pass";
      case Cell::Fail: return "fail";
      case Cell::NotImpl: return "n/i";
      case Cell::Partial: return "partial";
    }
    return "?";
  }

  // "pass", "n/i", "fail", "-" or e.g. "pass (f32,f16) / partial (i32) / n/i (f64,bf16)".
  std::string cell(const std::string& op, const std::string& col) const {
    auto oi = cells.find(op);
    if (oi == cells.end()) return "-";
    auto ci = oi->second.find(col);
    if (ci == oi->second.end()) return "-";
    std::map<Cell, std::vector<std::string>> groups;
    for (const auto& [d, n] : ci->second) {
      const Cell c = n.fail ? Cell::Fail : !n.ni ? Cell::Pass : !n.pass ? Cell::NotImpl : Cell::Partial;
      groups[c].push_back(short_dtype(d));
    }
    if (groups.empty()) return "-";
    if (groups.size() == 1) return name(groups.begin()->first);
    std::string out;
    for (const auto& [c, dtypes] : groups) {
      if (!out.empty()) out += " / ";
      out += fmt::format("{} ({})", name(c), fmt::join(dtypes, ","));
    }
    return out;
  }

  static constexpr const char* kLegend =
      "pass: every run matches the CPU reference; fail: a run failed; n/i: no kernel on the backend (or the dtype "
      "cannot live there); partial: pass in some cases or layouts of the op, n/i in others; per-dtype outcomes in parentheses (f32 = "
      "float32 ...); -: no run applies (not differentiable, no floating input).";

  std::string markdown() const {
    std::string md = "| op |";
    for (const auto& c : columns) md += fmt::format(" {} |", c);
    md += "\n| --- |";
    for (size_t i = 0; i < columns.size(); ++i) md += " --- |";
    md += "\n";
    for (const auto& op : ops) {
      md += fmt::format("| {} |", op);
      for (const auto& c : columns) md += fmt::format(" {} |", cell(op, c));
      md += "\n";
    }
    return md;
  }

  // Per column: how many ops pass, fail, are n/i, partly n/i, or not applicable.
  std::string summary() const {
    std::string s;
    for (const auto& col : columns) {
      int pass = 0, fail = 0, ni = 0, partial = 0, none = 0;  // partial: some dtypes or variants n/i
      for (const auto& op : ops) {
        const std::string c = cell(op, col);
        if (c == "pass") ++pass;
        else if (c == "n/i") ++ni;
        else if (c == "-") ++none;
        else if (c.find("fail") != std::string::npos) ++fail;
        else ++partial;
      }
      s += fmt::format("  {:<18} ops: {} pass, {} fail, {} n/i, {} partial (pass in some dtypes or variants, n/i in others), {} not applicable\n", col, pass, fail, ni,
                       partial, none);
    }
    return s;
  }
};

}  // namespace

namespace adept::backend_ops {
const char* status_name(Status s) {
  switch (s) {
    case Status::Pass: return "pass";
    case Status::Fail: return "fail";
    case Status::NotImpl: return "n/i";
    case Status::Skip: return "-";
  }
  return "?";
}
}  // namespace adept::backend_ops

int main(int argc, char** argv) {
  const Options opt = parse(argc, argv);
  std::vector<Case> cases = all_cases();
  int table_problems = opt.check_table ? check_table_coverage(cases) : 0;  // on every case, before --op
  if (!opt.op_regex.empty()) {
    std::regex re;
    try {
      re = std::regex(opt.op_regex);
    } catch (const std::regex_error& e) {
      usage(fmt::format("--op '{}' is not a valid regular expression: {}", opt.op_regex, e.what()).c_str());
    }
    std::erase_if(cases, [&](const Case& c) { return !std::regex_search(c.op, re) && !std::regex_search(c.label, re); });
    if (cases.empty()) usage(fmt::format("--op '{}' matches no case (see --list)", opt.op_regex).c_str());
  }
  if (opt.list) {
    std::set<std::string> names;
    for (const Case& c : cases) names.insert(c.op);
    for (const std::string& n : names) fmt::print("{}\n", n);
    return 0;
  }
  RegistryCheck registry_check;

  std::vector<Device> devices;
  if (opt.backend != "vulkan") devices.push_back(kCPU);
  if (opt.backend != "cpu") {
    if (vulkan_present()) {
      devices.emplace_back(DeviceType::Vulkan, 0);
    } else {
      fmt::print("vulkan: {}; skipped\n", vulkan_present() ? "" : "not compiled in or no device");
      if (opt.backend == "vulkan") return 77;
    }
  }

  const auto t0 = std::chrono::steady_clock::now();
  Coverage cov;
  int failures = 0, runs = 0, not_impl = 0;
  bool ran_anything = false;
  for (const std::string& mode : opt.modes) {
    if (mode == "perf") {
      for (Device d : devices)
        for (const Case& c : cases) run_perf(c, d);
      ran_anything = true;
    }
    if (mode == "gradcheck") {
      if (kAsan) {
        fmt::print("gradcheck: skipped under AddressSanitizer\n");
        continue;
      }
      ran_anything = true;
      for (const Case& c : cases) {
        Result r = run_gradcheck(c);
        cov.add(r);
        ++runs;
        if (r.status == Status::Fail) ++failures, fmt::print("FAIL {}\n", r.message);
        else if (opt.verbose) fmt::print("{:<4} {} gradcheck\n", status_name(r.status), r.label);
      }
    }
  }
  // forward and backward: columns backend-major (cpu forward, cpu backward, vulkan forward ...)
  for (Device d : devices) {
    for (const std::string& mode : opt.modes) {
      if (mode != "forward" && mode != "backward") continue;
      ran_anything = true;
      for (const Case& c : cases) {
        for (auto [dtype, layout] : variants(c)) {
          Result r = mode == "forward" ? run_forward(c, dtype, layout, d) : run_backward(c, dtype, layout, d);
          cov.add(r);
          if (opt.check_table) registry_check.observe(c, r, d);
          ++runs;
          if (r.status == Status::Fail) ++failures, fmt::print("FAIL {}\n", r.message);
          else if (r.status == Status::NotImpl) ++not_impl;
          if (opt.verbose && r.status != Status::Fail)
            fmt::print("{:<4} {} [{} {} {} {}] {}\n", status_name(r.status), r.label, mode, device_name(d),
                       dtype_name(dtype), layout_name(layout), r.status == Status::NotImpl ? r.message : "");
        }
      }
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!ran_anything) return 77;
  if (cov.ops.empty()) {
    fmt::print("done in {:.1f} s\n", secs);
    return table_problems ? 1 : 0;
  }
  const std::string md = cov.markdown();
  fmt::print("\n{}\n", md);
  if (!opt.coverage_file.empty()) {
    std::ofstream f(opt.coverage_file);
    f << "# adept_test_backend_ops coverage\n\n" << Coverage::kLegend << "\n\n" << md;
    f.close();
    if (!f) {
      fmt::print(stderr, "--coverage: cannot write '{}'\n", opt.coverage_file);
      return 1;
    }
  }
  fmt::print("{} cases, {} runs: {} failed, {} not implemented for the device; {:.1f} s\n{}", cases.size(), runs,
             failures, not_impl, secs, cov.summary());
  if (opt.check_table) {
    table_problems += registry_check.report();
    fmt::print("check-table: {}\n", table_problems ? "FAILED" : "ok");
  }
  return failures || table_problems ? 1 : 0;
}
