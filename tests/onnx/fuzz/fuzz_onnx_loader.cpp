// libFuzzer target of the ONNX loader: arbitrary bytes through adept::onnx::load_bytes and, for models
// whose inputs all have small fixed shapes and Adept dtypes, one forward on zeros. Adept's typed errors
// (and bad_alloc) are expected outcomes; crashes, sanitizer reports, hangs and leaks are findings.
// Build and run: tests/onnx/fuzz/run.sh (clang's -fsanitize=fuzzer, the loader only).
#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "adept/onnx.h"
#include "adept/ops/creation.h"
#include "onnx/proto.h"

namespace {

// Zero tensors for the graph inputs when every one has an Adept dtype and a fixed shape of at most 4096
// elements; empty otherwise.
std::vector<adept::Tensor> small_inputs(const std::string& bytes, const adept::onnx::Model& model) {
  onnx::ModelProto proto;
  if (!proto.ParseFromString(bytes)) return {};
  std::vector<adept::Tensor> inputs;
  for (const std::string& name : model.input_names()) {
    for (const auto& in : proto.graph().input()) {
      if (in.name() != name) continue;
      const auto& tt = in.type().tensor_type();
      std::optional<adept::Dtype> dtype = adept::onnx::detail::dtype_from_onnx(tt.elem_type());
      if (!dtype || !tt.has_shape()) return {};
      adept::Shape shape;
      int64_t numel = 1;
      for (const auto& d : tt.shape().dim()) {
        if (!d.has_dim_value() || d.dim_value() < 0 || d.dim_value() > 4096) return {};
        shape.push_back(d.dim_value());
        numel *= d.dim_value();
        if (numel > 4096) return {};
      }
      inputs.push_back(adept::zeros(shape, *dtype));
      break;
    }
  }
  if (inputs.size() != model.input_names().size()) return {};
  return inputs;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    std::shared_ptr<adept::onnx::Model> model = adept::onnx::load_bytes(bytes);
    (void)model->state_dict();
    std::vector<adept::Tensor> inputs = small_inputs(bytes, *model);
    if (!inputs.empty() || model->input_names().empty()) model->forward_all(inputs);
  } catch (const adept::Error&) {
  } catch (const std::bad_alloc&) {
  }
  return 0;
}
