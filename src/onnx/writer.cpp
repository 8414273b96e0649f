// adept::onnx::GraphWriter (include/adept/onnx/writer.h): an ONNX ModelProto built node by node through
// Debian's onnx_proto messages (the ones the importer reads), checked for undefined names and written
// atomically.
#include "adept/onnx/writer.h"

#include <unordered_map>
#include <unordered_set>

#include <onnx/onnx_pb.h>

#include "io/atomic_file.h"
#include "onnx/proto.h"

namespace adept::onnx {

int64_t ir_version_for_opset(int64_t opset) {
  ADEPT_CHECK(opset >= kMinWriteOpset && opset <= kMaxWriteOpset, ValueError,
              "ONNX export: opset {} is not supported; the writer produces opsets {} to {}", opset, kMinWriteOpset,
              kMaxWriteOpset);
  if (opset <= 11) return 6;
  if (opset <= 14) return 7;
  if (opset <= 18) return 8;
  if (opset <= 20) return 9;
  return 10;
}

struct GraphWriter::Impl {
  ::onnx::ModelProto model;
  std::unordered_set<std::string> names;  // values and nodes: what unique_name avoids
  std::unordered_set<std::string> defined;  // values: graph inputs, initializers, node outputs

  ::onnx::GraphProto& graph() { return *model.mutable_graph(); }

  void define(const std::string& name, const char* what) {
    ADEPT_CHECK(!name.empty(), ValueError, "ONNX export: {} with an empty name", what);
    ADEPT_CHECK(defined.insert(name).second, ValueError, "ONNX export: value '{}' ({}) is defined twice", name, what);
    names.insert(name);
  }

  static void fill_value_info(::onnx::ValueInfoProto* v, const std::string& name, Dtype dtype,
                              const std::vector<Dim>& dims) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(detail::onnx_type_from_dtype(dtype));
    auto* shape = t->mutable_shape();
    for (const Dim& d : dims) {
      auto* dim = shape->add_dim();
      if (d.param.empty()) {
        ADEPT_CHECK(d.size >= 0, ValueError, "ONNX export: '{}' has a negative dimension ({})", name, d.size);
        dim->set_dim_value(d.size);
      } else {
        dim->set_dim_param(d.param);
      }
    }
  }
};

GraphWriter::GraphWriter(int64_t opset, std::string graph_name) : impl_(std::make_unique<Impl>()) {
  impl_->model.set_ir_version(ir_version_for_opset(opset));
  auto* op = impl_->model.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  impl_->graph().set_name(std::move(graph_name));
}

GraphWriter::~GraphWriter() = default;

int64_t GraphWriter::opset() const { return impl_->model.opset_import(0).version(); }
int64_t GraphWriter::ir_version() const { return impl_->model.ir_version(); }

void GraphWriter::add_input(const std::string& name, Dtype dtype, const std::vector<Dim>& dims) {
  impl_->define(name, "graph input");
  Impl::fill_value_info(impl_->graph().add_input(), name, dtype, dims);
}

void GraphWriter::add_output(const std::string& name, Dtype dtype, const std::vector<Dim>& dims) {
  ADEPT_CHECK(!name.empty(), ValueError, "ONNX export: graph output with an empty name");
  Impl::fill_value_info(impl_->graph().add_output(), name, dtype, dims);
}

void GraphWriter::add_initializer(const std::string& name, const Tensor& value) {
  impl_->define(name, "initializer");
  detail::tensor_to_proto(value, name, impl_->graph().add_initializer());
}

std::string GraphWriter::add_constant(const std::string& hint, const Tensor& value) {
  const std::string node = unique_name(hint);
  const std::string out = unique_name(node + "_output_0");
  add_node("Constant", {}, {out}, {{"value", value}}, node);
  return out;
}

void GraphWriter::add_node(const std::string& op_type, const std::vector<std::string>& inputs,
                           const std::vector<std::string>& outputs, const Attributes& attributes,
                           const std::string& name) {
  ADEPT_CHECK(!op_type.empty(), ValueError, "ONNX export: node '{}' has no op type", name);
  ::onnx::NodeProto* n = impl_->graph().add_node();
  n->set_op_type(op_type);
  if (!name.empty()) {
    n->set_name(name);
    impl_->names.insert(name);
  }
  for (const std::string& in : inputs) n->add_input(in);
  for (const std::string& out : outputs) {
    if (!out.empty()) impl_->define(out, "node output");  // "": an optional output left out
    n->add_output(out);
  }
  for (const auto& [key, value] : attributes) {
    ::onnx::AttributeProto* a = n->add_attribute();
    a->set_name(key);
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, int64_t>) {
            a->set_type(::onnx::AttributeProto::INT);
            a->set_i(v);
          } else if constexpr (std::is_same_v<T, float>) {
            a->set_type(::onnx::AttributeProto::FLOAT);
            a->set_f(v);
          } else if constexpr (std::is_same_v<T, std::string>) {
            a->set_type(::onnx::AttributeProto::STRING);
            a->set_s(v);
          } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
            a->set_type(::onnx::AttributeProto::INTS);
            for (int64_t x : v) a->add_ints(x);
          } else if constexpr (std::is_same_v<T, std::vector<float>>) {
            a->set_type(::onnx::AttributeProto::FLOATS);
            for (float x : v) a->add_floats(x);
          } else {
            a->set_type(::onnx::AttributeProto::TENSOR);
            detail::tensor_to_proto(v, "", a->mutable_t());
          }
        },
        value);
  }
}

std::string GraphWriter::unique_name(const std::string& hint) {
  std::string name = hint;
  for (int k = 1; impl_->names.count(name); ++k) name = hint + "_" + std::to_string(k);
  impl_->names.insert(name);
  return name;
}

void GraphWriter::add_metadata(const std::string& key, const std::string& value) {
  auto* p = impl_->model.add_metadata_props();
  p->set_key(key);
  p->set_value(value);
}

void GraphWriter::set_producer(const std::string& name, const std::string& version) {
  impl_->model.set_producer_name(name);
  impl_->model.set_producer_version(version);
}

void GraphWriter::set_doc_string(const std::string& doc) { impl_->model.set_doc_string(doc); }

std::string GraphWriter::serialize() const {
  // Nodes in topological order: each input defined by a graph input, an initializer or an earlier node.
  std::unordered_set<std::string> seen;
  const ::onnx::GraphProto& g = impl_->model.graph();
  for (const auto& in : g.input()) seen.insert(in.name());
  for (const auto& init : g.initializer()) seen.insert(init.name());
  for (const auto& node : g.node()) {
    for (const std::string& in : node.input())
      ADEPT_CHECK(in.empty() || seen.count(in), ValueError,
                  "ONNX export: node '{}' ({}) reads '{}', which no graph input, initializer or earlier node defines",
                  node.name(), node.op_type(), in);
    for (const std::string& out : node.output()) seen.insert(out);
  }
  for (const auto& out : g.output())
    ADEPT_CHECK(seen.count(out.name()), ValueError, "ONNX export: graph output '{}' is not defined by any node",
                out.name());
  std::string bytes;
  ADEPT_CHECK(impl_->model.SerializeToString(&bytes), ValueError,
              "ONNX export: the model does not serialize (over protobuf's 2 GiB limit?)");
  return bytes;
}

void GraphWriter::save(const std::string& path) const {
  const std::string bytes = serialize();
  io::AtomicFile file(path);
  file.write(bytes.data(), bytes.size());
  file.commit();
}

}  // namespace adept::onnx
