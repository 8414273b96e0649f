// adept::onnx::Model (the imported graph as an nn::Module) and load / load_bytes.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/ranges.h>

#include "adept/autograd.h"
#include "adept/onnx.h"
#include "onnx/graph.h"
#include "onnx/proto.h"

namespace adept::onnx {

namespace {

std::vector<std::string> split_dots(const std::string& name) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t dot; (dot = name.find('.', start)) != std::string::npos; start = dot + 1)
    parts.push_back(name.substr(start, dot - start));
  parts.push_back(name.substr(start));
  return parts;
}

bool is_free(const nn::Module& m, const std::string& name) {
  return !m.has_parameter(name) && !m.has_buffer(name) && !m.has_child(name);
}

// The module an initializer called "a.b.c" goes to (child a, its child b) and its name there (c), creating
// the children; nullptr when a part is empty or already taken by a tensor.
nn::Module* nested_owner(nn::Module& root, const std::vector<std::string>& parts) {
  nn::Module* m = &root;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    if (parts[i].empty()) return nullptr;
    if (m->has_child(parts[i])) {
      m = m->child(parts[i]).get();
    } else {
      if (!is_free(*m, parts[i])) return nullptr;
      m = m->register_module(parts[i], std::make_shared<nn::Module>()).get();
    }
  }
  return parts.back().empty() || !is_free(*m, parts.back()) ? nullptr : m;
}

// Registers an initializer under its ONNX name (nested at '.'), or, where that name cannot be a module path,
// under the name with '.' replaced by '_' (and a numeric suffix if taken). Returns the registered handle.
Tensor register_initializer(nn::Module& root, const detail::Initializer& init) {
  std::vector<std::string> parts = split_dots(init.name);
  nn::Module* owner = nested_owner(root, parts);
  std::string name = parts.back();
  if (!owner) {
    owner = &root;
    std::string flat = init.name;
    std::replace(flat.begin(), flat.end(), '.', '_');
    name = flat;
    for (int k = 1; !is_free(root, name); ++k) name = fmt::format("{}_{}", flat, k);
  }
  return init.trainable ? owner->register_parameter(name, init.tensor) : owner->register_buffer(name, init.tensor);
}

std::string dims_str(const Shape& s) { return fmt::format("[{}]", fmt::join(s, ", ")); }

// `dtype`, or the module's converted dtype for a floating-point one.
Dtype following(Dtype dtype, std::optional<Dtype> converted) {
  return converted && is_floating_point(dtype) ? *converted : dtype;
}

void check_input(const detail::GraphInput& in, const Tensor& t, std::optional<Dtype> converted) {
  ADEPT_CHECK(t.defined(), ValueError, "ONNX graph input '{}' is an undefined tensor", in.name);
  if (in.dtype) {
    Dtype want = following(*in.dtype, converted);
    ADEPT_CHECK(t.dtype() == want, DtypeError, "ONNX graph input '{}' must be {}, got {}{}", in.name, dtype_name(want),
                dtype_name(t.dtype()),
                want == *in.dtype ? "" : fmt::format(" (the model declares {}; the module was converted to {})",
                                                     dtype_name(*in.dtype), dtype_name(want)));
  }
  if (!in.dims) return;
  std::vector<std::string> want;
  for (int64_t d : *in.dims) want.push_back(d < 0 ? "?" : std::to_string(d));
  ADEPT_CHECK(t.dim() == static_cast<int64_t>(in.dims->size()), ShapeError,
              "ONNX graph input '{}' must have rank {} ([{}]), got shape {}", in.name, in.dims->size(),
              fmt::join(want, ", "), dims_str(t.sizes()));
  for (size_t i = 0; i < in.dims->size(); ++i)
    ADEPT_CHECK((*in.dims)[i] < 0 || (*in.dims)[i] == t.size(static_cast<int64_t>(i)), ShapeError,
                "ONNX graph input '{}' must have shape [{}], got {} (dim {} differs)", in.name, fmt::join(want, ", "),
                dims_str(t.sizes()), i);
}

}  // namespace

