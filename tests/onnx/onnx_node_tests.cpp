// adept_onnx_node_tests: runs ONNX's node conformance tests (onnx/backend/test/data/node: model.onnx plus
// test_data_set_0/{input,output}_N.pb per folder) through adept::onnx::load and compares the outputs as
// ONNX's backend tests do (rtol 1e-3, atol 1e-7; integers and bools exactly).
//
// A test is in scope when every graph input and output is a tensor of a dtype Adept has; nothing else
// is skipped. Prints `PASS|FAIL|OUT-OF-SCOPE name: reason` per test, the failure reasons grouped, and the
// pass rates over the in-scope tests and over all tests.
//
// Usage: adept_onnx_node_tests [--device cpu|vulkan] [--min-pass-rate PERCENT] [--filter TEXT] DIR
// Exit status: 0, 1 when the in-scope pass rate is below --min-pass-rate, 77 when DIR does not exist
// (ctest's skip code), 2 for bad arguments.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/ranges.h>
#include <onnx/onnx_pb.h>

#include "adept/onnx.h"
#include "adept/ops.h"
#include "onnx/proto.h"

namespace fs = std::filesystem;
using adept::Tensor;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Why the test is out of scope (a graph input or output that is not a tensor of an Adept dtype), or "".
std::string scope_issue(const onnx::ModelProto& model) {
  std::vector<std::string> initializers;
  for (const auto& t : model.graph().initializer()) initializers.push_back(t.name());
  auto check = [&](const onnx::ValueInfoProto& v, const char* kind) -> std::string {
    if (!v.type().has_tensor_type()) return std::string(kind) + " '" + v.name() + "' is not a tensor";
    int32_t elem = v.type().tensor_type().elem_type();
    if (!adept::onnx::detail::dtype_from_onnx(elem))
      return std::string(kind) + " '" + v.name() + "' has element type " + adept::onnx::detail::onnx_type_name(elem);
    return "";
  };
  for (const auto& in : model.graph().input()) {
    if (std::find(initializers.begin(), initializers.end(), in.name()) != initializers.end()) continue;
    if (std::string issue = check(in, "input"); !issue.empty()) return issue;
  }
  for (const auto& out : model.graph().output())
    if (std::string issue = check(out, "output"); !issue.empty()) return issue;
  return "";
}

// "" when `got` matches `want` (shape, dtype, values within ONNX's tolerances), else what differs.
std::string compare(const Tensor& got, const Tensor& want, size_t index) {
  std::string prefix = "output " + std::to_string(index) + ": ";
  if (got.dtype() != want.dtype())
    return prefix + "dtype " + adept::dtype_name(got.dtype()) + ", expected " + adept::dtype_name(want.dtype());
  if (got.sizes() != want.sizes())
    return prefix + fmt::format("shape [{}], expected [{}]", fmt::join(got.sizes(), ", "), fmt::join(want.sizes(), ", "));
  Tensor g = got.detach().cpu().to(adept::kFloat64).contiguous(), w = want.to(adept::kFloat64).contiguous();
  const double *pg = g.data_ptr<double>(), *pw = w.data_ptr<double>();
  bool exact = !want.is_floating_point();
  int64_t bad = 0, first = -1;
  for (int64_t i = 0; i < g.numel(); ++i) {
    double a = pg[i], b = pw[i];
    bool ok = exact ? a == b
                    : (std::isnan(a) && std::isnan(b)) || a == b || std::abs(a - b) <= 1e-7 + 1e-3 * std::abs(b);
    if (!ok && bad++ == 0) first = i;
  }
  if (bad == 0) return "";
  return prefix + fmt::format("{} of {} values differ (first at flat index {}: {} vs expected {})", bad, g.numel(),
                              first, pg[first], pw[first]);
}

struct Outcome {
  std::string status, reason, group;  // group: the reason's category for the summary
};

