// safetensors reader and writer: header (JSON via nlohmann-json) validation, data copied with
// pread/write straight between the file and each tensor's own storage.
#include "adept/io/safetensors.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <set>

#include <nlohmann/json.hpp>

#include "adept/ops/creation.h"
#include "io/atomic_file.h"

namespace adept::io {

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; a big-endian host needs byte swapping here");

namespace {

using Json = nlohmann::ordered_json;  // keeps the header's order: tensors come back as saved
constexpr const char* kMetadataKey = "__metadata__";

// Adept dtypes and their safetensors names.
constexpr std::pair<Dtype, const char*> kDtypeNames[] = {
    {kFloat64, "F64"}, {kFloat32, "F32"}, {kFloat16, "F16"}, {kBFloat16, "BF16"},
    {kInt64, "I64"},   {kInt32, "I32"},   {kUInt8, "U8"},    {kBool, "BOOL"},
};
// Dtypes of the format that Adept has no type for.
constexpr const char* kForeignDtypes[] = {"I8", "I16", "U16", "U32", "U64", "C64", "F8_E4M3", "F8_E5M2",
                                          "F8_E8M0", "F6_E2M3", "F6_E3M2", "F4"};

const char* safetensors_dtype(Dtype d) {
  for (const auto& [dtype, name] : kDtypeNames)
    if (dtype == d) return name;
  throw DtypeError(fmt::format("save_file: dtype {} has no safetensors name", dtype_name(d)));
}

// A header entry, checked against the file size.
struct Entry {
  std::string name;
  Dtype dtype;
  Shape shape;
  uint64_t begin, end;  // byte range in the data buffer
};

struct Header {
  std::vector<Entry> entries;  // in order of their data
  std::map<std::string, std::string> metadata;
  uint64_t data_start = 0;  // file offset of the data buffer
};

// Read-only file descriptor that closes itself.
class InputFile {
 public:
  explicit InputFile(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw IOError(fmt::format("safetensors file '{}': cannot open: {}", path, std::strerror(errno)));
    struct stat st {};
    if (::fstat(fd_, &st) != 0) fail(fmt::format("fstat failed: {}", std::strerror(errno)));
    if (S_ISDIR(st.st_mode)) fail("is a directory");
    size_ = static_cast<uint64_t>(st.st_size);
  }
  ~InputFile() { ::close(fd_); }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  uint64_t size() const { return size_; }

