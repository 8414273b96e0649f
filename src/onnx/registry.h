// The op registry of the ONNX importer: handlers keyed by (op type, since_version) of the default
// domain, the context a handler reads its node's inputs and attributes from, and the per-family
// registration functions (src/onnx/ops_*.cpp).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <onnx/onnx_pb.h>

#include "adept/tensor.h"

namespace adept::onnx::detail {

/// The opsets of the default domain the handlers are written for: a model importing another is refused
/// (UnsupportedError naming its opset and this range).
inline constexpr int64_t kMinOpset = 9;
inline constexpr int64_t kMaxOpset = 25;

/// What a node's input carries, which decides where the evaluator puts it and how an initializer
/// feeding it is registered.
enum class InputRole : uint8_t {
  Data,    ///< values the op computes on: moved to the node's device; float initializers are Parameters
  Config,  ///< shapes, axes, scales, bounds: read where they are (often on the host); initializers are buffers
  State,   ///< running statistics: moved to the node's device; initializers are buffers
};

/// A node being evaluated: its inputs (undefined for absent optional ones), attributes with their
/// ONNX defaults, and the model's opset. Errors raised through it name the attribute or input.
class OpContext {
 public:
  OpContext(const ::onnx::NodeProto& node, int64_t opset, std::vector<Tensor> inputs)
      : node_(node), opset_(opset), inputs_(std::move(inputs)) {}

  const ::onnx::NodeProto& node() const { return node_; }
  int64_t opset() const { return opset_; }
  /// Number of input slots of the node (absent optional ones included), and of its outputs.
  size_t num_inputs() const { return inputs_.size(); }
  size_t num_outputs() const { return static_cast<size_t>(node_.output_size()); }
  /// Whether input i is given (a non-empty name).
  bool has_input(size_t i) const { return i < inputs_.size() && inputs_[i].defined(); }
  /// Input i; ValueError naming the op and the index when it is absent.
  const Tensor& input(size_t i) const;
  /// Every given input, in order (variadic ops: Concat, Sum, Max ...); ValueError when there is none.
  std::vector<Tensor> inputs() const;
  /// The values of input i (an integer tensor of any shape) on the host, in row-major order.
  std::vector<int64_t> input_ints(size_t i) const;
  /// The values of input i (any numeric tensor) as doubles, on the host.
  std::vector<double> input_doubles(size_t i) const;

  bool has_attr(const std::string& name) const { return find(name) != nullptr; }
  int64_t attr_int(const std::string& name, int64_t fallback) const;
  float attr_float(const std::string& name, float fallback) const;
  std::string attr_string(const std::string& name, const std::string& fallback) const;
  std::vector<int64_t> attr_ints(const std::string& name, std::vector<int64_t> fallback = {}) const;
  std::vector<float> attr_floats(const std::string& name, std::vector<float> fallback = {}) const;
  /// The tensor attribute `name` (a CPU tensor); nullopt when absent.
  std::optional<Tensor> attr_tensor(const std::string& name) const;

  /// An axis attribute or input value in [-rank, rank) made non-negative; IndexError naming the op
  /// otherwise.
  int64_t axis(int64_t axis, int64_t rank) const;
  /// Axis values (an `axes` attribute or input) each made non-negative by axis(); ValueError naming the op,
  /// the axes and the rank when two of them are the same axis ([1, 1], or [1, -3] at rank 4): ONNX
  /// requires distinct axes.
  std::vector<int64_t> axes(const std::vector<int64_t>& values, int64_t rank) const;
  /// The load-time form of axes(), before the rank is known: ValueError naming the op and the axes when a
  /// value repeats ([1, 1]); [1, -3] passes here and fails in axes() when the rank makes them equal.
  void check_distinct_axes(const std::vector<int64_t>& values) const;

