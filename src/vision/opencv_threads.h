// Internal: control over OpenCV's own worker threads (for DataLoader worker processes).
#pragma once

namespace adept::vision::detail {

/// Makes OpenCV run its functions on the calling thread only (cv::setNumThreads(0)), so a forked
/// worker process never starts OpenCV's thread pool.
void disable_opencv_threads();

}  // namespace adept::vision::detail