  /// Reads exactly `n` bytes at `offset` (the caller checked the range against size()).
  void read(void* dst, uint64_t n, uint64_t offset) const {
    char* p = static_cast<char*>(dst);
    while (n > 0) {
      ssize_t got = ::pread(fd_, p, n, static_cast<off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) fail(fmt::format("read failed: {}", std::strerror(errno)));
      if (got == 0) fail("file ended early (truncated while being read?)");
      p += got;
      n -= static_cast<uint64_t>(got);
      offset += static_cast<uint64_t>(got);
    }
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw IOError(fmt::format("safetensors file '{}': {}", path_, what));
  }

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

Dtype parse_dtype(const InputFile& f, const std::string& path, const std::string& tensor, const Json& v) {
  if (!v.is_string()) f.fail(fmt::format("tensor '{}': \"dtype\" is not a string", tensor));
  const auto& s = v.get_ref<const std::string&>();
  for (const auto& [dtype, name] : kDtypeNames)
    if (s == name) return dtype;
  bool foreign = std::find(std::begin(kForeignDtypes), std::end(kForeignDtypes), s) != std::end(kForeignDtypes);
  throw DtypeError(fmt::format("safetensors file '{}': tensor '{}' has {} dtype \"{}\" (Adept supports F64 F32 F16 BF16 "
                               "I64 I32 U8 BOOL)", path, tensor, foreign ? "the unsupported" : "an unknown", s));
}

// A non-negative JSON integer.
uint64_t parse_uint(const InputFile& f, const std::string& tensor, const char* field, const Json& v) {
  if (!v.is_number_unsigned())
    f.fail(fmt::format("tensor '{}': \"{}\" holds {}, expected non-negative integers", tensor, field, v.dump()));
  return v.get<uint64_t>();
}

Entry parse_entry(const InputFile& f, const std::string& path, const std::string& name, const Json& v) {
  if (!v.is_object()) f.fail(fmt::format("tensor '{}': expected an object, got {}", name, v.dump()));
  for (const char* key : {"dtype", "shape", "data_offsets"})
    if (!v.contains(key)) f.fail(fmt::format("tensor '{}': missing \"{}\"", name, key));
  Entry e{name, parse_dtype(f, path, name, v["dtype"]), {}, 0, 0};

  const Json& shape = v["shape"];
  if (!shape.is_array()) f.fail(fmt::format("tensor '{}': \"shape\" is not a list", name));
  uint64_t numel = 1;
  for (const Json& d : shape) {
    uint64_t n = parse_uint(f, name, "shape", d);
    if (n > static_cast<uint64_t>(INT64_MAX) || __builtin_mul_overflow(numel, n, &numel))
      f.fail(fmt::format("tensor '{}': shape {} is too large", name, shape.dump()));
    e.shape.push_back(static_cast<int64_t>(n));
  }
  uint64_t nbytes = 0;
  if (__builtin_mul_overflow(numel, static_cast<uint64_t>(element_size(e.dtype)), &nbytes))
    f.fail(fmt::format("tensor '{}': shape {} is too large", name, shape.dump()));

  const Json& offsets = v["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2)
    f.fail(fmt::format("tensor '{}': \"data_offsets\" must be [begin, end], got {}", name, offsets.dump()));
  e.begin = parse_uint(f, name, "data_offsets", offsets[0]);
  e.end = parse_uint(f, name, "data_offsets", offsets[1]);
  if (e.end < e.begin)
    f.fail(fmt::format("tensor '{}': data_offsets [{}, {}] end before they begin", name, e.begin, e.end));
  if (e.end - e.begin != nbytes)
    f.fail(fmt::format("tensor '{}': shape {} of {} needs {} bytes but data_offsets [{}, {}] span {}", name,
                       shape.dump(), v["dtype"].get<std::string>(), nbytes, e.begin, e.end, e.end - e.begin));
  return e;
}

// Reads and validates the header; on return every entry's range lies inside the file and the
// ranges tile the data buffer exactly.
Header read_header(const InputFile& f, const std::string& path) {
  if (f.size() < 8) f.fail(fmt::format("truncated: {} bytes, too short for the 8-byte header length", f.size()));
  uint8_t len_bytes[8];
  f.read(len_bytes, 8, 0);
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | len_bytes[i];
  if (header_len > f.size() - 8)
    f.fail(fmt::format("truncated or not a safetensors file: the header length its first 8 bytes give ({}) "
                       "exceeds the file size ({} bytes)", header_len, f.size()));

  std::string text(header_len, '\0');
  f.read(text.data(), header_len, 8);
  if (text.empty() || text[0] != '{') f.fail("the header does not start with '{': not a safetensors file");
  // Top-level keys are tensor names: a duplicate would silently hide one tensor.
  std::set<std::string> seen;
  auto on_event = [&](int depth, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::key && depth == 1 && !seen.insert(parsed.get<std::string>()).second)
      f.fail(fmt::format("the header names '{}' twice", parsed.get<std::string>()));
    return true;
  };
  Json json;
  try {
    json = Json::parse(text, on_event);
  } catch (const Json::exception& e) {
    f.fail(fmt::format("invalid JSON header: {}", e.what()));
  }
  if (!json.is_object()) f.fail("the JSON header is not an object");

  Header h;
  h.data_start = 8 + header_len;
  for (const auto& [key, value] : json.items()) {
    if (key == kMetadataKey) {
      if (!value.is_object()) f.fail("\"__metadata__\" is not an object");
      for (const auto& [mk, mv] : value.items()) {
        if (!mv.is_string()) f.fail(fmt::format("metadata '{}' is {}, expected a string", mk, mv.dump()));
        h.metadata.emplace(mk, mv.get<std::string>());
      }
    } else {
      h.entries.push_back(parse_entry(f, path, key, value));
    }
  }

  // The ranges, in order, must tile [0, buffer size): no overlap, no hole, nothing past the end.
  uint64_t buffer_size = f.size() - h.data_start;
  std::stable_sort(h.entries.begin(), h.entries.end(),
                   [](const Entry& a, const Entry& b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; });
  uint64_t expected = 0;
  const Entry* prev = nullptr;
  for (const Entry& e : h.entries) {
    if (e.end > buffer_size)
      f.fail(fmt::format("tensor '{}': data_offsets [{}, {}] lie beyond the {}-byte data buffer (truncated file?)",
                         e.name, e.begin, e.end, buffer_size));
    if (e.begin < expected)
      f.fail(fmt::format("tensors '{}' [{}, {}] and '{}' [{}, {}] overlap", prev->name, prev->begin, prev->end,
                         e.name, e.begin, e.end));
    if (e.begin > expected)
      f.fail(fmt::format("bytes [{}, {}) of the data buffer belong to no tensor (before '{}')", expected, e.begin,
                         e.name));
    expected = e.end;
    prev = &e;
  }
  if (expected != buffer_size)
    f.fail(fmt::format("{} bytes after the last tensor's data belong to no tensor", buffer_size - expected));
  return h;
}

void check_names(const std::vector<std::pair<std::string, Tensor>>& tensors) {
  std::set<std::string> seen;
  for (const auto& [name, t] : tensors) {
    ADEPT_CHECK(!name.empty(), ValueError, "save_file: tensor names must be non-empty");
    ADEPT_CHECK(name != kMetadataKey, ValueError, "save_file: '{}' is reserved for the metadata", name);
    ADEPT_CHECK(seen.insert(name).second, ValueError, "save_file: tensor name '{}' appears twice", name);
    ADEPT_CHECK(t.defined(), ValueError, "save_file: tensor '{}' is undefined", name);
  }
}

// The header text, padded with spaces so that the data buffer starts 8-byte aligned.
std::string make_header(const std::vector<std::pair<std::string, Tensor>>& tensors,
                        const std::map<std::string, std::string>& metadata) {
  Json json = Json::object();
  if (!metadata.empty()) json[kMetadataKey] = metadata;
  uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    uint64_t nbytes = static_cast<uint64_t>(t.numel()) * t.element_size();
    json[name] = {{"dtype", safetensors_dtype(t.dtype())}, {"shape", t.sizes()}, {"data_offsets", {offset, offset + nbytes}}};
    offset += nbytes;
  }
  std::string text;
  try {
    text = json.dump();
  } catch (const Json::exception& e) {
    throw ValueError(fmt::format("save_file: a tensor name or metadata string is not valid UTF-8 ({})", e.what()));
  }
  text.append((8 - text.size() % 8) % 8, ' ');
  return text;
}

}  // namespace

void save_file(const std::vector<std::pair<std::string, Tensor>>& tensors, const std::string& path,
               const std::map<std::string, std::string>& metadata) {
  check_names(tensors);
  std::string header = make_header(tensors, metadata);
  AtomicFile file(path);
  uint8_t len_bytes[8];
  for (int i = 0; i < 8; ++i) len_bytes[i] = static_cast<uint8_t>(static_cast<uint64_t>(header.size()) >> (8 * i));
  file.write(len_bytes, 8);
  file.write(header.data(), header.size());
  // One tensor at a time on the host, so saving a GPU model needs little host memory.
  for (const auto& [name, t] : tensors) {
    if (t.numel() == 0) continue;
    Tensor host = t.detach().to(kCPU).contiguous();
    file.write(host.data_ptr(), static_cast<size_t>(host.numel()) * host.element_size());
  }
  file.commit();
}

SafetensorsFile load_file(const std::string& path, const Device& device) {
  InputFile f(path);
  Header h = read_header(f, path);
  SafetensorsFile out;
  out.metadata = std::move(h.metadata);
  out.tensors.reserve(h.entries.size());
  for (const Entry& e : h.entries) {
    Tensor t = empty(e.shape, TensorOptions(e.dtype));
    uint64_t nbytes = e.end - e.begin;
    if (nbytes > 0) f.read(t.data_ptr(), nbytes, h.data_start + e.begin);
    if (e.dtype == kBool) {
      // Any non-zero byte is true; a C++ bool must hold exactly 0 or 1.
      auto* p = static_cast<uint8_t*>(t.data_ptr());
      for (uint64_t i = 0; i < nbytes; ++i) p[i] = p[i] != 0;
    }
    if (!device.is_cpu()) t = t.to(device);
    out.tensors.emplace_back(e.name, std::move(t));
  }
  return out;
}

std::map<std::string, std::string> load_metadata(const std::string& path) {
  InputFile f(path);
  return read_header(f, path).metadata;
}

}  // namespace adept::io
