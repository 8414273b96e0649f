// The importer's form of an ONNX graph: nodes in topological order bound to their handlers, values
// numbered, initializers and folded constants, and what each graph input must look like.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "adept/tensor.h"
#include "onnx/registry.h"

namespace adept::onnx::detail {

struct GraphNode {
  const ::onnx::NodeProto* proto = nullptr;  ///< owned by Graph::model
  const OpEntry* op = nullptr;
  std::vector<int> inputs;     ///< value ids, -1 for an absent optional input
  std::vector<int> outputs;    ///< value ids, -1 for an unnamed optional output
  std::vector<int> last_uses;  ///< values this node is the last reader of (dropped after it runs)
  /// (output, initializer index) pairs: outputs written back into initializers (OpEntry::state_updates).
  std::vector<std::pair<size_t, size_t>> state_writes;
  std::string label;           ///< "node 'name' (OpType)" for messages
};

struct GraphInput {
  std::string name;
  int value = -1;
  std::optional<Dtype> dtype;             ///< declared element type (nullopt: not declared)
  std::optional<std::vector<int64_t>> dims;  ///< declared shape, -1 for symbolic dims (nullopt: no shape)
};

struct Initializer {
  std::string name;
  int value = -1;
  Tensor tensor;           ///< CPU tensor from the file; replaced by the module's registered handle
  bool trainable = false;  ///< floating point and read only as Data
  Dtype file_dtype = kFloat32;  ///< the element type in the file (the handle's changes with Module::to(dtype))
};

struct Graph {
  std::unique_ptr<::onnx::ModelProto> model;  ///< nodes and attributes (initializer data dropped)
  int64_t opset = 0;
  int num_values = 0;
  std::vector<GraphInput> inputs;
  std::vector<std::string> input_names;
  std::vector<int> outputs;
  std::vector<std::string> output_names;
  std::vector<Initializer> initializers;
  std::vector<std::pair<int, Tensor>> constants;  ///< outputs of input-less nodes, evaluated at load (CPU)
  std::vector<GraphNode> nodes;                   ///< topological order
};

/// Parses and checks a serialized ModelProto (`what` names it in errors; external data is read from
/// `base_dir`, the model file's folder, empty for a model given as bytes): IOError for bytes that do not
/// parse or a graph that does not hold together, UnsupportedError listing every unsupported op and type and
/// every node its load-time check (OpEntry::check) refuses, the errors such a check raises for an invalid
/// node (prefixed with the node).
std::shared_ptr<Graph> build_graph(const std::string& bytes, const std::string& what, const std::string& base_dir);

/// Runs `node` on `inputs` (one per node input, undefined when absent): moves Data and State inputs to
/// the device of the first one not on the CPU, calls the handler and prefixes its errors with the node.
std::vector<Tensor> run_node(const GraphNode& node, int64_t opset, std::vector<Tensor> inputs);

}  // namespace adept::onnx::detail