 private:
  const ::onnx::AttributeProto* find(const std::string& name) const;
  const ::onnx::AttributeProto& typed(const std::string& name, int type) const;
  const ::onnx::NodeProto& node_;
  int64_t opset_;
  std::vector<Tensor> inputs_;
};

/// A handler: computes a node's outputs (one per node output; trailing optional outputs the node does
/// not name may be left out).
using OpFn = std::vector<Tensor> (*)(const OpContext&);
/// A load-time check of a node, on a context whose inputs are those known at load (initializers and the
/// outputs of input-less nodes such as Constant; the others are absent): returns the reason the importer
/// cannot run the node (an unsupported mode, element type or rank), reported with the unsupported ops, or
/// nullopt. Throws (ValueError ...) for a node that is invalid whatever its other inputs (repeated axes,
/// pads that cover a whole pooling window).
using OpCheck = std::optional<std::string> (*)(const OpContext& c);

struct OpEntry {
  OpFn fn = nullptr;
  OpCheck check = nullptr;
  std::vector<std::pair<int, InputRole>> roles;  ///< inputs that are not Data
  /// (output, input) pairs: the output is the updated value of a State input (BatchNormalization's running
  /// statistics in training mode); the evaluator copies it into the input when that is an initializer.
  std::vector<std::pair<int, int>> state_updates;
  InputRole role(int input) const;
};

/// Handlers by op type and since_version: find() picks the entry with the largest since_version <= the
/// model's opset, as ONNX's operator versioning defines (https://onnx.ai/onnx/repo-docs/Versioning.html).
class OpRegistry {
 public:
  /// Registers `entry` for op_type from opset `since` on (replacing an entry of the same key).
  void add(const std::string& op_type, int64_t since, OpEntry entry);
  /// Registers one handler for several since_versions (the op changed only in ways it reads itself).
  void add(const std::string& op_type, std::initializer_list<int64_t> since, const OpEntry& entry);
  const OpEntry* find(const std::string& op_type, int64_t opset) const;

 private:
  std::map<std::string, std::map<int64_t, OpEntry>> ops_;
};

/// What ONNX's schema of an op at one since_version allows (src/onnx/schemas.inc, generated from the onnx
/// package by scripts/onnx_schemas.py): input and output counts (INT_MAX: variadic) and attribute names.
struct OpSchema {
  const char* op;
  int since;
  int min_inputs, max_inputs, min_outputs, max_outputs;
  const char* attributes;  ///< space-separated names
};

/// The schema of op_type that applies at `opset` (largest since_version <= opset), or nullptr.
const OpSchema* find_schema(const std::string& op_type, int64_t opset);
/// The attribute names of `s`.
std::vector<std::string> schema_attributes(const OpSchema& s);
/// ValueError when `node` has more or fewer inputs (absent optional ones included) or outputs than its op's
/// schema at `opset` allows, or an attribute that schema does not define, naming the op, the opset, the
/// schema version and what it allows.
void check_schema(const ::onnx::NodeProto& node, int64_t opset);

/// The registry holding every family below, built once.
const OpRegistry& registry();

// One function per family registers its handlers (src/onnx/ops_<family>.cpp).
void register_elementwise_ops(OpRegistry& r);  // arithmetic, comparisons, logic, math functions, Where, Cast
void register_activation_ops(OpRegistry& r);   // Relu, LeakyRelu, HardSigmoid, Gelu, Mish ...
void register_conv_ops(OpRegistry& r);         // Conv, ConvTranspose
void register_pool_ops(OpRegistry& r);         // MaxPool, AveragePool, global pools
void register_norm_ops(OpRegistry& r);         // BatchNormalization, InstanceNormalization, LayerNormalization
void register_shape_ops(OpRegistry& r);        // Reshape, Transpose, Concat, Split, Slice, Shape, Size ...
void register_index_ops(OpRegistry& r);        // Gather, GatherElements, GatherND, ScatterElements, TopK
void register_reduce_ops(OpRegistry& r);       // Reduce*, ArgMax, ArgMin, CumSum
void register_linalg_ops(OpRegistry& r);       // Gemm, MatMul, MatMulInteger, Einsum
void register_softmax_ops(OpRegistry& r);      // Softmax, LogSoftmax, Hardmax
void register_creation_ops(OpRegistry& r);     // Constant, ConstantOfShape, Range
void register_resize_ops(OpRegistry& r);       // Resize, Upsample
void register_pad_ops(OpRegistry& r);          // Pad
void register_misc_ops(OpRegistry& r);         // Identity, Dropout

}  // namespace adept::onnx::detail