Outcome run_test(const fs::path& dir, const adept::Device& device) {
  std::string bytes = read_file(dir / "model.onnx");
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) return {"FAIL", "model.onnx does not parse", "malformed model"};
  if (std::string issue = scope_issue(model); !issue.empty()) return {"OUT-OF-SCOPE", issue, ""};
  try {
    std::shared_ptr<adept::onnx::Model> m = adept::onnx::load_bytes(bytes);
    fs::path data = dir / "test_data_set_0";
    std::vector<Tensor> inputs, expected;
    for (size_t i = 0; i < m->input_names().size(); ++i) {
      fs::path p = data / ("input_" + std::to_string(i) + ".pb");
      inputs.push_back(adept::onnx::tensor_from_bytes(read_file(p), p.string()).to(device));
    }
    for (size_t i = 0; i < m->output_names().size(); ++i) {
      fs::path p = data / ("output_" + std::to_string(i) + ".pb");
      expected.push_back(adept::onnx::tensor_from_bytes(read_file(p), p.string()));
    }
    m->to(device);
    std::vector<Tensor> outputs = m->forward_all(inputs);
    for (size_t i = 0; i < outputs.size(); ++i)
      if (std::string diff = compare(outputs[i], expected[i], i); !diff.empty()) return {"FAIL", diff, "wrong values"};
    return {"PASS", "", ""};
  } catch (const adept::onnx::UnsupportedError& e) {
    std::string ops;
    for (const auto& u : e.items()) ops += (ops.empty() ? "" : ", ") + u.op_type + (u.reason.empty() ? "" : " (" + u.reason + ")");
    return {"FAIL", e.what(), "unsupported: " + ops};
  } catch (const std::exception& e) {
    // Group by the message without the node's name: "node 'y' (MaxPool): MaxPool: ..." -> "MaxPool: ...".
    std::string what = e.what();
    size_t label = what.find("): ");
    std::string group = label == std::string::npos ? what : what.substr(label + 3);
    return {"FAIL", what, group.substr(0, 100)};
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string device_name = "cpu", filter, dir;
  double min_rate = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--device" && i + 1 < argc) device_name = argv[++i];
    else if (a == "--min-pass-rate" && i + 1 < argc) min_rate = std::stod(argv[++i]);
    else if (a == "--filter" && i + 1 < argc) filter = argv[++i];
    else if (!a.empty() && a[0] != '-' && dir.empty()) dir = a;
    else {
      std::fprintf(stderr, "usage: %s [--device cpu|vulkan] [--min-pass-rate PERCENT] [--filter TEXT] DIR\n", argv[0]);
      return 2;
    }
  }
  if (dir.empty() || !fs::is_directory(dir)) {
    std::printf("onnx node tests: folder '%s' not found; skipped\n", dir.c_str());
    return 77;
  }
  std::vector<fs::path> tests;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && fs::exists(e.path() / "model.onnx") && e.path().filename().string().find(filter) != std::string::npos)
      tests.push_back(e.path());
  std::sort(tests.begin(), tests.end());
  adept::Device device(device_name);
  int pass = 0, fail = 0, out_of_scope = 0;
  std::map<std::string, int> groups;
  for (const auto& t : tests) {
    Outcome o = run_test(t, device);
    std::string reason = o.reason;
    std::replace(reason.begin(), reason.end(), '\n', ' ');
    std::printf("%s %s%s%s\n", o.status.c_str(), t.filename().c_str(), reason.empty() ? "" : ": ", reason.c_str());
    if (o.status == "PASS") ++pass;
    else if (o.status == "FAIL") ++fail, ++groups[o.group];
    else ++out_of_scope;
  }
  int in_scope = pass + fail, total = in_scope + out_of_scope;
  double rate = in_scope ? 100.0 * pass / in_scope : 0.0;
  std::printf("\nfailures by reason:\n");
  std::vector<std::pair<int, std::string>> sorted;
  for (const auto& [g, n] : groups) sorted.emplace_back(n, g);
  std::sort(sorted.rbegin(), sorted.rend());
  for (const auto& [n, g] : sorted) std::printf("  %3d  %s\n", n, g.c_str());
  std::printf("\nonnx node tests on %s: %d passed, %d failed, %d out of scope (of %d)\n", device_name.c_str(), pass, fail,
              out_of_scope, total);
  std::printf("in-scope pass rate: %.1f %% (%d / %d); over all tests: %.1f %% (%d / %d)\n", rate, pass, in_scope,
              total ? 100.0 * pass / total : 0.0, pass, total);
  if (rate < min_rate) {
    std::printf("FAILED: the in-scope pass rate %.1f %% is below the floor %.1f %%\n", rate, min_rate);
    return 1;
  }
  return 0;
}
