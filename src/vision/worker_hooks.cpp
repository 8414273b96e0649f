// Registers, when libadept_vision loads, what a DataLoader worker process must do before it uses
// OpenCV: run single-threaded (a forked child must not use the parent's thread pool).
#include "data/worker_pool.h"
#include "vision/opencv_threads.h"

namespace {
const bool registered = [] {
  adept::data::detail::register_worker_start_hook(adept::vision::detail::disable_opencv_threads);
  return true;
}();
}  // namespace
