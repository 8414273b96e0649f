// TensorProto -> Tensor and the element-type table (ONNX IR, https://onnx.ai/onnx/repo-docs/IR.html,
// "Tensor element types"; codes past BFLOAT16 = 16 come from newer ONNX than Debian's 1.12).
#include "onnx/proto.h"

#include <bit>
#include <cctype>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include <fmt/ranges.h>

#include "adept/onnx.h"
#include "adept/ops/creation.h"

namespace adept::onnx::detail {

static_assert(std::endian::native == std::endian::little, "raw_data is little-endian; big-endian hosts need a byte swap");

namespace {

// Names of the element types by code (TensorProto.DataType of ONNX 1.22).
constexpr const char* kTypeNames[] = {
    "UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32", "INT64", "STRING", "BOOL",
    "FLOAT16", "DOUBLE", "UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16", "FLOAT8E4M3FN",
    "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4", "INT4", "FLOAT4E2M1", "FLOAT8E8M0",
    "UINT2", "INT2"};

// Copies the values of a repeated field, converted element by element to the tensor's C++ type.
template <class Dst, class Field>
Tensor from_field(const Field& field, const Shape& shape, Dtype dtype) {
  std::vector<Dst> values(field.begin(), field.end());
  return from_blob_copy(values.data(), shape, dtype);
}

// 16-bit types stored as their bit patterns in int32_data.
template <class Dst>
Tensor from_bit_patterns(const google::protobuf::RepeatedField<int32_t>& field, const Shape& shape, Dtype dtype) {
  std::vector<Dst> values;
  values.reserve(field.size());
  for (int32_t v : field) values.push_back(Dst::from_bits(static_cast<uint16_t>(v)));
  return from_blob_copy(values.data(), shape, dtype);
}

}  // namespace

std::optional<Dtype> dtype_from_onnx(int32_t elem_type) {
  switch (elem_type) {
    case ::onnx::TensorProto::FLOAT: return kFloat32;
    case ::onnx::TensorProto::UINT8: return kUInt8;
    case ::onnx::TensorProto::INT32: return kInt32;
    case ::onnx::TensorProto::INT64: return kInt64;
    case ::onnx::TensorProto::BOOL: return kBool;
    case ::onnx::TensorProto::FLOAT16: return kFloat16;
    case ::onnx::TensorProto::DOUBLE: return kFloat64;
    case ::onnx::TensorProto::BFLOAT16: return kBFloat16;
    default: return std::nullopt;
  }
}

int32_t onnx_type_from_dtype(Dtype dtype) {
  switch (dtype) {
    case kFloat32: return ::onnx::TensorProto::FLOAT;
    case kUInt8: return ::onnx::TensorProto::UINT8;
    case kInt32: return ::onnx::TensorProto::INT32;
    case kInt64: return ::onnx::TensorProto::INT64;
    case kBool: return ::onnx::TensorProto::BOOL;
    case kFloat16: return ::onnx::TensorProto::FLOAT16;
    case kFloat64: return ::onnx::TensorProto::DOUBLE;
    case kBFloat16: return ::onnx::TensorProto::BFLOAT16;
  }
  throw Error("unreachable: every Adept dtype has an ONNX element type");
}

std::string onnx_type_name(int32_t elem_type) {
  if (elem_type >= 0 && elem_type < static_cast<int32_t>(std::size(kTypeNames))) return kTypeNames[elem_type];
  return "TYPE" + std::to_string(elem_type);
}

namespace {

// The bytes of an external tensor: file `location` under base_dir, from `offset`, `length` bytes (default:
// to the end of the file).
std::string external_bytes(const ::onnx::TensorProto& proto, const std::string& what, const std::string& base_dir) {
  ADEPT_CHECK(!base_dir.empty(), IOError,
              "{}: tensor '{}' keeps its data in an external file; load the model from its path so that the file "
              "can be found next to it",
              what, proto.name());
  std::string location;
  int64_t offset = 0, length = 0;
  bool has_length = false;
  // offset and length: decimal integers as Python's int() in onnx reads them (surrounding whitespace, a sign,
  // single underscores between digits); anything else ("36abc", "8.0", "0x8") is malformed.
  auto integer = [&](const std::string& key, const std::string& value) {
    const size_t first = value.find_first_not_of(" \t\n\r\f\v"), last = value.find_last_not_of(" \t\n\r\f\v");
    std::string text = first == std::string::npos ? "" : value.substr(first, last - first + 1);
    bool ok = !text.empty();
    std::string digits;
    size_t i = !text.empty() && (text[0] == '+' || text[0] == '-') ? 1 : 0;
    if (i == 1 && text[0] == '-') digits = "-";
    for (; ok && i < text.size(); ++i) {
      const char ch = text[i];
      if (ch >= '0' && ch <= '9') digits += ch;
      else ok = ch == '_' && i > 0 && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i - 1])) &&
                std::isdigit(static_cast<unsigned char>(text[i + 1]));
    }
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    ok = ok && !digits.empty() && digits != "-" && ec == std::errc() && end == digits.data() + digits.size();
    ADEPT_CHECK(ok, IOError, "{}: tensor '{}' has a malformed external-data {} '{}' (expected a decimal integer)",
                what, proto.name(), key, value);
    return v;
  };
  for (const auto& kv : proto.external_data()) {
    if (kv.key() == "location") location = kv.value();
    else if (kv.key() == "offset") offset = integer(kv.key(), kv.value());
    else if (kv.key() == "length") length = integer(kv.key(), kv.value()), has_length = true;
  }
  std::filesystem::path rel(location);
  bool inside = !location.empty() && rel.is_relative();
  for (const auto& part : rel) inside = inside && part != "..";
  ADEPT_CHECK(inside, IOError, "{}: tensor '{}' names external data '{}', which is not a relative path inside the "
              "model's folder", what, proto.name(), location);
  // A symbolic link on the way (the file or a folder) could lead anywhere: refused, as paths leaving the folder.
  std::filesystem::path file = base_dir;
  for (const auto& part : rel) {
    file /= part;
    std::error_code ec;
    ADEPT_CHECK(!std::filesystem::is_symlink(std::filesystem::symlink_status(file, ec)), IOError,
                "{}: tensor '{}' names external data '{}', whose {} is a symbolic link; external data must be a "
                "regular file inside the model's folder, reached without links",
                what, proto.name(), location, file.string());
  }
  ADEPT_CHECK(offset >= 0, IOError, "{}: tensor '{}' has a negative external-data offset ({}) in '{}'", what,
              proto.name(), offset, location);
  ADEPT_CHECK(!has_length || length >= 0, IOError,
              "{}: tensor '{}' has a negative external-data length ({}) in '{}'", what, proto.name(), length, location);
  // Only a regular file is read: a folder would be "read" as a huge stream (std::bad_alloc), a FIFO or a
  // device could block forever or never end.
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(file, ec);
  ADEPT_CHECK(std::filesystem::exists(st), IOError, "{}: the external data file {} of tensor '{}' (location '{}') "
              "does not exist", what, file.string(), proto.name(), location);
  ADEPT_CHECK(std::filesystem::is_regular_file(st), IOError,
              "{}: tensor '{}' names external data '{}', which is not a regular file ({} is a {}); external data "
              "must be a regular file inside the model's folder",
              what, proto.name(), location, file.string(),
              std::filesystem::is_directory(st) ? "directory" : std::filesystem::is_fifo(st) ? "FIFO"
              : std::filesystem::is_socket(st) ? "socket" : "device or other special file");
  std::ifstream f(file, std::ios::binary);
  ADEPT_CHECK(f.good(), IOError, "{}: cannot open the external data file {} of tensor '{}'", what, file.string(),
              proto.name());
  f.seekg(0, std::ios::end);
  int64_t size = static_cast<int64_t>(f.tellg());
  ADEPT_CHECK(size >= 0, IOError, "{}: cannot determine the size of the external data file {} of tensor '{}'", what,
              file.string(), proto.name());
  ADEPT_CHECK(offset <= size, IOError,
              "{}: the external data of tensor '{}' starts at offset {}, beyond the end of {} ({} bytes)", what,
              proto.name(), offset, file.string(), size);
  if (!has_length) length = size - offset;
  // Compared without forming offset + length, which may overflow.
  ADEPT_CHECK(length <= size - offset, IOError,
              "{}: external data of tensor '{}' ({} bytes at offset {}) lies beyond the end of {} ({} bytes)", what,
              proto.name(), length, offset, file.string(), size);
  std::string bytes(static_cast<size_t>(length), '\0');
  f.seekg(offset);
  f.read(bytes.data(), length);
  ADEPT_CHECK(f.good(), IOError, "{}: reading {} failed", what, file.string());
  return bytes;
}

