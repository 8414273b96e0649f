// TensorBoard event files (adept/io/tensorboard.h): TFRecord framing, CRC-32C, and the few fields of
// tensorflow.Event / Summary it writes, encoded by hand in the protocol-buffer wire format.
#include "adept/io/tensorboard.h"

#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "adept/errors.h"

namespace adept::io {

namespace {

// The table of the byte-at-a-time reflected CRC with the Castagnoli polynomial.
constexpr std::array<uint32_t, 256> make_crc32c_table() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    t[i] = c;
  }
  return t;
}
constexpr std::array<uint32_t, 256> kCrc32cTable = make_crc32c_table();

// ---- protocol-buffer wire format: keys are (field << 3) | wire type.
enum Wire : uint32_t { kVarint = 0, kFixed64 = 1, kBytes = 2, kFixed32 = 5 };

void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
void put_key(std::string& out, uint32_t field, Wire wire) { put_varint(out, (uint64_t{field} << 3) | wire); }
void put_le(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
void put_int(std::string& out, uint32_t field, int64_t v) {  // int32 / int64 fields: two's complement varint
  put_key(out, field, kVarint);
  put_varint(out, static_cast<uint64_t>(v));
}
void put_bytes(std::string& out, uint32_t field, const void* data, size_t n) {
  put_key(out, field, kBytes);
  put_varint(out, n);
  out.append(static_cast<const char*>(data), n);
}
void put_bytes(std::string& out, uint32_t field, const std::string& s) { put_bytes(out, field, s.data(), s.size()); }
void put_double(std::string& out, uint32_t field, double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  put_key(out, field, kFixed64);
  put_le(out, bits, 8);
}
void put_float(std::string& out, uint32_t field, float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  put_key(out, field, kFixed32);
  put_le(out, bits, 4);
}

// tensorflow.Summary holding one Value (field 1).
std::string summary_of(const std::string& value) {
  std::string s;
  put_bytes(s, 1, value);
  return s;
}

double unix_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::atomic<int> g_file_counter{0};

}  // namespace

uint32_t crc32c(const void* data, size_t n, uint32_t crc) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint32_t c = ~crc;
  for (size_t i = 0; i < n; ++i) c = kCrc32cTable[(c ^ p[i]) & 0xFF] ^ (c >> 8);
  return ~c;
}

uint32_t masked_crc32c(const void* data, size_t n) {
  const uint32_t crc = crc32c(data, n);
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

std::vector<uint8_t> tfrecord_frame(const std::string& data) {
  std::string head;
  put_le(head, data.size(), 8);
  std::string out = head;
  put_le(out, masked_crc32c(head.data(), head.size()), 4);
  out += data;
  put_le(out, masked_crc32c(data.data(), data.size()), 4);
  return {out.begin(), out.end()};
}

SummaryWriter::SummaryWriter(const std::string& log_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(log_dir, ec);
  ADEPT_CHECK(!ec, IOError, "tensorboard: cannot create the log folder {}: {}", log_dir, ec.message());
  char host[256] = "localhost";
  if (gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "localhost");
  host[sizeof host - 1] = '\0';
  const auto seconds = static_cast<int64_t>(unix_seconds());
  // A new file, never an existing one ("x"): another writer of this process or a resumed run's
  // earlier part may have taken a name in the same second.
  for (int attempt = 0; attempt < 100 && !file_; ++attempt) {
    path_ = (fs::path(log_dir) / fmt::format("events.out.tfevents.{}.{}.{}.{}", seconds, host, getpid(),
                                             g_file_counter++))
                .string();
    file_ = std::fopen(path_.c_str(), "wbx");
    ADEPT_CHECK(file_ || errno == EEXIST, IOError, "tensorboard: cannot create the event file {}: {}", path_,
                std::strerror(errno));
  }
  ADEPT_CHECK(file_ != nullptr, IOError, "tensorboard: cannot create a new event file in {}: {} exists", log_dir,
              path_);
  write_event(0, "", "brain.Event:2");
  flush();
}

SummaryWriter::~SummaryWriter() {
  if (file_) std::fclose(file_);
}

void SummaryWriter::write_event(int64_t step, const std::string& summary, const std::string& file_version) {
  std::string event;
  put_double(event, 1, unix_seconds());
  put_int(event, 2, step);
  if (!file_version.empty()) put_bytes(event, 3, file_version);
  if (!summary.empty()) put_bytes(event, 5, summary);
  const std::vector<uint8_t> record = tfrecord_frame(event);
  const size_t written = std::fwrite(record.data(), 1, record.size(), file_);
  ADEPT_CHECK(written == record.size(), IOError, "tensorboard: cannot write to the event file {}: {}", path_,
              std::strerror(errno));
}

void SummaryWriter::add_scalar(const std::string& tag, double value, int64_t step) {
  ADEPT_CHECK(!tag.empty(), ValueError, "tensorboard: add_scalar needs a tag, got an empty one");
  std::string v;
  put_bytes(v, 1, tag);
  put_float(v, 2, static_cast<float>(value));
  write_event(step, summary_of(v));
}

void SummaryWriter::add_image_encoded(const std::string& tag, const std::vector<uint8_t>& encoded, int64_t height,
                                      int64_t width, int channels, int64_t step) {
  ADEPT_CHECK(!tag.empty(), ValueError, "tensorboard: add_image_encoded needs a tag, got an empty one");
  ADEPT_CHECK(!encoded.empty(), ValueError, "tensorboard: image '{}' has no encoded bytes", tag);
  ADEPT_CHECK(height > 0 && width > 0 && channels > 0, ValueError,
              "tensorboard: image '{}' needs positive height, width and channels, got {}x{}x{}", tag, height, width,
              channels);
  std::string image;
  put_int(image, 1, height);
  put_int(image, 2, width);
  put_int(image, 3, channels);
  put_bytes(image, 4, encoded.data(), encoded.size());
  std::string v;
  put_bytes(v, 1, tag);
  put_bytes(v, 4, image);
  write_event(step, summary_of(v));
}

void SummaryWriter::flush() {
  ADEPT_CHECK(std::fflush(file_) == 0, IOError, "tensorboard: cannot write to the event file {}: {}", path_,
              std::strerror(errno));
}

}  // namespace adept::io
