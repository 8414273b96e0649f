// POSIX shared-memory segments that carry batches from worker processes to the main process,
// and the encoding of a Batch inside one (tensors are views of the mapping: no copy on arrival).
#pragma once
#include <cstddef>
#include <memory>
#include <string>

#include "adept/data/tensor_dict.h"

namespace adept::data::detail {

/// Bytes mapped for a segment of payload capacity `capacity`: the control header plus the
/// payload, rounded up to whole pages. The only place segment sizes are computed: creating,
/// mapping and unmapping all call it.
size_t segment_mapping_bytes(size_t capacity);

/// A mapped segment (unmapped on destruction). The name is only needed until the other process
/// has mapped it; `unlink` removes it from /dev/shm.
class ShmSegment {
 public:
  /// Creates `name` with room for `capacity` payload bytes, reserved with posix_fallocate so that
  /// a full /dev/shm is an OutOfMemoryError saying how much was needed and free (not a SIGBUS).
  static std::shared_ptr<ShmSegment> create(const std::string& name, size_t capacity);
  /// Maps an existing segment created with the same capacity; IOError if it cannot.
  static std::shared_ptr<ShmSegment> open(const std::string& name, size_t capacity);
  /// Removes `name` from the namespace (mappings stay valid); missing names are ignored.
  static void unlink(const std::string& name);
  /// Unlinks every segment whose name starts with `prefix` (cleanup after a dead worker).
  static void unlink_prefix(const std::string& prefix);

  ShmSegment(void* addr, size_t capacity) : addr_(addr), capacity_(capacity) {}
  ~ShmSegment();
  ShmSegment(const ShmSegment&) = delete;
  ShmSegment& operator=(const ShmSegment&) = delete;

  size_t capacity() const { return capacity_; }
  char* payload() const;

 private:
  void* addr_;
  size_t capacity_;
};

/// Payload bytes needed to encode `batch` (CPU tensors; each is made contiguous).
size_t encoded_size(const Batch& batch);
/// Writes `batch` into `segment` (which must have encoded_size(batch) bytes of capacity).
void encode(const Batch& batch, ShmSegment& segment);
/// The batch stored in `segment`: tensors view the mapping; `on_release` runs once the last of
/// them is gone (so the segment can be reused).
Batch decode(const std::shared_ptr<ShmSegment>& segment, std::function<void()> on_release);

}  // namespace adept::data::detail
