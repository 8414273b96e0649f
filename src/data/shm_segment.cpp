// Shared-memory segments and the batch encoding inside them.
//
// Segment layout: [control header, 64 bytes][payload]. Payload: u32 tensor count, then per
// tensor {u32 name length, name, u8 dtype, u8 ndim, i64 sizes[ndim], u64 data offset, u64 data
// bytes}, then the tensor data, each block 64-byte aligned.
#include "data/shm_segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <dirent.h>

#include <cerrno>
#include <cstring>

#include "adept/errors.h"
#include "adept/storage.h"

namespace adept::data::detail {

namespace {
constexpr size_t kHeaderBytes = 64;
constexpr uint64_t kMagic = 0x3148435441425441ULL;  // "ATBATCH1"
constexpr size_t kAlign = 64;

size_t align_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

struct Control {
  uint64_t magic;
  uint64_t used;
};

double mib(size_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

size_t shm_free_bytes() {
  struct statvfs st {};
  if (statvfs("/dev/shm", &st) != 0) return 0;
  return static_cast<size_t>(st.f_bavail) * st.f_frsize;
}

Shape contiguous_strides(const Shape& sizes) {
  Shape st(sizes.size());
  int64_t s = 1;
  for (size_t d = sizes.size(); d-- > 0;) { st[d] = s; s *= sizes[d]; }
  return st;
}

size_t meta_bytes(const Batch& batch) {
  size_t n = sizeof(uint32_t);
  for (const auto& [name, t] : batch) n += sizeof(uint32_t) + name.size() + 2 + t.dim() * sizeof(int64_t) + 2 * sizeof(uint64_t);
  return n;
}

// Cursor over the payload with bounds checks (a corrupt segment is an IOError, not a crash).
struct Reader {
  const char* p;
  size_t size, at = 0;
  template <class T> T get() {
    ADEPT_CHECK(at + sizeof(T) <= size, IOError, "DataLoader: corrupt shared-memory batch (read past {} bytes)", size);
    T v;
    std::memcpy(&v, p + at, sizeof(T));
    at += sizeof(T);
    return v;
  }
  std::string str(size_t n) {
    ADEPT_CHECK(at + n <= size, IOError, "DataLoader: corrupt shared-memory batch (read past {} bytes)", size);
    std::string s(p + at, n);
    at += n;
    return s;
  }
};
}  // namespace

size_t segment_mapping_bytes(size_t capacity) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return align_up(kHeaderBytes + capacity, page);
}

std::shared_ptr<ShmSegment> ShmSegment::create(const std::string& name, size_t capacity) {
  const size_t bytes = segment_mapping_bytes(capacity);
  int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  ADEPT_CHECK(fd >= 0, IOError, "DataLoader: cannot create shared-memory segment {}: {}", name, std::strerror(errno));
  // posix_fallocate reserves the pages now; ftruncate alone would SIGBUS at the first write to a full tmpfs.
  int rc = posix_fallocate(fd, 0, static_cast<off_t>(bytes));
  if (rc != 0) {
    close(fd);
    shm_unlink(name.c_str());
    if (rc == ENOSPC || rc == EFBIG)
      throw OutOfMemoryError(fmt::format(
          "DataLoader: /dev/shm is too small: a batch needs {:.1f} MiB of shared memory but only {:.1f} MiB "
          "is free. Enlarge /dev/shm (e.g. `docker run --shm-size=8g`, or `mount -o remount,size=8G "
          "/dev/shm`), or lower batch_size / num_workers / prefetch_factor, or use num_workers=0",
          mib(bytes), mib(shm_free_bytes())));
    throw IOError(fmt::format("DataLoader: cannot reserve {} bytes for shared-memory segment {}: {}", bytes, name,
                              std::strerror(rc)));
  }
  void* addr = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (addr == MAP_FAILED) {
    shm_unlink(name.c_str());
    throw IOError(fmt::format("DataLoader: cannot map shared-memory segment {}: {}", name, std::strerror(errno)));
  }
  auto* c = static_cast<Control*>(addr);
  c->magic = kMagic;
  c->used = 0;
  return std::make_shared<ShmSegment>(addr, capacity);
}

std::shared_ptr<ShmSegment> ShmSegment::open(const std::string& name, size_t capacity) {
  const size_t bytes = segment_mapping_bytes(capacity);
  int fd = shm_open(name.c_str(), O_RDWR, 0600);
  ADEPT_CHECK(fd >= 0, IOError, "DataLoader: cannot open shared-memory segment {}: {}", name, std::strerror(errno));
  struct stat st {};
  const bool ok = fstat(fd, &st) == 0 && static_cast<size_t>(st.st_size) >= bytes;
  void* addr = ok ? mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
  close(fd);
  ADEPT_CHECK(addr != MAP_FAILED, IOError, "DataLoader: cannot map shared-memory segment {} ({} bytes): {}", name,
              bytes, ok ? std::strerror(errno) : "segment smaller than announced");
  ADEPT_CHECK(static_cast<Control*>(addr)->magic == kMagic, IOError,
              "DataLoader: shared-memory segment {} is not a batch segment", name);
  return std::make_shared<ShmSegment>(addr, capacity);
}

void ShmSegment::unlink(const std::string& name) { shm_unlink(name.c_str()); }

void ShmSegment::unlink_prefix(const std::string& prefix) {
  // POSIX names are "/name"; on Linux they live as files in /dev/shm.
  const std::string bare = prefix.substr(prefix.front() == '/' ? 1 : 0);
  DIR* d = opendir("/dev/shm");
  if (!d) return;
  while (dirent* e = readdir(d)) {
    if (std::strncmp(e->d_name, bare.c_str(), bare.size()) != 0) continue;
    std::string name = "/";
    name += e->d_name;
    shm_unlink(name.c_str());
  }
  closedir(d);
}

ShmSegment::~ShmSegment() { munmap(addr_, segment_mapping_bytes(capacity_)); }

char* ShmSegment::payload() const { return static_cast<char*>(addr_) + kHeaderBytes; }

size_t encoded_size(const Batch& batch) {
  size_t n = align_up(meta_bytes(batch), kAlign);
  for (const auto& [name, t] : batch) n += align_up(t.numel() * element_size(t.dtype()), kAlign);
  return n;
}

void encode(const Batch& batch, ShmSegment& segment) {
  const size_t need = encoded_size(batch);
  ADEPT_CHECK(need <= segment.capacity(), ValueError, "DataLoader: batch of {} bytes does not fit a {}-byte segment",
              need, segment.capacity());
  char* base = segment.payload();
  size_t at = 0, data_at = align_up(meta_bytes(batch), kAlign);
  auto put = [&](const void* v, size_t n) { std::memcpy(base + at, v, n); at += n; };
  const uint32_t count = static_cast<uint32_t>(batch.size());
  put(&count, sizeof count);
  for (const auto& [name, t] : batch) {
    ADEPT_CHECK(t.defined() && t.device().is_cpu(), DeviceError,
                "DataLoader: batch entry '{}' must be a CPU tensor to cross processes, got {}", name,
                t.defined() ? t.device().str() : "an undefined tensor");
    const uint32_t len = static_cast<uint32_t>(name.size());
    put(&len, sizeof len);
    put(name.data(), name.size());
    const uint8_t dt = static_cast<uint8_t>(t.dtype()), nd = static_cast<uint8_t>(t.dim());
    put(&dt, 1);
    put(&nd, 1);
    for (int64_t s : t.sizes()) put(&s, sizeof s);
    const uint64_t nbytes = t.numel() * element_size(t.dtype()), off = data_at;
    put(&off, sizeof off);
    put(&nbytes, sizeof nbytes);
    if (nbytes) std::memcpy(base + data_at, t.contiguous().data_ptr(), nbytes);
    data_at += align_up(nbytes, kAlign);
  }
  reinterpret_cast<Control*>(base - kHeaderBytes)->used = data_at;
}

Batch decode(const std::shared_ptr<ShmSegment>& segment, std::function<void()> on_release) {
  struct Release {
    std::shared_ptr<ShmSegment> seg;
    std::function<void()> fn;
    ~Release() { if (fn) fn(); }
  };
  auto keep = std::make_shared<Release>();  // built in place: a temporary's destructor would release early
  keep->seg = segment;
  keep->fn = std::move(on_release);
  const char* base = segment->payload();
  const size_t used = reinterpret_cast<const Control*>(base - kHeaderBytes)->used;
  ADEPT_CHECK(used <= segment->capacity(), IOError, "DataLoader: corrupt shared-memory batch ({} bytes used of {})",
              used, segment->capacity());
  Reader r{base, used};
  Batch out;
  const uint32_t count = r.get<uint32_t>();
  for (uint32_t i = 0; i < count; ++i) {
    std::string name = r.str(r.get<uint32_t>());
    const auto dtype = static_cast<Dtype>(r.get<uint8_t>());
    const uint8_t nd = r.get<uint8_t>();
    Shape sizes(nd);
    for (auto& s : sizes) s = r.get<int64_t>();
    const uint64_t off = r.get<uint64_t>(), nbytes = r.get<uint64_t>();
    ADEPT_CHECK(off + nbytes <= used, IOError, "DataLoader: corrupt shared-memory batch (tensor '{}' out of range)", name);
    auto impl = std::make_shared<TensorImpl>();
    impl->storage = Storage::wrap(const_cast<char*>(base) + off, nbytes, kCPU, [keep](void*) {});
    impl->sizes = sizes;
    impl->strides = contiguous_strides(sizes);
    impl->dtype = dtype;
    out.set(std::move(name), Tensor(std::move(impl)));
  }
  return out;
}

}  // namespace adept::data::detail
