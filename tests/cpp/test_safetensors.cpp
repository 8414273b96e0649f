// Tests of safetensors checkpoints (adept/io/safetensors.h): round trips of every dtype and layout,
// the byte layout of the format, rejection of malformed files and atomic replacement.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "adept/io/safetensors.h"
#include "adept/vulkan.h"
#include "test_util.h"

namespace adept {
namespace {

namespace fs = std::filesystem;
using testing::same;
using testing::uniform;
using Named = std::vector<std::pair<std::string, Tensor>>;

// A fresh, empty directory per test, removed afterwards.
class SafetensorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "adept_safetensors_XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::vector<std::string> listing() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  fs::path dir_;
};

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}
void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}
std::string le64(uint64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>(v >> (8 * i));
  return s;
}
// A file with the given header text and data bytes, as any conforming writer would lay it out.
std::string file_bytes(const std::string& header, const std::string& data) {
  return le64(header.size()) + header + data;
}
std::string raw(const Tensor& t) {
  Tensor c = t.contiguous();
  return {static_cast<const char*>(c.data_ptr()), static_cast<size_t>(c.numel()) * c.element_size()};
}

// One tensor per dtype, several layouts: 0-d, zero-size, non-contiguous views.
Named sample_tensors() {
  Named out;
  int k = 0;
  for (Dtype d : {kFloat64, kFloat32, kFloat16, kBFloat16, kInt64, kInt32, kUInt8, kBool}) {
    Tensor base = uniform({3, 4}, -50, 50, kFloat64, ++k);
    if (d == kUInt8) base = base.abs();
    if (d == kBool) base = base > Scalar(0.0);
    out.emplace_back(std::string("w_") + dtype_name(d), base.to(d));
  }
  out.emplace_back("scalar", uniform({}, -1, 1, kFloat32, 20));
  out.emplace_back("empty", empty({0, 3}, TensorOptions(kFloat32)));
  out.emplace_back("transposed", uniform({4, 5}, -1, 1, kFloat64, 21).t());
  out.emplace_back("sliced", uniform({6, 5}, -1, 1, kFloat32, 22).slice(0, 1, 6, 2).slice(1, 1, None));
  out.emplace_back("a.b/c with spaces é", uniform({2}, -1, 1, kFloat32, 23));
  return out;
}

void expect_same_tensors(const Named& got, const Named& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].first, want[i].first);
    EXPECT_TRUE(got[i].second.is_contiguous());
    EXPECT_TRUE(same(got[i].second, want[i].second)) << want[i].first;
  }
}

TEST_F(SafetensorsTest, RoundTripEveryDtypeAndLayoutWithMetadata) {
  Named tensors = sample_tensors();
  std::map<std::string, std::string> meta{{"epoch", "7"}, {"config", "{\"lr\": 0.01}"}, {"ünïcode", "✓"}};
  io::save_file(tensors, path("ckpt.safetensors"), meta);
  io::SafetensorsFile f = io::load_file(path("ckpt.safetensors"));
  expect_same_tensors(f.tensors, tensors);
  EXPECT_EQ(f.metadata, meta);
  EXPECT_EQ(io::load_metadata(path("ckpt.safetensors")), meta);
  EXPECT_EQ(listing(), std::vector<std::string>{"ckpt.safetensors"});
}

TEST_F(SafetensorsTest, RoundTripNoTensorsAndRequiresGrad) {
  io::save_file({}, path("empty.st"));
  io::SafetensorsFile e = io::load_file(path("empty.st"));
  EXPECT_TRUE(e.tensors.empty());
  EXPECT_TRUE(e.metadata.empty());

  Tensor w = uniform({2, 3}, -1, 1, kFloat32, 3).requires_grad_();
  io::save_file({{"w", w}}, path("w.st"));
  io::SafetensorsFile f = io::load_file(path("w.st"));
  EXPECT_FALSE(f.tensors[0].second.requires_grad());
  EXPECT_TRUE(same(f.tensors[0].second, w.detach()));
}

TEST_F(SafetensorsTest, RoundTripFromAndToVulkanDevice) {
  if (!vulkan_is_available()) GTEST_SKIP() << "no Vulkan device";
  Tensor host = uniform({5, 3}, -1, 1, kFloat32, 4);
  Tensor on_gpu = host.to(Device("vulkan")).t();  // non-contiguous, on the device
  io::save_file({{"w", on_gpu}}, path("gpu.st"));
  io::SafetensorsFile f = io::load_file(path("gpu.st"), Device("vulkan"));
  ASSERT_EQ(f.tensors.size(), 1u);
  EXPECT_EQ(f.tensors[0].second.device().type, DeviceType::Vulkan);
  EXPECT_TRUE(same(f.tensors[0].second.to(kCPU), host.t()));
}

