// AtomicFile: temporary file + fsync + rename + directory fsync (POSIX).
#include "io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "adept/errors.h"

namespace adept::io {

namespace {

std::atomic<unsigned> g_temp_counter{0};

// The directory holding `path` ("." for a bare file name).
std::string parent_dir(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  ADEPT_CHECK(!path_.empty(), ValueError, "save: the file name is empty");
  std::filesystem::path p(path_);
  ADEPT_CHECK(p.has_filename(), IOError, "save to '{}': the path names a directory, not a file", path_);
  // A hidden name beside the target: same file system, so rename() is atomic. The pid and a
  // process-wide counter make it unique among concurrent writers; O_EXCL guards the rest.
  for (int attempt = 0;; ++attempt) {
    temp_path_ = (p.parent_path() / fmt::format(".{}.tmp.{}.{}", p.filename().string(), getpid(),
                                                g_temp_counter.fetch_add(1))).string();
    fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ >= 0) return;
    if (errno != EEXIST || attempt >= 100) fail("cannot create a temporary file in its directory", errno);
  }
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temp_path_.c_str());
}

void AtomicFile::fail(const char* what, int err) const {
  throw IOError(fmt::format("save to '{}': {} ({})", path_, what, std::strerror(err)));
}

void AtomicFile::write(const void* data, size_t nbytes) {
  const char* p = static_cast<const char*>(data);
  while (nbytes > 0) {
    ssize_t n = ::write(fd_, p, nbytes);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write failed", errno);
    }
    p += n;
    nbytes -= static_cast<size_t>(n);
  }
}

void AtomicFile::commit() {
  if (::fsync(fd_) != 0) fail("fsync failed", errno);
  int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("close failed", errno);
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) fail("cannot rename the temporary file over it", errno);
  committed_ = true;
  // The rename itself is durable only once the directory entry is flushed.
  int dfd = ::open(parent_dir(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) fail("written, but cannot open its directory to fsync it", errno);
  int rc = ::fsync(dfd);
  int err = errno;
  ::close(dfd);
  // Some file systems cannot fsync a directory (EINVAL); the data itself is already on disk.
  if (rc != 0 && err != EINVAL) fail("written, but fsync of its directory failed", err);
}

}  // namespace adept::io