// A tensor of `dtype` and `shape` from little-endian bytes (raw_data or an external file).
Tensor from_raw(const std::string& raw, const Shape& shape, int64_t numel, Dtype dtype, const ::onnx::TensorProto& proto,
                const std::string& what) {
  int64_t bytes = 0;
  ADEPT_CHECK(!__builtin_mul_overflow(numel, static_cast<int64_t>(element_size(dtype)), &bytes) &&
                  static_cast<int64_t>(raw.size()) == bytes,
              IOError, "{}: tensor '{}' of shape [{}] and type {} needs {} bytes of data, got {}", what, proto.name(),
              fmt::join(shape, ", "), onnx_type_name(proto.data_type()), bytes, raw.size());
  if (dtype == kBool) {  // any non-zero byte is true; Adept's bools hold 0 or 1
    std::vector<uint8_t> values(raw.begin(), raw.end());
    for (uint8_t& v : values) v = v != 0;
    return from_blob_copy(values.data(), shape, dtype);
  }
  return from_blob_copy(raw.data(), shape, dtype);
}

}  // namespace

Tensor tensor_from_proto(const ::onnx::TensorProto& proto, const std::string& what, const std::string& base_dir) {
  ADEPT_CHECK(!proto.has_segment(), IOError, "{}: tensor '{}' is segmented, which the importer does not read", what,
              proto.name());
  std::optional<Dtype> dtype = dtype_from_onnx(proto.data_type());
  if (!dtype) {
    std::string type = onnx_type_name(proto.data_type());
    throw UnsupportedError(fmt::format("{}: tensor '{}' has element type {}, which Adept does not have", what,
                                       proto.name(), type),
                           {Unsupported{"tensor type " + type, "", 0, proto.name(), ""}});
  }
  Shape shape(proto.dims().begin(), proto.dims().end());
  int64_t numel = 1;
  for (int64_t d : shape) {
    ADEPT_CHECK(d >= 0, IOError, "{}: tensor '{}' has a negative dim ({})", what, proto.name(), d);
    ADEPT_CHECK(!__builtin_mul_overflow(numel, d, &numel), IOError, "{}: tensor '{}' has too many elements", what,
                proto.name());
  }
  auto check_count = [&](int64_t count, const char* field) {
    ADEPT_CHECK(count == numel, IOError, "{}: tensor '{}' of shape [{}] needs {} values but its {} holds {}", what,
                proto.name(), fmt::join(shape, ", "), numel, field, count);
  };
  if (proto.data_location() == ::onnx::TensorProto::EXTERNAL)
    return from_raw(external_bytes(proto, what, base_dir), shape, numel, *dtype, proto, what);
  if (proto.has_raw_data()) return from_raw(proto.raw_data(), shape, numel, *dtype, proto, what);
  switch (*dtype) {
    case kFloat32:
      check_count(proto.float_data_size(), "float_data");
      return from_field<float>(proto.float_data(), shape, *dtype);
    case kFloat64:
      check_count(proto.double_data_size(), "double_data");
      return from_field<double>(proto.double_data(), shape, *dtype);
    case kInt64:
      check_count(proto.int64_data_size(), "int64_data");
      return from_field<int64_t>(proto.int64_data(), shape, *dtype);
    case kInt32:
      check_count(proto.int32_data_size(), "int32_data");
      return from_field<int32_t>(proto.int32_data(), shape, *dtype);
    case kUInt8:
      check_count(proto.int32_data_size(), "int32_data");
      return from_field<uint8_t>(proto.int32_data(), shape, *dtype);
    case kBool: {
      check_count(proto.int32_data_size(), "int32_data");
      std::vector<uint8_t> values;
      for (int32_t v : proto.int32_data()) values.push_back(v != 0);
      return from_blob_copy(values.data(), shape, *dtype);
    }
    case kFloat16:
      check_count(proto.int32_data_size(), "int32_data");
      return from_bit_patterns<Half>(proto.int32_data(), shape, *dtype);
    case kBFloat16:
      check_count(proto.int32_data_size(), "int32_data");
      return from_bit_patterns<BFloat16>(proto.int32_data(), shape, *dtype);
  }
  throw Error("unreachable: every Adept dtype is handled above");
}

void tensor_to_proto(const Tensor& value, const std::string& name, ::onnx::TensorProto* proto) {
  ADEPT_CHECK(value.defined(), ValueError, "ONNX export: tensor '{}' is undefined", name);
  proto->set_name(name);
  proto->set_data_type(onnx_type_from_dtype(value.dtype()));
  for (int64_t d : value.sizes()) proto->add_dims(d);
  const Tensor host = value.detach().cpu().contiguous();
  if (host.numel() == 0) {
    proto->set_raw_data("");
    return;
  }
  proto->set_raw_data(static_cast<const char*>(host.data_ptr()),
                      static_cast<size_t>(host.numel()) * element_size(host.dtype()));
}

}  // namespace adept::onnx::detail