Model::Model(std::shared_ptr<detail::Graph> graph) : nn::Module("OnnxModel"), graph_(std::move(graph)) {
  for (auto& init : graph_->initializers) init.tensor = register_initializer(*this, init);
}

Model::~Model() = default;

void Model::on_converted(const std::optional<Device>&, std::optional<Dtype> dtype) {
  if (dtype) float_dtype_ = dtype;
}

std::vector<Tensor> Model::forward_all(const std::vector<Tensor>& inputs) {
  const detail::Graph& g = *graph_;
  ADEPT_CHECK(inputs.size() == g.inputs.size(), ValueError, "the ONNX graph takes {} input{} ({}), got {}",
              g.inputs.size(), g.inputs.size() == 1 ? "" : "s", fmt::join(g.input_names, ", "), inputs.size());
  std::vector<Tensor> values(g.num_values);
  const std::optional<Dtype> converted = float_dtype_;
  for (size_t i = 0; i < inputs.size(); ++i) {
    check_input(g.inputs[i], inputs[i], converted);
    values[g.inputs[i].value] = inputs[i];
  }
  for (const auto& init : g.initializers) values[init.value] = init.tensor;
  for (const auto& [v, t] : g.constants) values[v] = t.to(following(t.dtype(), converted));
  for (const auto& node : g.nodes) {
    std::vector<Tensor> in;
    in.reserve(node.inputs.size());
    for (int v : node.inputs) in.push_back(v >= 0 ? values[v] : Tensor());
    std::vector<Tensor> out = detail::run_node(node, g.opset, std::move(in));
    if (!node.state_writes.empty()) {
      NoGradGuard no_grad;
      for (auto [o, k] : node.state_writes) {
        Tensor target = g.initializers[k].tensor;
        target.copy_(out[o].detach());
      }
    }
    for (size_t i = 0; i < node.outputs.size(); ++i)
      if (node.outputs[i] >= 0) values[node.outputs[i]] = out[i];
    for (int v : node.last_uses) values[v] = Tensor();
  }
  std::vector<Tensor> outputs;
  for (int v : g.outputs) outputs.push_back(values[v]);
  return outputs;
}

Tensor Model::forward(const Tensor& input) {
  ADEPT_CHECK(graph_->inputs.size() == 1 && graph_->outputs.size() == 1, ValueError,
              "forward(Tensor) needs an ONNX graph of one input and one output; this one has {} input(s) and {} "
              "output(s): use forward_all",
              graph_->inputs.size(), graph_->outputs.size());
  return forward_all({input})[0];
}

const std::vector<std::string>& Model::input_names() const { return graph_->input_names; }
const std::vector<std::string>& Model::output_names() const { return graph_->output_names; }
int64_t Model::opset() const { return graph_->opset; }

std::string Model::extra_repr() const {
  return fmt::format("opset={}, inputs=[{}], outputs=[{}], nodes={}", graph_->opset, fmt::join(graph_->input_names, ", "),
                     fmt::join(graph_->output_names, ", "), graph_->nodes.size());
}

std::shared_ptr<Model> load_bytes(const std::string& bytes) {
  return std::make_shared<Model>(detail::build_graph(bytes, "<bytes>", ""));
}

std::shared_ptr<Model> load(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  ADEPT_CHECK(f.good(), IOError, "{}: cannot open the ONNX model file", path);
  std::ostringstream ss;
  ss << f.rdbuf();
  ADEPT_CHECK(!f.bad(), IOError, "{}: reading the ONNX model file failed", path);
  std::string dir = std::filesystem::path(path).parent_path().string();
  return std::make_shared<Model>(detail::build_graph(ss.str(), path, dir.empty() ? "." : dir));
}

Tensor tensor_from_bytes(const std::string& bytes, const std::string& what) {
  ::onnx::TensorProto proto;
  ADEPT_CHECK(proto.ParseFromString(bytes), IOError, "{}: not a TensorProto (the protobuf does not parse)", what);
  return detail::tensor_from_proto(proto, what);
}

}  // namespace adept::onnx
