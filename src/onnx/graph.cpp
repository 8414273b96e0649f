// Building the importer's graph from a ModelProto (values, load-time node checks, unsupported-op report,
// topological order, initializer roles, constants folded at load) and running one node of it.
#include "onnx/graph.h"

#include <limits>
#include <map>
#include <new>
#include <set>
#include <stdexcept>

#include <fmt/ranges.h>

#include "adept/onnx.h"
#include "onnx/proto.h"

namespace adept::onnx::detail {

namespace {

// Whether s is well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
bool valid_utf8(const std::string& s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  for (size_t i = 0; i < n;) {
    const unsigned char c = p[i];
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || i + len > n) return false;
    uint32_t cp = len == 1 ? c : c & (0x7F >> len);
    for (size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    const uint32_t min_cp[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_cp[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += len;
  }
  return true;
}

bool is_default_domain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

std::string node_name(const ::onnx::NodeProto& n) {
  if (!n.name().empty()) return n.name();
  return n.output_size() ? n.output(0) : std::string();
}

// The reason a graph input or output's type is one Adept cannot hold, or nullopt.
std::optional<std::string> type_issue(const ::onnx::TypeProto& type) {
  if (type.value_case() == ::onnx::TypeProto::VALUE_NOT_SET) return std::nullopt;  // undeclared: accepted
  if (!type.has_tensor_type()) return std::string("a non-tensor type (sequence, map or optional)");
  int32_t elem = type.tensor_type().elem_type();
  if (elem != 0 && !dtype_from_onnx(elem)) return "tensor type " + onnx_type_name(elem);
  return std::nullopt;
}

// Rethrows the exception in flight as the same Adept type, its message prefixed with `where`.
[[noreturn]] void rethrow_with_prefix(const std::string& where) {
  try {
    throw;
  } catch (const UnsupportedError& e) { throw UnsupportedError(where + e.what(), e.items());
  } catch (const ShapeError& e) { throw ShapeError(where + e.what());
  } catch (const DtypeError& e) { throw DtypeError(where + e.what());
  } catch (const DeviceError& e) { throw DeviceError(where + e.what());
  } catch (const IndexError& e) { throw IndexError(where + e.what());
  } catch (const ValueError& e) { throw ValueError(where + e.what());
  } catch (const OutOfMemoryError& e) { throw OutOfMemoryError(where + e.what());
  } catch (const NotImplementedForDevice& e) { throw NotImplementedForDevice(where + e.what());
  } catch (const AutogradError& e) { throw AutogradError(where + e.what());
  } catch (const IOError& e) { throw IOError(where + e.what());
  } catch (const Error& e) { throw Error(where + e.what());
  }
}

// Runs f(), its errors prefixed with the node ("node 'name' (Op): ..."): Adept errors keep their type, running
// out of host memory is an OutOfMemoryError, and a standard-library check that a malformed node reached (an
// index past a vector's end ...) is a ValueError, never an escaped std:: exception.
template <class F>
auto with_node_label(const GraphNode& node, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error&) {
    rethrow_with_prefix(node.label + ": ");
  } catch (const std::bad_alloc&) {
    throw OutOfMemoryError(fmt::format("{}: out of host memory (an output too large for this machine?)", node.label));
  } catch (const std::logic_error& e) {
    throw ValueError(fmt::format("{}: malformed node ({})", node.label, e.what()));
  }
}

class GraphBuilder {
 public:
  GraphBuilder(const std::string& what, const std::string& base_dir)
      : what_(what), base_dir_(base_dir), g_(std::make_shared<Graph>()) {}

  std::shared_ptr<Graph> build(const std::string& bytes) {
    g_->model = std::make_unique<::onnx::ModelProto>();
    ::onnx::ModelProto& model = *g_->model;
    ADEPT_CHECK(model.ParseFromString(bytes), IOError,
                "{}: not an ONNX model (the protobuf does not parse: a truncated or corrupt file, or another format)",
                what_);
    ADEPT_CHECK(model.has_graph() && model.graph().output_size() > 0, IOError,
                "{}: the model has no graph or its graph has no outputs (a truncated or corrupt file?)", what_);
    read_opsets(model);
    const ::onnx::GraphProto& graph = model.graph();
    check_names(graph);
    read_initializers(graph);
    read_inputs_outputs(graph);
    bind_nodes(graph);
    check_nodes();
    report_unsupported();
    sort_nodes();
    assign_roles();
    compute_last_uses();
    bind_state_writes();
    model.mutable_graph()->clear_initializer();  // the data lives in the tensors now
    return g_;
  }

 private:
  void read_opsets(const ::onnx::ModelProto& model) {
    for (const auto& o : model.opset_import()) {
      if (is_default_domain(o.domain())) g_->opset = o.version();
      else other_opsets_[o.domain()] = o.version();
    }
    ADEPT_CHECK(g_->opset > 0, IOError, "{}: the model imports no opset of the default domain (ai.onnx)", what_);
    if (g_->opset < kMinOpset || g_->opset > kMaxOpset)
      unsupported_.push_back({fmt::format("unsupported opset {} of the default domain (ai.onnx); the importer supports "
                                          "opsets {} to {}",
                                          g_->opset, kMinOpset, kMaxOpset),
                              "", g_->opset, "<model>", ""});
  }

  // Names end up in messages, state_dict keys and Python strings: each must be valid UTF-8 (ONNX's proto2
  // strings are not checked by the parser).
  void check_names(const ::onnx::GraphProto& graph) const {
    auto check = [&](const std::string& name, const char* kind) {
      ADEPT_CHECK(valid_utf8(name), IOError, "{}: a {} name is not valid UTF-8 ({} bytes)", what_, kind, name.size());
    };
    for (const auto& t : graph.initializer()) check(t.name(), "initializer");
    for (const auto& v : graph.input()) check(v.name(), "graph input");
    for (const auto& v : graph.output()) check(v.name(), "graph output");
    for (const auto& n : graph.node()) {
      check(n.name(), "node");
      check(n.op_type(), "op type");
      check(n.domain(), "domain");
      for (const auto& v : n.input()) check(v, "node input");
      for (const auto& v : n.output()) check(v, "node output");
    }
  }

  int value(const std::string& name) {
    auto [it, inserted] = ids_.try_emplace(name, g_->num_values);
    if (inserted) ++g_->num_values;
    return it->second;
  }

  void read_initializers(const ::onnx::GraphProto& graph) {
    for (const auto& t : graph.initializer()) {
      ADEPT_CHECK(!t.name().empty(), IOError, "{}: an initializer has no name", what_);
      ADEPT_CHECK(!ids_.count(t.name()), IOError, "{}: initializer '{}' is defined twice", what_, t.name());
      try {
        Tensor tensor = tensor_from_proto(t, what_, base_dir_);
        g_->initializers.push_back({t.name(), value(t.name()), tensor, false, tensor.dtype()});
      } catch (const UnsupportedError& e) {
        unsupported_.insert(unsupported_.end(), e.items().begin(), e.items().end());
      }
    }
    for (const auto& t : graph.sparse_initializer())
      unsupported_.push_back({"sparse initializer", "", 0, t.values().name(), ""});
  }

  void read_inputs_outputs(const ::onnx::GraphProto& graph) {
    std::set<std::string> initializer_names;
    for (const auto& t : graph.initializer()) initializer_names.insert(t.name());
    for (const auto& in : graph.input()) {
      if (initializer_names.count(in.name())) continue;  // IR < 4: initializers are listed as inputs too
      ADEPT_CHECK(!in.name().empty(), IOError, "{}: a graph input has no name", what_);
      ADEPT_CHECK(!ids_.count(in.name()), IOError, "{}: graph input '{}' is declared twice", what_, in.name());
      GraphInput gi{in.name(), value(in.name()), std::nullopt, std::nullopt};
      if (auto issue = type_issue(in.type())) {
        unsupported_.push_back({*issue, "", 0, in.name(), "graph input"});
      } else if (in.type().has_tensor_type()) {
        const auto& tt = in.type().tensor_type();
        if (tt.elem_type() != 0) gi.dtype = dtype_from_onnx(tt.elem_type());
        if (tt.has_shape()) {
          std::vector<int64_t> dims;
          for (const auto& d : tt.shape().dim()) dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
          gi.dims = dims;
        }
      }
      g_->inputs.push_back(gi);
      g_->input_names.push_back(in.name());
    }
    for (const auto& out : graph.output()) {
      if (auto issue = type_issue(out.type())) unsupported_.push_back({*issue, "", 0, out.name(), "graph output"});
      g_->outputs.push_back(value(out.name()));
      g_->output_names.push_back(out.name());
    }
  }

  void bind_nodes(const ::onnx::GraphProto& graph) {
    for (const auto& in : g_->input_names) sources_.insert(in);
    for (const auto& t : graph.initializer()) sources_.insert(t.name());
    for (const auto& n : graph.node()) {
      GraphNode node;
      node.proto = &n;
      node.label = fmt::format("node '{}' ({})", node_name(n), n.op_type());
      if (!is_default_domain(n.domain())) {
        auto it = other_opsets_.find(n.domain());
        unsupported_.push_back({n.op_type(), n.domain(), it == other_opsets_.end() ? 0 : it->second, node_name(n), ""});
      } else if (g_->opset >= kMinOpset && g_->opset <= kMaxOpset) {
        node.op = registry().find(n.op_type(), g_->opset);
        if (!node.op) unsupported_.push_back({n.op_type(), "", g_->opset, node_name(n), ""});
        else with_node_label(node, [&] { check_schema(n, g_->opset); });
      }
      for (const auto& name : n.input()) node.inputs.push_back(name.empty() ? -1 : value(name));
      for (const auto& name : n.output()) {
        if (name.empty()) {
          node.outputs.push_back(-1);
          continue;
        }
        ADEPT_CHECK(!sources_.count(name), IOError, "{}: {} overwrites the graph input or initializer '{}'", what_,
                    node.label, name);
        int id = value(name);
        ADEPT_CHECK(!produced_.count(id), IOError, "{}: value '{}' is produced twice ({})", what_, name, node.label);
        produced_.insert(id);
        node.outputs.push_back(id);
      }
      g_->nodes.push_back(std::move(node));
    }
  }

  // Runs each bound node's load-time check (OpEntry::check) on the inputs known at load: nodes without
  // inputs (Constant ...) first, each folded into a constant once it passes, so that the checks of the
  // nodes reading them see their values. Reasons join the unsupported list; folded nodes leave the graph.
  void check_nodes() {
    std::map<int, Tensor> known;
    for (const auto& init : g_->initializers) known[init.value] = init.tensor;
    std::vector<bool> folded(g_->nodes.size(), false);
    for (bool inputless : {true, false})
      for (size_t k = 0; k < g_->nodes.size(); ++k) {
        const GraphNode& node = g_->nodes[k];
        if (!node.op || node.inputs.empty() != inputless) continue;
        if (node.op->check) {
          std::vector<Tensor> inputs;
          for (int v : node.inputs) inputs.push_back(known.count(v) ? known.at(v) : Tensor());
          OpContext ctx(*node.proto, g_->opset, std::move(inputs));
          std::optional<std::string> reason = with_node_label(node, [&] { return node.op->check(ctx); });
          if (reason) {
            unsupported_.push_back({node.proto->op_type(), "", g_->opset, node_name(*node.proto), *reason});
            continue;
          }
        }
        if (!inputless) continue;
        std::vector<Tensor> out = run_node(node, g_->opset, {});
        for (size_t i = 0; i < node.outputs.size() && i < out.size(); ++i)
          if (node.outputs[i] >= 0) {
            g_->constants.emplace_back(node.outputs[i], out[i]);
            known[node.outputs[i]] = out[i];
          }
        folded[k] = true;
      }
    std::vector<GraphNode> kept;
    for (size_t k = 0; k < g_->nodes.size(); ++k)
      if (!folded[k]) kept.push_back(std::move(g_->nodes[k]));
    g_->nodes = std::move(kept);
  }

  void report_unsupported() {
    if (unsupported_.empty()) return;
    std::string lines;
    for (const Unsupported& u : unsupported_) {
      std::string op = u.domain.empty() ? u.op_type : u.domain + "::" + u.op_type;
      std::string version = u.opset ? fmt::format(" (opset {})", u.opset) : "";
      std::string reason = u.reason.empty() ? "" : ": " + u.reason;
      lines += fmt::format("\n  {}{} in '{}'{}", op, version, u.node, reason);
    }
    throw UnsupportedError(fmt::format("{}: the model uses {} unsupported op{} or type{}:{}", what_, unsupported_.size(),
                                       unsupported_.size() == 1 ? "" : "s", unsupported_.size() == 1 ? "" : "s", lines),
                           unsupported_);
  }

  // Kahn's order over the nodes (ONNX requires sorted graphs; exporters mostly comply).
  void sort_nodes() {
    std::vector<bool> available(g_->num_values, false);
    for (const auto& in : g_->inputs) available[in.value] = true;
    for (const auto& init : g_->initializers) available[init.value] = true;
    for (const auto& [v, t] : g_->constants) available[v] = true;
    std::map<int, std::vector<size_t>> readers;
    std::vector<int> missing(g_->nodes.size(), 0);
    for (size_t i = 0; i < g_->nodes.size(); ++i) {
      std::set<int> wanted;
      for (int v : g_->nodes[i].inputs)
        if (v >= 0 && !available[v]) wanted.insert(v);
      for (int v : wanted) {
        ADEPT_CHECK(produced_.count(v), IOError, "{}: {} reads '{}', which no node, graph input or initializer provides",
                    what_, g_->nodes[i].label, name_of(v));
        readers[v].push_back(i);
      }
      missing[i] = static_cast<int>(wanted.size());
    }
    std::vector<size_t> ready, order;
    for (size_t i = 0; i < g_->nodes.size(); ++i)
      if (missing[i] == 0) ready.push_back(i);
    for (size_t k = 0; k < ready.size(); ++k) {  // `ready` grows as nodes complete, in graph order
      size_t i = ready[k];
      order.push_back(i);
      for (int v : g_->nodes[i].outputs) {
        if (v < 0) continue;
        for (size_t r : readers[v])
          if (--missing[r] == 0) ready.push_back(r);
      }
    }
    ADEPT_CHECK(order.size() == g_->nodes.size(), IOError, "{}: the graph has a cycle ({} of {} nodes can run)", what_,
                order.size(), g_->nodes.size());
    std::vector<GraphNode> sorted;
    for (size_t i : order) sorted.push_back(std::move(g_->nodes[i]));
    g_->nodes = std::move(sorted);
    for (int v : g_->outputs)
      ADEPT_CHECK(v < static_cast<int>(available.size()) && (available[v] || produced_.count(v)), IOError,
                  "{}: graph output '{}' is not computed by any node", what_, name_of(v));
  }

  // Floating-point initializers read only as Data are Parameters; the rest are buffers.
  void assign_roles() {
    std::map<int, bool> data_only;
    for (const auto& node : g_->nodes)
      for (size_t i = 0; i < node.inputs.size(); ++i)
        if (node.inputs[i] >= 0) {
          bool is_data = node.op->role(static_cast<int>(i)) == InputRole::Data;
          auto [it, inserted] = data_only.try_emplace(node.inputs[i], is_data);
          if (!inserted) it->second = it->second && is_data;
        }
    for (auto& init : g_->initializers) {
      auto it = data_only.find(init.value);
      init.trainable = init.tensor.is_floating_point() && (it == data_only.end() || it->second);
    }
  }

  void compute_last_uses() {
    std::vector<int> last(g_->num_values, -1);
    for (size_t i = 0; i < g_->nodes.size(); ++i)
      for (int v : g_->nodes[i].inputs)
        if (v >= 0) last[v] = static_cast<int>(i);
    for (int v : g_->outputs) last[v] = -1;  // kept to the end
    for (int v = 0; v < g_->num_values; ++v)
      if (last[v] >= 0) g_->nodes[last[v]].last_uses.push_back(v);
  }

  void bind_state_writes() {
    for (auto& node : g_->nodes)
      for (auto [out, in] : node.op->state_updates) {
        if (static_cast<size_t>(in) >= node.inputs.size() || static_cast<size_t>(out) >= node.outputs.size() ||
            node.outputs[out] < 0)
          continue;
        for (size_t k = 0; k < g_->initializers.size(); ++k)
          if (g_->initializers[k].value == node.inputs[in]) node.state_writes.emplace_back(out, k);
      }
  }

  std::string name_of(int id) const {
    for (const auto& [name, v] : ids_)
      if (v == id) return name;
    return "?";
  }

  std::string what_, base_dir_;
  std::shared_ptr<Graph> g_;
  std::map<std::string, int> ids_;
  std::set<int> produced_;
  std::set<std::string> sources_;  // graph inputs and initializers: no node may write them
  std::map<std::string, int64_t> other_opsets_;
  std::vector<Unsupported> unsupported_;
};

}  // namespace

std::shared_ptr<Graph> build_graph(const std::string& bytes, const std::string& what, const std::string& base_dir) {
  return GraphBuilder(what, base_dir).build(bytes);
}

std::vector<Tensor> run_node(const GraphNode& node, int64_t opset, std::vector<Tensor> inputs) {
  return with_node_label(node, [&] {
    std::optional<Device> device;
    for (size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i].defined() && node.op->role(static_cast<int>(i)) != InputRole::Config &&
          !inputs[i].device().is_cpu()) {
        device = inputs[i].device();
        break;
      }
    if (device)
      for (size_t i = 0; i < inputs.size(); ++i)
        if (inputs[i].defined() && node.op->role(static_cast<int>(i)) != InputRole::Config)
          inputs[i] = inputs[i].to(*device);
    OpContext ctx(*node.proto, opset, std::move(inputs));
    std::vector<Tensor> out = node.op->fn(ctx);
    for (size_t i = 0; i < node.outputs.size(); ++i)
      ADEPT_CHECK(node.outputs[i] < 0 || (i < out.size() && out[i].defined()), NotImplementedForDevice,
                  "output {} ('{}') is not computed by the importer", i, node.proto->output(static_cast<int>(i)));
    return out;
  });
}

}  // namespace adept::onnx::detail
