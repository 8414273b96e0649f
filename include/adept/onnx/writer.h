// ONNX export, the generic half: adept::onnx::GraphWriter builds one ONNX model (ModelProto with one
// graph, https://onnx.ai/onnx/repo-docs/IR.html) node by node from Adept tensors and writes it to a file
// atomically. It knows no model: exporters (e.g. YOLO11's, adept/models/yolo/export.h) walk their modules
// and emit nodes through it. protobuf stays inside libadept_onnx: this header names no protobuf type.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "adept/tensor.h"

namespace adept::onnx {

/// The opsets of the default domain (ai.onnx) a GraphWriter writes: 11 (Range, Resize with
/// coordinate_transformation_mode) to 21. The model's ir_version follows the opset as ONNX releases
/// paired them (onnx.helper.VERSION_TABLE): 11 -> 6, 12-14 -> 7, 15-18 -> 8, 19-20 -> 9, 21 -> 10.
inline constexpr int64_t kMinWriteOpset = 11;
inline constexpr int64_t kMaxWriteOpset = 21;
/// The ir_version of `opset` (ValueError outside [kMinWriteOpset, kMaxWriteOpset]).
int64_t ir_version_for_opset(int64_t opset);

/// One dimension of a graph input or output: a fixed size (>= 0) or a symbolic name (dim_param,
/// e.g. "batch"), which runtimes bind at run time.
struct Dim {
  Dim(int64_t size) : size(size) {}                      // NOLINT(google-explicit-constructor)
  Dim(std::string param) : param(std::move(param)) {}    // NOLINT(google-explicit-constructor)
  Dim(const char* param) : param(param) {}               // NOLINT(google-explicit-constructor)
  int64_t size = -1;   ///< the fixed size, or -1 when symbolic
  std::string param;   ///< the symbolic name, or "" when fixed
};

/// A node attribute's value (AttributeProto): INT, FLOAT, STRING, INTS, FLOATS or TENSOR.
using AttributeValue = std::variant<int64_t, float, std::string, std::vector<int64_t>, std::vector<float>, Tensor>;
/// A node's attributes in order, as (name, value).
using Attributes = std::vector<std::pair<std::string, AttributeValue>>;

/// Builds an ONNX model: graph inputs and outputs with their element types and dims, initializers
/// (tensors stored in the file, raw_data little-endian), nodes in topological order, metadata_props.
/// Names are the graph's value names: every value is defined once (a graph input, an initializer or a
/// node output) before a node reads it; unique_name() hands out fresh ones.
///
/// Element types: the Adept dtypes ONNX has (float32, float16, bfloat16, float64, int32, int64, uint8,
/// bool). Errors: ValueError for an opset outside [kMinWriteOpset, kMaxWriteOpset], a name defined twice,
/// an empty name, or (at serialize / save) a node input or graph output that nothing defines;
/// DtypeError for a tensor of a dtype ONNX lacks here.
class GraphWriter {
 public:
  /// An empty model importing the default domain at `opset`; `graph_name` names its graph.
  explicit GraphWriter(int64_t opset, std::string graph_name = "main_graph");
  ~GraphWriter();
  GraphWriter(const GraphWriter&) = delete;
  GraphWriter& operator=(const GraphWriter&) = delete;

  int64_t opset() const;
  int64_t ir_version() const;

  /// Adds a graph input / output named `name` of element type `dtype` and shape `dims`.
  void add_input(const std::string& name, Dtype dtype, const std::vector<Dim>& dims);
  void add_output(const std::string& name, Dtype dtype, const std::vector<Dim>& dims);
  /// Adds an initializer `name` holding a copy of `value` (any device and layout; stored contiguous).
  void add_initializer(const std::string& name, const Tensor& value);
  /// Adds a Constant node producing `value` (small tensors: shapes, scalars) and returns its output,
  /// named after `hint` (a node name such as "/model.23/Constant"; made unique).
  std::string add_constant(const std::string& hint, const Tensor& value);
  /// Adds a node of `op_type` (default domain) reading `inputs` ("" for an absent optional input) and
  /// defining `outputs` ("" for an optional output left out); `name` is the node's name ("" for none).
  void add_node(const std::string& op_type, const std::vector<std::string>& inputs,
                const std::vector<std::string>& outputs, const Attributes& attributes = {},
                const std::string& name = "");
  /// A name no value or node has yet: `hint`, else `hint` + "_1", "_2" ... (reserved on return).
  std::string unique_name(const std::string& hint);
  /// Appends metadata_props entry (key, value) (e.g. Ultralytics' "names", "stride", "imgsz").
  void add_metadata(const std::string& key, const std::string& value);
  /// producer_name / producer_version of the model, and its doc_string.
  void set_producer(const std::string& name, const std::string& version);
  void set_doc_string(const std::string& doc);

  /// The serialized ModelProto after checking that every node input and graph output is defined
  /// (ValueError naming the first one that is not).
  std::string serialize() const;
  /// serialize() written to `path` atomically (temporary file beside it, fsync, rename): a failure
  /// leaves an existing file untouched. IOError naming the path when it cannot be written.
  void save(const std::string& path) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace adept::onnx
