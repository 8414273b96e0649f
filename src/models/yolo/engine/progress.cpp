// The progress bar of the YOLO engine (progress.h).
#include "models/yolo/engine/progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

#include <fmt/format.h>

namespace adept::models::yolo::detail {

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const int64_t s = std::llround(seconds);
  return fmt::format("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
}

Progress::Progress(std::string desc, int64_t total, int64_t start, bool quiet)
    : desc_(std::move(desc)), total_(total), start_(start), done_(start), tty_(isatty(STDERR_FILENO) == 1),
      quiet_(quiet), t0_(std::chrono::steady_clock::now()), last_print_(t0_) {}

std::string Progress::line(int64_t done, const std::string& postfix) const {
  constexpr int kWidth = 20;
  const double frac = total_ > 0 ? static_cast<double>(done) / static_cast<double>(total_) : 1.0;
  const int filled = static_cast<int>(std::lround(frac * kWidth));
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  const double eta = done > start_ ? elapsed / static_cast<double>(done - start_) * static_cast<double>(total_ - done)
                                   : std::nan("");
  return fmt::format("{} {:3.0f}% |{}{}| {}/{} {} [{}<{}]", desc_, frac * 100, std::string(filled, '#'),
                     std::string(kWidth - filled, ' '), done, total_, postfix, format_duration(elapsed),
                     format_duration(eta));
}

void Progress::update(int64_t done, const std::string& postfix) {
  done_ = done;
  if (quiet_) return;
  const auto now = std::chrono::steady_clock::now();
  if (tty_) {
    std::fprintf(stderr, "\r%s\033[K", line(done, postfix).c_str());
  } else if (now - last_print_ >= std::chrono::seconds(10)) {
    std::fprintf(stderr, "%s\n", line(done, postfix).c_str());
    last_print_ = now;
  } else {
    return;
  }
  std::fflush(stderr);
}

void Progress::finish(const std::string& postfix) {
  if (quiet_) return;
  std::fprintf(stderr, tty_ ? "\r%s\033[K\n" : "%s\n", line(done_, postfix).c_str());
  std::fflush(stderr);
}

}  // namespace adept::models::yolo::detail
