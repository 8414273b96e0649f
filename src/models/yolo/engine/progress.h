// A one-line progress bar on stderr for training and validation loops: redrawn in place on a
// terminal, printed as a plain line every few seconds (and at the end) when stderr is a file.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>

namespace adept::models::yolo::detail {

class Progress {
 public:
  /// `desc` prefixes the line; `total` steps; counting starts at `start` (a resumed epoch). A `quiet`
  /// bar prints nothing (the ranks other than 0 of a data-parallel run).
  Progress(std::string desc, int64_t total, int64_t start = 0, bool quiet = false);
  /// Shows `done` of total steps, the bar, `postfix` and the ETA from the rate since construction.
  void update(int64_t done, const std::string& postfix);
  /// Prints the final state and ends the line.
  void finish(const std::string& postfix);

 private:
  std::string line(int64_t done, const std::string& postfix) const;
  std::string desc_;
  int64_t total_, start_, done_ = 0;
  bool tty_, quiet_;
  std::chrono::steady_clock::time_point t0_, last_print_;
};

/// Seconds as h:mm:ss.
std::string format_duration(double seconds);

}  // namespace adept::models::yolo::detail