TEST_F(SafetensorsTest, WritesTheFormatsByteLayout) {
  Tensor a = uniform({2, 3}, -1, 1, kFloat32, 5);
  Tensor b = tensor(std::vector<int64_t>{-3, 1LL << 40});
  io::save_file({{"a", a}, {"b", b}}, path("x.st"), {{"k", "v"}});
  std::string bytes = read_bytes(path("x.st"));
  ASSERT_GE(bytes.size(), 8u);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(bytes[i]);
  EXPECT_EQ(n % 8, 0u) << "the data buffer starts 8-byte aligned";
  ASSERT_EQ(bytes.size(), 8 + n + 24 + 16);
  std::string header = bytes.substr(8, n);
  EXPECT_EQ(header.substr(0, 1), "{");
  EXPECT_NE(header.find("\"__metadata__\":{\"k\":\"v\"}"), std::string::npos) << header;
  EXPECT_NE(header.find("\"a\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]}"), std::string::npos) << header;
  EXPECT_NE(header.find("\"b\":{\"dtype\":\"I64\",\"shape\":[2],\"data_offsets\":[24,40]}"), std::string::npos) << header;
  EXPECT_EQ(bytes.substr(8 + n), raw(a) + raw(b));
}

TEST_F(SafetensorsTest, ReadsHandWrittenFileInAnyHeaderOrder) {
  // Header order differs from data order; whitespace and padding as another writer may emit.
  Tensor x = uniform({2, 2}, -1, 1, kFloat32, 6);
  Tensor y = uniform({3}, -1, 1, kBFloat16, 7);
  std::string header =
      "{ \"y\": {\"shape\": [3], \"dtype\": \"BF16\", \"data_offsets\": [16, 22]},\n"
      "  \"__metadata__\": {\"format\": \"pt\"},\n"
      "  \"x\": {\"dtype\": \"F32\", \"shape\": [2, 2], \"data_offsets\": [0, 16]} }   ";
  write_bytes(path("h.st"), file_bytes(header, raw(x) + raw(y)));
  io::SafetensorsFile f = io::load_file(path("h.st"));
  expect_same_tensors(f.tensors, {{"x", x}, {"y", y}});
  EXPECT_EQ(f.metadata, (std::map<std::string, std::string>{{"format", "pt"}}));
}

TEST_F(SafetensorsTest, BoolBytesOtherThanOneReadAsTrue) {
  std::string header = R"({"m":{"dtype":"BOOL","shape":[3],"data_offsets":[0,3]}})";
  write_bytes(path("b.st"), file_bytes(header, std::string("\x00\x01\x07", 3)));
  Tensor m = io::load_file(path("b.st")).tensors[0].second;
  EXPECT_EQ(testing::ivalues(m), (std::vector<int64_t>{0, 1, 1}));
  EXPECT_EQ(testing::ivalues(m.to(kInt64)), (std::vector<int64_t>{0, 1, 1}));
}

// The error type and a message naming the file and containing `what`.
template <class E>
void expect_load_error(const std::string& path, const std::string& what) {
  try {
    io::load_file(path);
    ADD_FAILURE() << "no error for " << path << " (expected: " << what << ")";
  } catch (const E& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find(what), std::string::npos) << "expected '" << what << "' in: " << msg;
  }
}

TEST_F(SafetensorsTest, ErrorsMissingFileAndEveryTruncation) {
  expect_load_error<IOError>(path("missing.st"), "No such file");
  io::save_file({{"a", uniform({3, 5}, -1, 1, kFloat32, 8)}, {"b", uniform({7}, -1, 1, kFloat64, 9)}},
                path("ok.st"), {{"k", "v"}});
  std::string bytes = read_bytes(path("ok.st"));
  size_t data_start = 8 + static_cast<uint8_t>(bytes[0]) + 256 * static_cast<uint8_t>(bytes[1]);
  ASSERT_EQ(bytes.size(), data_start + 60 + 56);
  for (size_t len = 0; len < bytes.size(); ++len) {
    write_bytes(path("cut.st"), bytes.substr(0, len));
    std::string what = len < 8 ? "too short" : len < data_start ? "exceeds the file size" : "beyond the";
    SCOPED_TRACE("truncated to " + std::to_string(len) + " bytes");
    expect_load_error<IOError>(path("cut.st"), what);
  }
}

