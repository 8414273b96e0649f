// Reading ONNX protobuf messages into Adept values (element types, TensorProto data from raw_data and
// the typed fields, the checks that turn malformed messages into IOError) and writing tensors back.
#pragma once
#include <optional>
#include <string>

#include <onnx/onnx_pb.h>

#include "adept/tensor.h"

namespace adept::onnx::detail {

/// The Adept dtype of an ONNX element type (TensorProto.DataType), nullopt for one Adept lacks
/// (int8, uint16, string, complex, float8, int4 ...).
std::optional<Dtype> dtype_from_onnx(int32_t elem_type);
/// The ONNX element type of an Adept dtype (every Adept dtype has one).
int32_t onnx_type_from_dtype(Dtype dtype);
/// The ONNX name of an element type ("FLOAT", "FLOAT8E4M3FN" ...), "TYPE<n>" for unknown codes.
std::string onnx_type_name(int32_t elem_type);

/// The tensor a TensorProto holds, on the CPU with its dtype. Data comes from raw_data
/// (little-endian), the typed field of its type (float_data; int32_data for int32 and the bit
/// patterns of uint8, bool, float16, bfloat16; int64_data; double_data), or, with data_location
/// EXTERNAL, the file `location` (relative, inside `base_dir`, the model's folder) from `offset` for
/// `length` bytes, little-endian like raw_data (https://onnx.ai/onnx/repo-docs/ExternalData.html).
/// Errors: IOError naming `what` when the number of values does not match dims, for segments, negative
/// dims, external data without a base_dir (a model loaded from bytes) or whose file is missing, short,
/// outside base_dir or reached through a symbolic link; UnsupportedError for an element type Adept lacks.
Tensor tensor_from_proto(const ::onnx::TensorProto& proto, const std::string& what, const std::string& base_dir = "");

/// Fills `proto` with `value` named `name`: dims, data_type and raw_data (little-endian, contiguous copy
/// made on the CPU; bool as one byte per value), the form tensor_from_proto reads back bit for bit.
void tensor_to_proto(const Tensor& value, const std::string& name, ::onnx::TensorProto* proto);

}  // namespace adept::onnx::detail
