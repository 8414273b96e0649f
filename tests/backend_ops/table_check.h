// --check-table: the harness against the op table (src/kernels/op_table.def). Two checks need no
// device: every op of the table has a case, and every case names an op of the table or one of the
// few method-style names listed in table_check.cpp. The third watches the forward and backward runs
// and compares each outcome (ran, or NotImplementedForDevice) with adept::supported().
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "runner.h"

namespace adept::backend_ops {

/// Table ops without a case and case ops outside the table (and the method list); prints them and
/// returns how many problems it found.
int check_table_coverage(const std::vector<Case>& cases);

/// Collects the disagreements between supported(op, device, dtype, backward) and the runs.
class RegistryCheck {
 public:
  /// One forward or backward run of `c` on `device` (other modes and skipped runs are ignored).
  void observe(const Case& c, const Result& r, Device device);
  /// Prints the disagreements grouped by op; returns the number that fail (supported() says true
  /// but the run lacked a kernel, or true for a dtype that cannot live on the device).
  int report() const;

 private:
  // The disagreements of one kind: op -> "backend mode" -> the dtypes and runs behind them.
  struct Runs {
    std::set<std::string> dtypes;
    int count = 0;
    std::string example;  // the first run's label and message
  };
  using ByOp = std::map<std::string, std::map<std::string, Runs>>;
  static void add(ByOp& to, const Result& r, const std::string& detail);
  static int print(const ByOp& d, const char* title);

  ByOp missing_;      // supported() true, the run raised NotImplementedForDevice: fail
  ByOp unmovable_;    // supported() true for a dtype that cannot live on the device: fail
  ByOp ran_anyway_;   // supported() false, the run passed: warning
  int agreed_ = 0, not_comparable_ = 0;
};

}  // namespace adept::backend_ops