TEST_F(SafetensorsTest, ErrorsMalformedHeaders) {
  struct Case { const char* header; size_t data; const char* what; };
  const Case cases[] = {
      {"{\"a\": {\"dtype\": \"F32\", ", 0, "invalid JSON"},
      {"{\"a\": 1,}", 0, "invalid JSON"},
      {"[1, 2]", 0, "does not start with '{'"},
      {"{\"a\": [1]}", 0, "expected an object"},
      {R"({"a":{"dtype":"F32","shape":[2]}})", 8, "missing \"data_offsets\""},
      {R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8, "needs 12 bytes"},
      {R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", 8, "non-negative integers"},
      {R"({"a":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}})", 8, "non-negative integers"},
      {R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", 8, "end before they begin"},
      {R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
       12, "overlap"},
      {R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
       12, "belong to no tensor"},
      {R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 12, "after the last tensor"},
      {R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", 8, "beyond the 8-byte data buffer"},
      {R"({"a":{"dtype":"F32","shape":[4611686018427387904,4],"data_offsets":[0,16]}})", 16, "too large"},
      {R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
       8, "names 'a' twice"},
      {R"({"__metadata__":{"epoch":3}})", 0, "metadata 'epoch' is 3"},
      {R"({"__metadata__":[]})", 0, "\"__metadata__\" is not an object"},
      {"{\"\xff\": 1}", 0, "invalid JSON"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.header);
    write_bytes(path("bad.st"), file_bytes(c.header, std::string(c.data, '\0')));
    expect_load_error<IOError>(path("bad.st"), c.what);
    try {
      io::load_metadata(path("bad.st"));
      ADD_FAILURE() << "load_metadata accepted it";
    } catch (const IOError&) {
    }
  }
  // Header length far beyond the file (e.g. random bytes read as a length).
  write_bytes(path("big.st"), le64(1ULL << 62) + "{}");
  expect_load_error<IOError>(path("big.st"), "exceeds the file size");
  expect_load_error<IOError>(dir_.string(), "is a directory");
}

TEST_F(SafetensorsTest, ErrorsUnsupportedAndUnknownDtypeNameTheTensor) {
  write_bytes(path("i16.st"), file_bytes(R"({"lut":{"dtype":"I16","shape":[2],"data_offsets":[0,4]}})", "abcd"));
  expect_load_error<DtypeError>(path("i16.st"), "tensor 'lut' has the unsupported dtype \"I16\"");
  write_bytes(path("f31.st"), file_bytes(R"({"w":{"dtype":"F31","shape":[1],"data_offsets":[0,4]}})", "abcd"));
  expect_load_error<DtypeError>(path("f31.st"), "tensor 'w' has an unknown dtype \"F31\"");
}

TEST_F(SafetensorsTest, SaveRejectsBadNamesBeforeTouchingTheFile) {
  Tensor t = uniform({2}, -1, 1, kFloat32, 10);
  io::save_file({{"old", t}}, path("c.st"));
  std::string before = read_bytes(path("c.st"));
  const Named bad[] = {
      {{"", t}},
      {{"a", t}, {"b", t}, {"a", t}},
      {{"__metadata__", t}},
      {{"a", t}, {"b", Tensor()}},
      {{"bad\xff utf8", t}},
  };
  for (const Named& tensors : bad) {
    EXPECT_THROW(io::save_file(tensors, path("c.st")), ValueError);
    EXPECT_EQ(read_bytes(path("c.st")), before);
    EXPECT_EQ(listing(), std::vector<std::string>{"c.st"});
  }
  EXPECT_THROW(io::save_file({{"a", t}}, path("c.st"), {{"k", "\xc3"}}), ValueError);
  EXPECT_EQ(read_bytes(path("c.st")), before);
}

TEST_F(SafetensorsTest, AtomicReplaceOnlyWhenWriteCompletes) {
  Tensor old_t = uniform({4}, -1, 1, kFloat32, 11);
  io::save_file({{"w", old_t}}, path("m.st"), {{"v", "1"}});
  std::string before = read_bytes(path("m.st"));

  // A write that fails half-way (file size limit: EFBIG) leaves the old file and no temp file.
  Tensor big = uniform({64, 1024}, -1, 1, kFloat32, 12);
  struct rlimit saved {};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = saved;
  small.rlim_cur = 4096;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  bool threw = false;
  std::string msg;
  try {
    io::save_file({{"w", big}}, path("m.st"));
  } catch (const IOError& e) {
    threw = true;
    msg = e.what();
  }
  setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_TRUE(threw);
  EXPECT_NE(msg.find(path("m.st")), std::string::npos) << msg;
  EXPECT_EQ(read_bytes(path("m.st")), before);
  EXPECT_EQ(listing(), std::vector<std::string>{"m.st"});

  // Missing directory; a target that is a directory (fails at the rename, after writing).
  EXPECT_THROW(io::save_file({{"w", big}}, path("no_such_dir/m.st")), IOError);
  fs::create_directory(path("sub"));
  write_bytes(path("sub/keep"), "x");
  EXPECT_THROW(io::save_file({{"w", big}}, path("sub")), IOError);
  EXPECT_EQ(listing(), (std::vector<std::string>{"m.st", "sub"}));
  EXPECT_EQ(read_bytes(path("sub/keep")), "x");

  // A complete write replaces the file.
  io::save_file({{"w", big}}, path("m.st"));
  io::SafetensorsFile f = io::load_file(path("m.st"));
  expect_same_tensors(f.tensors, {{"w", big}});
  EXPECT_TRUE(f.metadata.empty());
  EXPECT_EQ(listing(), (std::vector<std::string>{"m.st", "sub"}));
}

}  // namespace
}  // namespace adept
