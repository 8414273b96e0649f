// Tests of TensorBoard event files (adept/io/tensorboard.h): CRC-32C against published check values,
// the masked CRC and record framing, and written files read back by this test's own TFRecord reader and
// protocol-buffer decoder (the `tensorboard` package reads them in tests/python/test_yolo_tensorboard.py).
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "adept/errors.h"
#include "adept/io/tensorboard.h"

namespace adept {
namespace {

namespace fs = std::filesystem;

// ---- the reader: TFRecord framing checked, then the wire format of the Event fields the writer uses.
uint64_t le(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::vector<std::string> read_records(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  std::vector<std::string> out;
  size_t at = 0;
  while (at < bytes.size()) {
    EXPECT_LE(at + 12, bytes.size()) << "torn record header";
    if (at + 12 > bytes.size()) break;
    const uint64_t n = le(p + at, 8);
    EXPECT_EQ(le(p + at + 8, 4), io::masked_crc32c(p + at, 8)) << "length CRC of the record at " << at;
    EXPECT_LE(at + 12 + n + 4, bytes.size()) << "torn record";
    if (at + 12 + n + 4 > bytes.size()) break;
    EXPECT_EQ(le(p + at + 12 + n, 4), io::masked_crc32c(p + at + 12, n)) << "data CRC of the record at " << at;
    out.emplace_back(bytes.substr(at + 12, n));
    at += 12 + n + 4;
  }
  return out;
}

struct Field {
  uint32_t number = 0, wire = 0;
  uint64_t varint = 0;  // wire 0; the bits of wires 1 and 5
  std::string bytes;    // wire 2
};

std::vector<Field> decode(const std::string& msg) {
  std::vector<Field> out;
  size_t at = 0;
  auto varint = [&] {
    uint64_t v = 0;
    for (int shift = 0; at < msg.size(); shift += 7) {
      const auto b = static_cast<uint8_t>(msg[at++]);
      v |= uint64_t{b & 0x7Fu} << shift;
      if (!(b & 0x80)) break;
    }
    return v;
  };
  while (at < msg.size()) {
    const uint64_t key = varint();
    Field f;
    f.number = static_cast<uint32_t>(key >> 3);
    f.wire = static_cast<uint32_t>(key & 7);
    if (f.wire == 0) {
      f.varint = varint();
    } else if (f.wire == 1 || f.wire == 5) {
      const int n = f.wire == 1 ? 8 : 4;
      f.varint = le(reinterpret_cast<const uint8_t*>(msg.data()) + at, n);
      at += n;
    } else if (f.wire == 2) {
      const uint64_t n = varint();
      f.bytes = msg.substr(at, n);
      at += n;
    } else {
      ADD_FAILURE() << "unexpected wire type " << f.wire;
      break;
    }
    out.push_back(f);
  }
  EXPECT_EQ(at, msg.size()) << "message overruns its bytes";
  return out;
}

const Field* find(const std::vector<Field>& fields, uint32_t number) {
  for (const Field& f : fields)
    if (f.number == number) return &f;
  return nullptr;
}

// One decoded Event, with its summary's single value.
struct Event {
  double wall_time = 0;
  int64_t step = -1;
  std::string file_version, tag;
  bool has_scalar = false, has_image = false;
  float scalar = 0;
  int64_t height = 0, width = 0, colorspace = 0;
  std::string encoded;
};

Event parse_event(const std::string& data) {
  Event e;
  const std::vector<Field> fields = decode(data);
  if (const Field* f = find(fields, 1)) std::memcpy(&e.wall_time, &f->varint, 8);
  if (const Field* f = find(fields, 2)) e.step = static_cast<int64_t>(f->varint);
  if (const Field* f = find(fields, 3)) e.file_version = f->bytes;
  if (const Field* f = find(fields, 5)) {
    const std::vector<Field> values = decode(f->bytes);
    EXPECT_EQ(values.size(), 1u);
    const std::vector<Field> value = decode(values.at(0).bytes);
    e.tag = find(value, 1)->bytes;
    if (const Field* s = find(value, 2)) {
      EXPECT_EQ(s->wire, 5u);
      const auto bits = static_cast<uint32_t>(s->varint);
      std::memcpy(&e.scalar, &bits, 4);
      e.has_scalar = true;
    }
    if (const Field* im = find(value, 4)) {
      const std::vector<Field> image = decode(im->bytes);
      e.height = static_cast<int64_t>(find(image, 1)->varint);
      e.width = static_cast<int64_t>(find(image, 2)->varint);
      e.colorspace = static_cast<int64_t>(find(image, 3)->varint);
      e.encoded = find(image, 4)->bytes;
      e.has_image = true;
    }
  }
  return e;
}

class TensorBoardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "adept_tensorboard_XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::vector<std::string> event_files() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
  }
  std::string dir_;
};

TEST(TensorBoardCrc, Crc32cCheckValues) {
  // The CRC catalogue's check value and RFC 3720 (iSCSI) appendix B.4's vectors.
  EXPECT_EQ(io::crc32c("123456789", 9), 0xE3069283u);
  EXPECT_EQ(io::crc32c("", 0), 0u);
  std::vector<uint8_t> zeros(32, 0), ones(32, 0xFF), inc(32), dec(32);
  for (int i = 0; i < 32; ++i) inc[i] = static_cast<uint8_t>(i), dec[i] = static_cast<uint8_t>(31 - i);
  EXPECT_EQ(io::crc32c(zeros.data(), 32), 0x8A9136AAu);
  EXPECT_EQ(io::crc32c(ones.data(), 32), 0x62A8AB43u);
  EXPECT_EQ(io::crc32c(inc.data(), 32), 0x46DD794Eu);
  EXPECT_EQ(io::crc32c(dec.data(), 32), 0x113FDB5Cu);
  // Continuing from a partial CRC gives the CRC of the whole.
  EXPECT_EQ(io::crc32c("6789", 4, io::crc32c("12345", 5)), 0xE3069283u);
}

TEST(TensorBoardCrc, MaskedCrcAndFrame) {
  // ((0xE3069283 >> 15) | (0xE3069283 << 17)) + 0xa282ead8 mod 2^32.
  EXPECT_EQ(io::masked_crc32c("123456789", 9), 0xC78AB0E5u);
  const std::vector<uint8_t> r = io::tfrecord_frame("abc");
  ASSERT_EQ(r.size(), 8u + 4 + 3 + 4);
  EXPECT_EQ(le(r.data(), 8), 3u);
  EXPECT_EQ(le(r.data() + 8, 4), io::masked_crc32c(r.data(), 8));
  EXPECT_EQ(std::string(r.begin() + 12, r.begin() + 15), "abc");
  EXPECT_EQ(le(r.data() + 15, 4), io::masked_crc32c("abc", 3));
}

TEST_F(TensorBoardTest, ScalarsAndImagesReadBack) {
  const std::string png = "\x89PNG\r\n\x1a\n-not-really-a-png";
  std::string path;
  {
    io::SummaryWriter w(dir_ + "/run");
    path = w.path();
    w.add_scalar("train/box_loss", 1.25, 1);
    w.add_scalar("metrics/mAP50(B)", 0.1, 300);
    w.add_scalar("big/step", -3.5, int64_t{1} << 40);
    w.add_image_encoded("train_batch", std::vector<uint8_t>(png.begin(), png.end()), 48, 64, 3, 2);
    w.flush();
    EXPECT_EQ(read_records(path).size(), 5u);  // visible after flush, before the writer closes
  }
  const std::string name = fs::path(path).filename().string();
  EXPECT_EQ(name.rfind("events.out.tfevents.", 0), 0u) << name;
  EXPECT_NE(name.find(std::to_string(getpid())), std::string::npos) << name;
  const std::vector<std::string> records = read_records(path);
  ASSERT_EQ(records.size(), 5u);
  std::vector<Event> ev;
  for (const std::string& r : records) ev.push_back(parse_event(r));
  EXPECT_EQ(ev[0].file_version, "brain.Event:2");
  EXPECT_EQ(ev[0].step, 0);
  EXPECT_GT(ev[0].wall_time, 1.6e9);  // seconds since 1970, now
  EXPECT_EQ(ev[1].tag, "train/box_loss");
  EXPECT_TRUE(ev[1].has_scalar);
  EXPECT_EQ(ev[1].scalar, 1.25f);
  EXPECT_EQ(ev[1].step, 1);
  EXPECT_EQ(ev[2].tag, "metrics/mAP50(B)");
  EXPECT_EQ(ev[2].scalar, 0.1f);
  EXPECT_EQ(ev[2].step, 300);
  EXPECT_EQ(ev[3].scalar, -3.5f);
  EXPECT_EQ(ev[3].step, int64_t{1} << 40);
  EXPECT_TRUE(ev[4].has_image);
  EXPECT_FALSE(ev[4].has_scalar);
  EXPECT_EQ(ev[4].tag, "train_batch");
  EXPECT_EQ(ev[4].height, 48);
  EXPECT_EQ(ev[4].width, 64);
  EXPECT_EQ(ev[4].colorspace, 3);
  EXPECT_EQ(ev[4].encoded, png);
  EXPECT_EQ(ev[4].step, 2);
  for (const Event& e : ev) EXPECT_GE(e.wall_time, ev[0].wall_time);
}

TEST_F(TensorBoardTest, EachWriterANewFile) {
  {
    io::SummaryWriter a(dir_), b(dir_);
    EXPECT_NE(a.path(), b.path());
    a.add_scalar("x", 1, 1);
  }
  {
    io::SummaryWriter c(dir_);  // a resumed run: a third file, the first two untouched
    c.add_scalar("x", 2, 2);
  }
  const std::vector<std::string> files = event_files();
  ASSERT_EQ(files.size(), 3u);
  size_t scalars = 0;
  for (const std::string& f : files)
    for (const std::string& r : read_records(f)) scalars += parse_event(r).has_scalar;
  EXPECT_EQ(scalars, 2u);
}

TEST_F(TensorBoardTest, Errors) {
  std::ofstream(dir_ + "/file") << "x";
  try {
    io::SummaryWriter w(dir_ + "/file/sub");  // a folder under a regular file
    FAIL() << "no IOError";
  } catch (const IOError& e) {
    EXPECT_NE(std::string(e.what()).find(dir_ + "/file/sub"), std::string::npos) << e.what();
  }
  io::SummaryWriter w(dir_);
  EXPECT_THROW(w.add_scalar("", 1, 0), ValueError);
  EXPECT_THROW(w.add_image_encoded("img", {}, 1, 1, 3, 0), ValueError);
  EXPECT_THROW(w.add_image_encoded("img", {1, 2}, 0, 1, 3, 0), ValueError);
}

TEST_F(TensorBoardTest, WriteErrorNamesTheFile) {
  // A write that fails (file size limit: EFBIG) raises IOError naming the event file.
  io::SummaryWriter w(dir_);
  struct rlimit saved {};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = saved;
  small.rlim_cur = 4096;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string msg;
  try {
    w.add_image_encoded("img", std::vector<uint8_t>(1 << 16, 7), 8, 8, 3, 0);
    w.flush();
  } catch (const IOError& e) {
    msg = e.what();
  }
  setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_NE(msg.find(w.path()), std::string::npos) << "no IOError naming the file: '" << msg << "'";
}

}  // namespace
}  // namespace adept
