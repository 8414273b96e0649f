// Layer summary of a Yolo11 model: parameters per layer and conv GFLOPs derived from the layer
// shapes (2 x multiply-adds of every Conv2d at a square input), as the facts sheet's section 3.
#include <utility>

#include "adept/models/yolo/yolo11.h"
#include "adept/nn/modules.h"

namespace adept::models::yolo {

namespace {

/// Multiply-adds of every Conv2d inside `m`, each applied to an (h, w) input (every conv inside a
/// YOLO11 layer sees the layer's input size; only a Conv layer's own conv is strided).
double conv_macs(nn::Module& m, int64_t h, int64_t w) {
  double macs = 0;
  for (auto& [name, mod] : m.named_modules()) {
    auto* c = dynamic_cast<nn::Conv2d*>(mod.get());
    if (!c) continue;
    int64_t oh = (h + 2 * c->padding[0] - c->dilation[0] * (c->kernel_size[0] - 1) - 1) / c->stride[0] + 1;
    int64_t ow = (w + 2 * c->padding[1] - c->dilation[1] * (c->kernel_size[1] - 1) - 1) / c->stride[1] + 1;
    macs += static_cast<double>(c->out_channels * (c->in_channels / c->groups) * c->kernel_size[0] *
                                c->kernel_size[1] * oh * ow);
  }
  return macs;
}

std::string thousands(int64_t v) {
  std::string s = std::to_string(v), out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i > 0 && (s.size() - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return out;
}

std::string from_str(const std::vector<int64_t>& from) {
  if (from.size() == 1) return std::to_string(from[0]);
  std::string s = "[";
  for (size_t i = 0; i < from.size(); ++i) s += (i ? ", " : "") + std::to_string(from[i]);
  return s + "]";
}

}  // namespace

ModelSummary summary(Yolo11& model, int64_t imgsz) {
  ADEPT_CHECK(imgsz > 0 && imgsz % 32 == 0, ValueError, "summary: imgsz must be a positive multiple of 32, got {}",
              imgsz);
  ModelSummary s;
  s.imgsz = imgsz;
  const auto& specs = model.layers();
  const auto& strides = model.layer_strides();
  auto in_size = [&](size_t i, int64_t f) {  // spatial size of the input read from `f`
    int64_t src = f < 0 ? static_cast<int64_t>(i) - 1 : f;
    return src < 0 ? imgsz : imgsz / strides[src];
  };
  for (size_t i = 0; i < specs.size(); ++i) {
    const LayerSpec& l = specs[i];
    nn::ModulePtr layer = (*model.model)[static_cast<int64_t>(i)];
    LayerSummary row{static_cast<int64_t>(i), l.from, l.n, 0, l.type, l.args, 0};
    for (const Tensor& p : layer->parameters()) row.params += p.numel();
    double macs = 0;
    if (l.type == "Detect") {  // each level's branches at that level's size; the DFL decode not counted
      for (size_t j = 0; j < l.from.size(); ++j) {
        int64_t sz = in_size(i, l.from[j]);
        macs += conv_macs(*(*model.detect->cv2)[static_cast<int64_t>(j)], sz, sz);
        macs += conv_macs(*(*model.detect->cv3)[static_cast<int64_t>(j)], sz, sz);
      }
    } else {
      int64_t sz = in_size(i, l.from[0]);
      macs = conv_macs(*layer, sz, sz);
    }
    row.gflops = 2.0 * macs / 1e9;
    s.params += row.params;
    s.gflops += row.gflops;
    s.layers.push_back(std::move(row));
  }
  for (const Tensor& p : model.parameters())
    if (p.requires_grad()) s.trainable += p.numel();
  return s;
}

std::string ModelSummary::table() const {
  std::string out = fmt::format("{:>3} {:>18} {:>3} {:>10} {:>10}  {:<10} {}\n", "", "from", "n", "params", "GFLOPs",
                                "module", "arguments");
  for (const LayerSummary& r : layers)
    out += fmt::format("{:>3} {:>18} {:>3} {:>10} {:>10.3f}  {:<10} {}\n", r.index, from_str(r.from), r.n,
                       thousands(r.params), r.gflops, r.module, r.args);
  out += fmt::format("YOLO11 summary: {} layers, {} parameters, {} gradients, {:.2f} GFLOPs at {}x{}\n",
                     layers.size(), thousands(params), thousands(trainable), gflops, imgsz, imgsz);
  return out;
}

}  // namespace adept::models::yolo
