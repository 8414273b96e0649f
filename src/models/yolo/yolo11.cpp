// The YOLO11 model (include/adept/models/yolo/yolo11.h): the scaled yaml of sheet section 1 built
// layer by layer, and its forward pass through the `from` wiring.
#include "adept/models/yolo/yolo11.h"

#include <algorithm>
#include <cmath>

#include "adept/nn/modules.h"
#include "adept/ops.h"
#include "adept/profiler.h"
#include "ops/helpers.h"

namespace adept::models::yolo {

ScaleSpec yolo11_scale(const std::string& scale) {
  if (scale == "n") return {0.50, 0.25, 1024};
  if (scale == "s") return {0.50, 0.50, 1024};
  if (scale == "m") return {0.50, 1.00, 512};
  if (scale == "l") return {1.00, 1.00, 512};
  if (scale == "x") return {1.00, 1.50, 512};
  throw ValueError(fmt::format("yolo11: unknown scale '{}', expected one of n, s, m, l, x", scale));
}

namespace {

std::string py_bool(bool b) { return b ? "True" : "False"; }

}  // namespace

Yolo11::Yolo11(const std::string& scale, int64_t nc) : nn::Module("Yolo11"), scale(scale), nc(nc) {
  ADEPT_CHECK(nc >= 1, ValueError, "yolo11: nc must be >= 1, got {}", nc);
  const ScaleSpec sc = yolo11_scale(scale);
  const bool force_c3k = scale == "m" || scale == "l" || scale == "x";
  // Sheet 1.1: channels min(c, max) * width rounded up to a multiple of 8; repeats r > 1 scaled.
  auto width = [&](int64_t c) {
    return static_cast<int64_t>(std::ceil(static_cast<double>(std::min(c, sc.max_channels)) * sc.width / 8.0)) * 8;
  };
  auto depth = [&](int64_t r) {
    return r > 1 ? std::max<int64_t>(static_cast<int64_t>(std::round(static_cast<double>(r) * sc.depth)), 1) : r;
  };
  model = register_module("model", std::make_shared<nn::ModuleList>());
  std::vector<int64_t> ch;  // output channels per layer
  auto prev = [&] { return ch.empty() ? int64_t{3} : ch.back(); };
  auto prev_stride = [&] { return layer_strides_.empty() ? int64_t{1} : layer_strides_.back(); };
  auto add = [&](std::vector<int64_t> from, int64_t n, std::string type, std::string args, nn::ModulePtr m,
                 int64_t c_out, int64_t stride) {
    layers_.push_back({std::move(from), n, std::move(type), std::move(args)});
    model->append(std::move(m));
    ch.push_back(c_out);
    layer_strides_.push_back(stride);
  };
  auto conv = [&](int64_t c_yaml) {  // Conv(c, 3, 2)
    int64_t c1 = prev(), c2 = width(c_yaml);
    add({-1}, 1, "Conv", fmt::format("[{}, {}, 3, 2]", c1, c2), std::make_shared<Conv>(c1, c2, 3, 2), c2,
        prev_stride() * 2);
  };
  auto c3k2 = [&](int64_t c_yaml, bool c3k, double e) {  // C3k2 with yaml repeats 2
    int64_t c1 = prev(), c2 = width(c_yaml), n = depth(2);
    c3k = c3k || force_c3k;
    add({-1}, n, "C3k2", fmt::format("[{}, {}, {}, {}, {}]", c1, c2, n, py_bool(c3k), e),
        std::make_shared<C3k2>(c1, c2, n, c3k, e), c2, prev_stride());
  };
  auto upsample = [&] {
    add({-1}, 1, "Upsample", "[None, 2, 'nearest']",
        std::make_shared<nn::Upsample>(std::nullopt, std::vector<double>{2.0}, "nearest"), prev(), prev_stride() / 2);
  };
  auto concat = [&](int64_t skip) {
    add({-1, skip}, 1, "Concat", "[1]", std::make_shared<Concat>(1), prev() + ch[skip], prev_stride());
  };

  conv(64);                  // 0  P1/2
  conv(128);                 // 1  P2/4
  c3k2(256, false, 0.25);    // 2
  conv(256);                 // 3  P3/8
  c3k2(512, false, 0.25);    // 4
  conv(512);                 // 5  P4/16
  c3k2(512, true, 0.5);      // 6
  conv(1024);                // 7  P5/32
  c3k2(1024, true, 0.5);     // 8
  {                          // 9
    int64_t c1 = prev(), c2 = width(1024);
    add({-1}, 1, "SPPF", fmt::format("[{}, {}, 5]", c1, c2), std::make_shared<SPPF>(c1, c2, 5), c2, prev_stride());
  }
  {  // 10
    int64_t c1 = prev(), n = depth(2);
    add({-1}, n, "C2PSA", fmt::format("[{}, {}, {}]", c1, c1, n), std::make_shared<C2PSA>(c1, c1, n), c1,
        prev_stride());
  }
  upsample();                // 11
  concat(6);                 // 12
  c3k2(512, false, 0.5);     // 13
  upsample();                // 14
  concat(4);                 // 15
  c3k2(256, false, 0.5);     // 16 (P3/8 out)
  conv(256);                 // 17
  concat(13);                // 18
  c3k2(512, false, 0.5);     // 19 (P4/16 out)
  conv(512);                 // 20
  concat(10);                // 21
  c3k2(1024, true, 0.5);     // 22 (P5/32 out)
  const std::vector<int64_t> heads{16, 19, 22};
  detect = std::make_shared<Detect>(nc, std::vector<int64_t>{ch[16], ch[19], ch[22]});
  for (int64_t h : heads) detect->stride.push_back(static_cast<double>(layer_strides_[h]));
  add(heads, 1, "Detect", fmt::format("[{}, [{}, {}, {}]]", nc, ch[16], ch[19], ch[22]), detect, 4 * 16 + nc,
      layer_strides_[16]);
  detect->bias_init();

  saved_.assign(layers_.size(), false);
  for (const LayerSpec& l : layers_)
    for (int64_t f : l.from)
      if (f >= 0) saved_[f] = true;
}

std::vector<Tensor> Yolo11::forward_maps(const Tensor& x) {
  ADEPT_CHECK(x.dim() == 4 && x.size(1) == 3, ShapeError, "Yolo11: expected a (B, 3, H, W) input, got {}",
              shape_str(x.sizes()));
  ADEPT_CHECK(x.size(2) > 0 && x.size(3) > 0 && x.size(2) % 32 == 0 && x.size(3) % 32 == 0, ValueError,
              "Yolo11: input height and width must be positive multiples of 32 (the largest stride), got {}x{}",
              x.size(2), x.size(3));
  std::vector<Tensor> y(layers_.size());
  Tensor cur = x;
  for (size_t i = 0; i + 1 < layers_.size(); ++i) {
    const LayerSpec& l = layers_[i];
    const auto& layer = (*model)[static_cast<int64_t>(i)];
    profiler::RecordFunction label(fmt::format("model.{} {}", i, layer->type_name()));
    if (l.from.size() == 1) {
      cur = layer->forward(cur);
    } else {
      std::vector<Tensor> xs;
      for (int64_t f : l.from) xs.push_back(f < 0 ? cur : y[f]);
      cur = std::static_pointer_cast<Concat>(layer)->forward(xs);
    }
    if (saved_[i]) y[i] = cur;
  }
  std::vector<Tensor> feats;
  for (int64_t f : layers_.back().from) feats.push_back(y[f]);
  profiler::RecordFunction label(fmt::format("model.{} {}", layers_.size() - 1, detect->type_name()));
  return detect->forward_maps(feats);
}

Tensor Yolo11::forward(const Tensor& x) {
  std::vector<Tensor> maps = forward_maps(x);
  if (!is_training()) return detect->decode(maps);
  std::vector<Tensor> flat;
  for (const Tensor& m : maps) flat.push_back(m.flatten(2));
  return cat(flat, 2);
}

}  // namespace adept::models::yolo
