// ONNX import: adept::onnx::load turns an ONNX model (ModelProto, https://onnx.ai/onnx/repo-docs/IR.html)
// into an nn::Module that evaluates the graph with Adept's ops, so it runs on any device, under autograd,
// and fine-tunes like a module written by hand.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "adept/errors.h"
#include "adept/nn/module.h"

namespace adept::onnx {

/// One thing of a model the importer cannot run: an op (type, domain) at the model's opset, or an
/// element type Adept lacks (float8, int4, string ...), with the node (or tensor) that uses it.
struct Unsupported {
  std::string op_type;  ///< op type, or "tensor type <NAME>" for an element type
  std::string domain;   ///< "" for the default domain (ai.onnx)
  int64_t opset = 0;    ///< the model's opset of that domain
  std::string node;     ///< the node's name (or its first output when unnamed), or the tensor's name
  std::string reason;   ///< what of a known op is unsupported (an attribute value); empty for an unknown op
};

/// A model that uses ops or element types the importer does not implement. Raised once per load, listing
/// every unsupported (op type, opset, node) of the graph (Python: adept.onnx.UnsupportedError, a
/// NotImplementedError).
class UnsupportedError : public Error {
 public:
  UnsupportedError(std::string message, std::vector<Unsupported> items)
      : Error(std::move(message)), items_(std::move(items)) {}
  const std::vector<Unsupported>& items() const { return items_; }

 private:
  std::vector<Unsupported> items_;
};

namespace detail {
struct Graph;
}

/// An imported ONNX graph as a module. Initializers are registered under their ONNX names split at '.'
/// into child modules ("layer1.0.weight" -> child layer1, child 0, tensor weight), so state_dict keys
/// are the exporter's names: floating-point initializers are Parameters (trainable) unless the op
/// reading them takes them as configuration or running statistics (Resize scales, BatchNormalization
/// mean / var ...), which are buffers like every other initializer.
class Model : public nn::Module {
 public:
  explicit Model(std::shared_ptr<detail::Graph> graph);
  ~Model() override;

  /// Runs the graph on its inputs (graph inputs that are not initializers, in graph order) and returns
  /// its outputs in graph-output order. Inputs may be on any device; initializers and constants are
  /// used on the inputs' device (move the module with to() to avoid copies). After a floating-point
  /// conversion of the module (to(kFloat16), to(kFloat64)), floating-point graph inputs are expected in its
  /// dtype and floating-point constants (Constant nodes) follow it; values the graph itself casts (Cast,
  /// ConstantOfShape ...) keep the dtypes it names.
  /// Errors: ValueError for a wrong number of inputs, DtypeError for an input whose dtype is not the
  /// declared element type, ShapeError for a wrong rank or a fixed dimension that differs, each naming
  /// the graph input; errors of the ops, prefixed with the node that raised them.
  std::vector<Tensor> forward_all(const std::vector<Tensor>& inputs);
  /// forward_all for a graph of one input and one output (ValueError otherwise, naming the counts).
  Tensor forward(const Tensor& input) override;

  /// Names of the graph inputs forward takes, and of its outputs, in order.
  const std::vector<std::string>& input_names() const;
  const std::vector<std::string>& output_names() const;
  /// The model's opset of the default domain (ai.onnx).
  int64_t opset() const;
  std::string extra_repr() const override;

 protected:
  /// Records the floating-point dtype of to(dtype) / half() / double(), which the graph's floating-point
  /// inputs and constants then follow, with or without floating-point initializers.
  void on_converted(const std::optional<Device>& device, std::optional<Dtype> dtype) override;

 private:
  std::shared_ptr<detail::Graph> graph_;
  std::optional<Dtype> float_dtype_;  ///< set by to(dtype); nullopt: the file's dtypes
};

/// Loads an ONNX model file (binary ModelProto). Opsets 9 to 25 of the default domain are supported
/// op by op (each op at the largest version it has that is <= the model's opset). Tensor data is read
/// from raw_data (little-endian), the typed fields, or external data files in the model's folder
/// (https://onnx.ai/onnx/repo-docs/ExternalData.html).
/// Errors: IOError naming the file when it cannot be read or does not parse (truncated, not a model,
/// an initializer whose data does not match its shape, an external data file missing, short, outside
/// the model's folder or reached through a symbolic link); UnsupportedError listing every unsupported op
/// and element type at once (and nodes whose input rank the importer lacks, e.g. a 3-d Conv whose weight
/// is an initializer); ValueError for a node the ONNX spec makes invalid whatever its inputs (repeated
/// axes given as an attribute or initializer, pooling pads not smaller than the kernel), naming the node.
std::shared_ptr<Model> load(const std::string& path);
/// load() on the bytes of a serialized ModelProto (errors name "<bytes>" instead of a file). External data
/// is refused (IOError): there is no folder to find it in.
std::shared_ptr<Model> load_bytes(const std::string& bytes);

/// Parses a serialized TensorProto (the .pb files of ONNX's test data) into a CPU tensor of its dtype.
/// Errors: IOError for bytes that do not parse or data that does not match the dims, external data;
/// UnsupportedError for an element type Adept lacks. `what` names the source in messages.
Tensor tensor_from_bytes(const std::string& bytes, const std::string& what = "<bytes>");

}  // namespace adept::onnx
