// Atomic replacement of a file: data goes to a temporary file in the target's directory, which is
// renamed over the target only once it is completely written and flushed to disk.
#pragma once
#include <cstddef>
#include <string>

namespace adept::io {

/// Writes a file so that readers (and a crash) see either the old file or the complete new one.
/// The constructor creates a temporary file beside `path`; write() appends to it; commit() fsyncs
/// it, renames it to `path` and fsyncs the directory. Destroying the object without a successful
/// commit() removes the temporary file, leaving any existing `path` untouched.
/// Errors: IOError naming `path` and the failing system call.
class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, size_t nbytes);
  void commit();
  /// The temporary file's path (for diagnostics and tests).
  const std::string& temp_path() const { return temp_path_; }

 private:
  [[noreturn]] void fail(const char* what, int err) const;

  std::string path_;
  std::string temp_path_;
  int fd_ = -1;
  bool committed_ = false;
};

}  // namespace adept::io
