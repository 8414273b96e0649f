// ONNX export of YOLO11 (include/adept/models/yolo/export.h): walks the model's modules in the order of
// Yolo11::forward_maps and emits, for each, the ONNX nodes that compute its evaluation-mode forward, through
// the generic adept::onnx::GraphWriter. A module type it does not know stops the export naming its path.
#include "adept/models/yolo/export.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "adept/autograd.h"
#include "adept/models/yolo/blocks.h"
#include "adept/nn/modules.h"
#include "adept/onnx.h"
#include "adept/onnx/writer.h"
#include "adept/ops.h"

#ifndef ADEPT_VERSION
#define ADEPT_VERSION "unknown"
#endif

namespace adept::models::yolo {

namespace {

constexpr int64_t kDynamic = -1;  // a dimension known only at run time

// A graph value and what is known of its shape (kDynamic where it depends on the input's dims).
struct Value {
  std::string name;
  Shape shape;
};

int64_t known_product(int64_t a, int64_t b) { return a == kDynamic || b == kDynamic ? kDynamic : a * b; }

// A Python literal of a string, for the metadata Ultralytics reads with ast.literal_eval.
std::string py_str(const std::string& s) {
  std::string out = "'";
  for (unsigned char c : s) {
    if (c == '\\' || c == '\'') out += '\\', out += static_cast<char>(c);
    else if (c == '\n') out += "\\n";
    else if (c < 0x20 || c == 0x7f) out += fmt::format("\\x{:02x}", c);
    else out += static_cast<char>(c);
  }
  return out + "'";
}

// Ultralytics-style node scope of a module path: "model.2.m.0.cv1" -> "/model.2/m.0/cv1" (a numeric part
// joins its parent with '.', as torch names the children of lists).
std::string scope_of(const std::string& path) {
  std::string out;
  size_t start = 0;
  while (start <= path.size()) {
    size_t dot = path.find('.', start);
    if (dot == std::string::npos) dot = path.size();
    const std::string part = path.substr(start, dot - start);
    const bool numeric =
        !part.empty() && std::all_of(part.begin(), part.end(), [](unsigned char c) { return std::isdigit(c); });
    out += (numeric && !out.empty() ? "." : "/") + part;
    start = dot + 1;
  }
  return out;
}

std::string join_path(const std::string& path, const std::string& child) {
  return path.empty() ? child : path + "." + child;
}

class Emitter {
 public:
  Emitter(onnx::GraphWriter& g, const OnnxExportOptions& o) : g_(g), opset_(o.opset) {}

  // ---- single nodes ----

  // A node of `op` in module `path` with one output of `shape`.
  Value op(const std::string& path, const std::string& op_type, const std::vector<std::string>& inputs, Shape shape,
           const onnx::Attributes& attrs = {}, const std::string& out_name = "") {
    const std::string node = g_.unique_name(scope_of(path) + "/" + op_type);
    const std::string out = out_name.empty() ? g_.unique_name(node + "_output_0") : out_name;
    g_.add_node(op_type, inputs, {out}, attrs, node);
    return {out, std::move(shape)};
  }

  std::string ints(const std::string& path, const std::vector<int64_t>& v) {
    const Tensor t = from_blob_copy(v.data(), {static_cast<int64_t>(v.size())}, kInt64);
    return g_.add_constant(scope_of(path) + "/Constant", t);
  }
  std::string scalar(const std::string& path, float v) {
    return g_.add_constant(scope_of(path) + "/Constant", from_blob_copy(&v, {}, kFloat32));
  }

  Value binary(const std::string& path, const std::string& op_type, const Value& a, const Value& b) {
    Shape s = a.shape.size() >= b.shape.size() ? a.shape : b.shape;  // broadcast: the longer one's dims
    const Shape& o = a.shape.size() >= b.shape.size() ? b.shape : a.shape;
    for (size_t i = 0; i < o.size(); ++i) {
      int64_t& d = s[s.size() - o.size() + i];
      const int64_t e = o[i];
      if (d == 1 || d == kDynamic) d = e == 1 ? d : e;
    }
    return op(path, op_type, {a.name, b.name}, s);
  }

  Value concat(const std::string& path, const std::vector<Value>& xs, int64_t axis, const std::string& out_name = "") {
    const auto rank = static_cast<int64_t>(xs.at(0).shape.size());
    const int64_t ax = axis < 0 ? axis + rank : axis;
    Shape s = xs[0].shape;
    s[ax] = 0;
    std::vector<std::string> names;
    for (const Value& x : xs) {
      names.push_back(x.name);
      s[ax] = s[ax] == kDynamic || x.shape[ax] == kDynamic ? kDynamic : s[ax] + x.shape[ax];
    }
    return op(path, "Concat", names, s, {{"axis", axis}}, out_name);
  }

  // Split along `axis` into parts of `sizes` (opset >= 13: sizes as an input, before: an attribute).
  std::vector<Value> split(const std::string& path, const Value& x, int64_t axis, const std::vector<int64_t>& sizes) {
    const std::string node = g_.unique_name(scope_of(path) + "/Split");
    std::vector<std::string> outs;
    std::vector<Value> values;
    for (size_t i = 0; i < sizes.size(); ++i) {
      outs.push_back(g_.unique_name(fmt::format("{}_output_{}", node, i)));
      Shape s = x.shape;
      s[axis] = sizes[i];
      values.push_back({outs.back(), s});
    }
    if (opset_ >= 13)
      g_.add_node("Split", {x.name, ints(path, sizes)}, outs, {{"axis", axis}}, node);
    else
      g_.add_node("Split", {x.name}, outs, {{"axis", axis}, {"split", sizes}}, node);
    return values;
  }

  // Reshape to `dims`; a dynamic dim 0 copies the input's (the batch), one other may be inferred (-1).
  Value reshape(const std::string& path, const Value& x, const Shape& dims) {
    std::vector<int64_t> target = dims;
    int inferred = 0;
    for (size_t i = 0; i < target.size(); ++i) {
      if (target[i] != kDynamic) continue;
      if (i == 0) {
        target[i] = 0;  // allowzero = 0: copy the input's dim 0
      } else {
        ADEPT_CHECK(++inferred == 1, ValueError, "ONNX export: internal error, reshape of {} has two run-time dims",
                    x.name);
        target[i] = -1;
      }
    }
    return op(path, "Reshape", {x.name, ints(path, target)}, dims);
  }

  // Reshape to the shape of `like` (its Shape at run time when it has dynamic dims).
  Value reshape_like(const std::string& path, const Value& x, const Value& like) {
    if (std::find(like.shape.begin(), like.shape.end(), kDynamic) == like.shape.end())
      return reshape(path, x, like.shape);
    const Value shape = op(path, "Shape", {like.name}, {static_cast<int64_t>(like.shape.size())});
    return op(path, "Reshape", {x.name, shape.name}, like.shape);
  }

  Value transpose(const std::string& path, const Value& x, const std::vector<int64_t>& perm) {
    Shape s;
    for (int64_t p : perm) s.push_back(x.shape[p]);
    return op(path, "Transpose", {x.name}, s, {{"perm", perm}});
  }

  Value silu(const std::string& path, const Value& x) {
    const Value sig = op(path, "Sigmoid", {x.name}, x.shape);
    return op(path, "Mul", {x.name, sig.name}, x.shape);
  }

  // Conv of weight (Cout, Cin / groups, kh, kw) and optional bias, as initializers `path`.weight / .bias.
  Value conv(const std::string& path, const Value& x, const Tensor& weight, const Tensor& bias, IntPair stride,
             IntPair padding, IntPair dilation, int64_t groups) {
    const std::string w = path + ".weight";
    g_.add_initializer(w, weight.to(kFloat32));
    std::vector<std::string> inputs{x.name, w};
    if (bias.defined()) {
      g_.add_initializer(path + ".bias", bias.to(kFloat32));
      inputs.push_back(path + ".bias");
    }
    const int64_t kh = weight.size(2), kw = weight.size(3);
    auto out_size = [&](int64_t in, int i, int64_t k) {
      return in == kDynamic ? kDynamic : (in + 2 * padding[i] - dilation[i] * (k - 1) - 1) / stride[i] + 1;
    };
    const Shape s{x.shape[0], weight.size(0), out_size(x.shape[2], 0, kh), out_size(x.shape[3], 1, kw)};
    return op(path, "Conv", inputs, s,
              {{"dilations", std::vector<int64_t>{dilation[0], dilation[1]}},
               {"group", groups},
               {"kernel_shape", std::vector<int64_t>{kh, kw}},
               {"pads", std::vector<int64_t>{padding[0], padding[1], padding[0], padding[1]}},
               {"strides", std::vector<int64_t>{stride[0], stride[1]}}});
  }

  // ---- modules ----

  [[noreturn]] void unsupported(const std::string& path, const nn::Module& m, const std::string& reason = "") {
    const std::string why = reason.empty() ? "a module type the YOLO11 ONNX exporter does not know (it exports "
                                             "Conv, DWConv, Conv2d, SiLU, Identity, Sequential, Bottleneck, C3k, C3k2, "
                                             "SPPF, C2PSA, PSABlock, Attention, MaxPool2d, Upsample, Concat, Detect, "
                                             "DFL)"
                                           : reason;
    throw onnx::UnsupportedError(
        fmt::format("ONNX export: module '{}' ({}): {}", path, m.type_name(), why),
        {onnx::Unsupported{m.type_name(), "", opset_, path, reason}});
  }

  Value conv2d_module(const std::string& path, const nn::Conv2d& c, const Value& x) {
    if (c.padding_string || c.padding_mode != "zeros")
      unsupported(path, c, fmt::format("padding '{}' / padding_mode '{}' (only explicit zero padding is exported)",
                                       c.padding_string.value_or(""), c.padding_mode));
    NoGradGuard ng;
    return conv(path, x, c.parameter("weight"), c.parameter("bias"), c.stride, c.padding, c.dilation, c.groups);
  }

  // Conv block: BatchNorm folded into the convolution exactly as Conv::forward folds it in evaluation.
  Value conv_block(const std::string& path, const Conv& m, const Value& x) {
    const std::shared_ptr<nn::Module> conv_module = m.conv();
    const auto* c = dynamic_cast<const nn::Conv2d*>(conv_module.get());
    if (!c) unsupported(join_path(path, "conv"), *conv_module);
    const std::shared_ptr<nn::Module> bn_module = m.bn();
    const auto* bn = dynamic_cast<const nn::BatchNorm*>(bn_module.get());
    if (!bn || !bn->affine || !bn->track_running_stats)
      unsupported(join_path(path, "bn"), *bn_module, "only a BatchNorm with affine parameters and running statistics "
                                               "is folded into the convolution");
    if (c->parameter("bias").defined())
      unsupported(join_path(path, "conv"), *c,
                  "a Conv block's convolution has no bias (Conv::forward folds without one)");
    if (c->padding_string || c->padding_mode != "zeros")
      unsupported(join_path(path, "conv"), *c, "only explicit zero padding is exported");
    Tensor w, b;
    {
      NoGradGuard ng;
      const Tensor scale = bn->parameter("weight") * rsqrt(bn->buffer("running_var") + bn->eps);
      w = c->parameter("weight") * scale.view({-1, 1, 1, 1});
      b = bn->parameter("bias") - bn->buffer("running_mean") * scale;
    }
    Value y = conv(join_path(path, "conv"), x, w, b, c->stride, c->padding, c->dilation, c->groups);
    return activation(join_path(path, "act"), *m.act(), y);
  }

  Value activation(const std::string& path, const nn::Module& act, const Value& x) {
    if (dynamic_cast<const nn::SiLU*>(&act)) return silu(path, x);
    if (dynamic_cast<const nn::Identity*>(&act)) return x;
    unsupported(path, act, "the exporter writes SiLU and Identity activations only");
  }

  Value max_pool(const std::string& path, const nn::MaxPool2d& p, const Value& x) {
    if (p.return_indices) unsupported(path, p, "return_indices is not exported");
    const IntPair k = p.kernel_size.value, s = p.stride.value, pad = p.padding.value, d = p.dilation.value;
    auto out_size = [&](int64_t in, int i) {
      if (in == kDynamic) return kDynamic;
      const int64_t span = in + 2 * pad[i] - d[i] * (k[i] - 1) - 1;
      return (p.ceil_mode ? (span + s[i] - 1) / s[i] : span / s[i]) + 1;
    };
    onnx::Attributes attrs{{"kernel_shape", std::vector<int64_t>{k[0], k[1]}},
                           {"pads", std::vector<int64_t>{pad[0], pad[1], pad[0], pad[1]}},
                           {"strides", std::vector<int64_t>{s[0], s[1]}}};
    if (d[0] != 1 || d[1] != 1) attrs.emplace_back("dilations", std::vector<int64_t>{d[0], d[1]});
    if (p.ceil_mode) attrs.emplace_back("ceil_mode", int64_t{1});
    return op(path, "MaxPool", {x.name}, {x.shape[0], x.shape[1], out_size(x.shape[2], 0), out_size(x.shape[3], 1)},
              attrs);
  }

  // nn::Upsample(scale_factor, "nearest"): Resize with PyTorch's nearest rule, src = floor(dst / scale).
  Value upsample(const std::string& path, const nn::Upsample& u, const Value& x) {
    if (u.mode != "nearest" || u.size || !u.scale_factor || u.scale_factor->empty() || u.scale_factor->size() > 2)
      unsupported(path, u, "only nearest upsampling by a scale_factor is exported");
    const double sh = u.scale_factor->front(), sw = u.scale_factor->back();
    const std::string roi = opset_ >= 13 ? "" : g_.add_constant(scope_of(path) + "/Constant", zeros({0}, kFloat32));
    const std::string scales =
        g_.add_constant(scope_of(path) + "/Constant", tensor(std::vector<float>{1.f, 1.f, static_cast<float>(sh),
                                                                                 static_cast<float>(sw)}));
    auto out_size = [](int64_t in, double s) {
      return in == kDynamic ? kDynamic : static_cast<int64_t>(std::floor(static_cast<double>(in) * s));
    };
    return op(path, "Resize", {x.name, roi, scales},
              {x.shape[0], x.shape[1], out_size(x.shape[2], sh), out_size(x.shape[3], sw)},
              {{"coordinate_transformation_mode", std::string("asymmetric")},
               {"mode", std::string("nearest")},
               {"nearest_mode", std::string("floor")}});
  }

  // Attention (blocks.cpp): q, k, v from one 1x1 conv, softmax(q^T k * scale) over the positions, plus a
  // depthwise positional conv of v, then proj.
  Value attention(const std::string& path, const Attention& a, const Value& x) {
    const int64_t B = x.shape[0], H = x.shape[2], W = x.shape[3], N = known_product(H, W);
    const int64_t heads = a.num_heads, kd = a.key_dim, hd = a.head_dim;
    const Value qkv = emit(join_path(path, "qkv"), a.qkv, x);
    const Value r = reshape(path, qkv, {B, heads, 2 * kd + hd, N});
    const std::vector<Value> parts = split(path, r, 2, {kd, kd, hd});
    const Value &q = parts[0], &k = parts[1], &v = parts[2];
    const Value qt = transpose(path, q, {0, 1, 3, 2});
    const Value s = op(path, "MatMul", {qt.name, k.name}, {B, heads, N, N});
    const Value scaled = op(path, "Mul", {s.name, scalar(path, static_cast<float>(a.scale))}, s.shape);
    // Softmax over the last axis: the same at every opset (before 13 it spans all trailing axes).
    const Value attn = op(path, "Softmax", {scaled.name}, s.shape, {{"axis", int64_t{3}}});
    const Value attn_t = transpose(path, attn, {0, 1, 3, 2});
    const Value o = op(path, "MatMul", {v.name, attn_t.name}, v.shape);
    const Value o4 = reshape_like(path, o, x);
    const Value v4 = reshape_like(path, v, x);
    const Value pe = emit(join_path(path, "pe"), a.pe, v4);
    const Value sum = binary(path, "Add", o4, pe);
    return emit(join_path(path, "proj"), a.proj, sum);
  }

  // Any module of a YOLO11 backbone or neck with one input.
  Value emit(const std::string& path, const nn::ModulePtr& mp, const Value& x) {
    const nn::Module& m = *mp;
    if (const auto* c = dynamic_cast<const Conv*>(&m)) return conv_block(path, *c, x);
    if (const auto* c = dynamic_cast<const nn::Conv2d*>(&m)) return conv2d_module(path, *c, x);
    if (const auto* s = dynamic_cast<const nn::Sequential*>(&m)) {
      Value y = x;
      for (int64_t i = 0; i < s->size(); ++i) y = emit(join_path(path, std::to_string(i)), (*s)[i], y);
      return y;
    }
    if (const auto* b = dynamic_cast<const Bottleneck*>(&m)) {
      const Value y = emit(join_path(path, "cv2"), b->cv2, emit(join_path(path, "cv1"), b->cv1, x));
      return b->add ? binary(path, "Add", x, y) : y;
    }
    if (const auto* c = dynamic_cast<const C3k*>(&m)) {
      const Value a = emit(join_path(path, "m"), c->m, emit(join_path(path, "cv1"), c->cv1, x));
      const Value b = emit(join_path(path, "cv2"), c->cv2, x);
      return emit(join_path(path, "cv3"), c->cv3, concat(path, {a, b}, 1));
    }
    if (const auto* c = dynamic_cast<const C3k2*>(&m)) {
      std::vector<Value> ys = split(path, emit(join_path(path, "cv1"), c->cv1, x), 1, {c->c, c->c});
      for (int64_t i = 0; i < c->m->size(); ++i)
        ys.push_back(emit(join_path(path, "m." + std::to_string(i)), (*c->m)[i], ys.back()));
      return emit(join_path(path, "cv2"), c->cv2, concat(path, ys, 1));
    }
    if (const auto* s = dynamic_cast<const SPPF*>(&m)) {
      std::vector<Value> ys{emit(join_path(path, "cv1"), s->cv1, x)};
      for (int i = 0; i < 3; ++i) ys.push_back(emit(join_path(path, "m"), s->m, ys.back()));
      return emit(join_path(path, "cv2"), s->cv2, concat(path, ys, 1));
    }
    if (const auto* c = dynamic_cast<const C2PSA*>(&m)) {
      const std::vector<Value> ab = split(path, emit(join_path(path, "cv1"), c->cv1, x), 1, {c->c, c->c});
      const Value b = emit(join_path(path, "m"), c->m, ab[1]);
      return emit(join_path(path, "cv2"), c->cv2, concat(path, {ab[0], b}, 1));
    }
    if (const auto* p = dynamic_cast<const PSABlock*>(&m)) {
      const Value a = emit(join_path(path, "attn"), p->attn, x);
      const Value y = p->add ? binary(path, "Add", x, a) : a;
      const Value f = emit(join_path(path, "ffn"), p->ffn, y);
      return p->add ? binary(path, "Add", y, f) : f;
    }
    if (const auto* a = dynamic_cast<const Attention*>(&m)) return attention(path, *a, x);
    if (const auto* p = dynamic_cast<const nn::MaxPool2d*>(&m)) return max_pool(path, *p, x);
    if (const auto* u = dynamic_cast<const nn::Upsample*>(&m)) return upsample(path, *u, x);
    if (dynamic_cast<const nn::SiLU*>(&m) || dynamic_cast<const nn::Identity*>(&m)) return activation(path, m, x);
    unsupported(path, m);
  }

  // ---- the head ----

  // DFL: softmax over the reg_max bins of each side, then the expectation through the frozen 1x1 conv.
  Value dfl(const std::string& path, const DFL& d, const Value& box) {
    const int64_t B = box.shape[0], A = box.shape[2], c1 = d.c1;
    const auto* c = dynamic_cast<const nn::Conv2d*>(d.conv.get());
    if (!c) unsupported(join_path(path, "conv"), *d.conv);
    const Value r = reshape(path, box, {B, 4, c1, A});
    Value p;
    if (opset_ >= 13) {
      p = op(path, "Softmax", {transpose(path, r, {0, 2, 1, 3}).name}, {B, c1, 4, A}, {{"axis", int64_t{1}}});
    } else {  // Softmax before opset 13 normalizes over all trailing axes: put the bins last
      const Value t = transpose(path, r, {0, 1, 3, 2});
      const Value s = op(path, "Softmax", {t.name}, t.shape, {{"axis", int64_t{3}}});
      p = transpose(path, s, {0, 3, 1, 2});
    }
    const Value e = conv2d_module(join_path(path, "conv"), *c, p);  // (B, 1, 4, A)
    return reshape(path, e, {B, 4, A});
  }

  // Anchor points (2, A) and strides (1, A) of feature maps `maps` (Detect::decode's make_anchors):
  // constants when every size is known, else computed from the maps' shapes.
  std::pair<Value, Value> anchors(const std::string& path, const std::vector<Value>& maps,
                                  const std::vector<double>& strides) {
    bool known = true;
    for (const Value& m : maps) known = known && m.shape[2] != kDynamic && m.shape[3] != kDynamic;
    if (known) {
      std::vector<std::pair<int64_t, int64_t>> sizes;
      for (const Value& m : maps) sizes.emplace_back(m.shape[2], m.shape[3]);
      auto [points, stride] = make_anchors(sizes, strides, kFloat32);
      const int64_t A = points.size(0);
      return {{g_.add_constant(scope_of(path) + "/anchors", points.transpose(0, 1).contiguous()), {2, A}},
              {g_.add_constant(scope_of(path) + "/strides", stride.transpose(0, 1).contiguous()), {1, A}}};
    }
    std::vector<Value> points, stride_rows;
    for (size_t i = 0; i < maps.size(); ++i) {
      const std::string p = join_path(path, "anchors" + std::to_string(i));
      const Value shape = op(p, "Shape", {maps[i].name}, {4});
      auto dim = [&](int64_t axis) {  // a 0-d int64 of the map's dim, and the same as a float
        const std::string index = g_.add_constant(scope_of(p) + "/Constant", scalar_tensor(axis, kInt64));
        const Value d = op(p, "Gather", {shape.name, index}, {}, {{"axis", int64_t{0}}});
        return op(p, "Cast", {d.name}, {}, {{"to", int64_t{1}}});  // 1 = FLOAT
      };
      const Value h = dim(2), w = dim(3);
      const std::string start = scalar(p, 0.5f), step = scalar(p, 1.0f);
      const Value sx = op(p, "Range", {start, w.name, step}, {kDynamic});  // 0.5, 1.5, ... w - 0.5
      const Value sy = op(p, "Range", {start, h.name, step}, {kDynamic});
      const Value hw = op(p, "Gather", {shape.name, ints(p, {2, 3})}, {2}, {{"axis", int64_t{0}}});
      const Value gx = op(p, "Expand", {reshape(p, sx, {1, kDynamic}).name, hw.name}, {kDynamic, kDynamic});
      const Value gy = op(p, "Expand", {op(p, "Reshape", {sy.name, ints(p, {-1, 1})}, {kDynamic, 1}).name, hw.name},
                          {kDynamic, kDynamic});
      const Value fx = op(p, "Reshape", {gx.name, ints(p, {1, -1})}, {1, kDynamic});
      const Value fy = op(p, "Reshape", {gy.name, ints(p, {1, -1})}, {1, kDynamic});
      points.push_back(concat(p, {fx, fy}, 0));
      const Value n = op(p, "Shape", {fx.name}, {2});
      const std::string s = g_.add_constant(scope_of(p) + "/Constant",
                                            full({1, 1}, static_cast<float>(strides[i]), kFloat32));
      stride_rows.push_back(op(p, "Expand", {s, n.name}, {1, kDynamic}));
    }
    return {concat(path, points, 1), concat(path, stride_rows, 1)};
  }

  // Detect (blocks.cpp): per level cat[cv2 box, cv3 cls] flattened and concatenated over levels, then
  // Detect::decode: DFL distances around the anchors to xywh in pixels, sigmoid class scores.
  Value detect(const std::string& path, const Detect& d, const std::vector<Value>& xs, const std::string& out_name) {
    ADEPT_CHECK(static_cast<int64_t>(xs.size()) == d.nl && static_cast<int64_t>(d.stride.size()) == d.nl,
                ValueError, "ONNX export: Detect expects {} feature maps and strides, got {} and {}", d.nl, xs.size(),
                d.stride.size());
    std::vector<Value> maps, flat;
    for (int64_t i = 0; i < d.nl; ++i) {
      const Value box = emit(join_path(path, "cv2." + std::to_string(i)), (*d.cv2)[i], xs[i]);
      const Value cls = emit(join_path(path, "cv3." + std::to_string(i)), (*d.cv3)[i], xs[i]);
      maps.push_back(concat(path, {box, cls}, 1));
      const Shape& s = maps.back().shape;
      flat.push_back(reshape(path, maps.back(), {s[0], d.no, known_product(s[2], s[3])}));
    }
    const Value all = concat(path, flat, 2);
    const std::vector<Value> parts = split(path, all, 1, {4 * d.reg_max, d.nc});
    const Value dist = dfl(join_path(path, "dfl"), *d.dfl, parts[0]);
    const auto [anc, str] = anchors(path, maps, d.stride);
    const std::vector<Value> lt_rb = split(path, dist, 1, {2, 2});
    const Value x1y1 = binary(path, "Sub", anc, lt_rb[0]);
    const Value x2y2 = binary(path, "Add", anc, lt_rb[1]);
    const Value two{scalar(path, 2.0f), {}};
    const Value c_xy = binary(path, "Div", binary(path, "Add", x1y1, x2y2), two);
    const Value wh = binary(path, "Sub", x2y2, x1y1);
    const Value box = binary(path, "Mul", concat(path, {c_xy, wh}, 1), str);
    const Value cls = op(path, "Sigmoid", {parts[1].name}, parts[1].shape);
    return concat(path, {box, cls}, 1, out_name);
  }

  // The whole model, following Yolo11::forward_maps: a layer with one `from` reads the previous output,
  // one with several is a Concat of them; the last is the Detect head.
  Value model(Yolo11& model, const Value& images, const std::string& out_name) {
    const std::vector<LayerSpec>& layers = model.layers();
    ADEPT_CHECK(!layers.empty() && model.model->size() == static_cast<int64_t>(layers.size()), ValueError,
                "ONNX export: the model has {} layers but {} layer specs", model.model->size(), layers.size());
    std::vector<Value> y(layers.size());
    Value cur = images;
    for (size_t i = 0; i + 1 < layers.size(); ++i) {
      const std::string path = fmt::format("model.{}", i);
      const nn::ModulePtr& layer = (*model.model)[static_cast<int64_t>(i)];
      if (layers[i].from.size() == 1) {
        cur = emit(path, layer, cur);
      } else {
        const auto* c = dynamic_cast<const Concat*>(layer.get());
        if (!c) unsupported(path, *layer, "a layer with several inputs must be a Concat");
        std::vector<Value> xs;
        for (int64_t f : layers[i].from) xs.push_back(f < 0 ? cur : y.at(f));
        cur = concat(path, xs, c->d);
      }
      y[i] = cur;
    }
    const size_t last = layers.size() - 1;
    const nn::ModulePtr& head = (*model.model)[static_cast<int64_t>(last)];
    const auto* d = dynamic_cast<const Detect*>(head.get());
    if (!d) unsupported(fmt::format("model.{}", last), *head, "the last layer must be the Detect head");
    std::vector<Value> feats;
    for (int64_t f : layers[last].from) feats.push_back(y.at(f));
    return detect(fmt::format("model.{}", last), *d, feats, out_name);
  }

 private:
  onnx::GraphWriter& g_;
  int64_t opset_;
};

std::vector<std::string> dims_text(const std::vector<onnx::Dim>& dims) {
  std::vector<std::string> out;
  for (const onnx::Dim& d : dims) out.push_back(d.param.empty() ? std::to_string(d.size) : d.param);
  return out;
}

}  // namespace

OnnxExportResult export_onnx(Yolo11& model, const std::vector<std::string>& names, const std::string& path,
                             const OnnxExportOptions& o) {
  onnx::GraphWriter g(o.opset);  // ValueError for an opset it does not write
  ADEPT_CHECK(o.height > 0 && o.width > 0 && o.height % 32 == 0 && o.width % 32 == 0, ValueError,
              "ONNX export: imgsz {}x{} must be positive multiples of 32 (the largest stride)", o.height, o.width);
  ADEPT_CHECK(o.batch >= 1, ValueError, "ONNX export: batch must be >= 1, got {}", o.batch);
  ADEPT_CHECK(static_cast<int64_t>(names.size()) == model.nc, ValueError,
              "ONNX export: {} class names for a model with nc = {}", names.size(), model.nc);

  const int64_t A = (o.height / 8) * (o.width / 8) + (o.height / 16) * (o.width / 16) +
                    (o.height / 32) * (o.width / 32);
  const std::vector<onnx::Dim> in_dims =
      o.dynamic ? std::vector<onnx::Dim>{"batch", 3, "height", "width"}
                : std::vector<onnx::Dim>{o.batch, 3, o.height, o.width};
  const int64_t no = 4 + model.nc;
  const std::vector<onnx::Dim> out_dims =
      o.dynamic ? std::vector<onnx::Dim>{"batch", no, "anchors"} : std::vector<onnx::Dim>{o.batch, no, A};
  g.add_input("images", kFloat32, in_dims);
  const Value images{"images",
                     o.dynamic ? Shape{kDynamic, 3, kDynamic, kDynamic} : Shape{o.batch, 3, o.height, o.width}};
  Emitter(g, o).model(model, images, "output0");
  g.add_output("output0", kFloat32, out_dims);

  // Ultralytics' metadata_props (values as Python literals, read back with ast.literal_eval).
  std::string names_text;
  for (size_t i = 0; i < names.size(); ++i) names_text += fmt::format("{}{}: {}", i ? ", " : "", i, py_str(names[i]));
  double max_stride = 0;
  for (double s : model.detect->stride) max_stride = std::max(max_stride, s);
  g.set_producer("adept", ADEPT_VERSION);
  g.add_metadata("description", fmt::format("Adept YOLO11{} model", model.scale));
  g.add_metadata("author", "Adept");
  g.add_metadata("version", ADEPT_VERSION);
  g.add_metadata("stride", std::to_string(static_cast<int64_t>(max_stride)));
  g.add_metadata("task", "detect");
  g.add_metadata("batch", std::to_string(o.batch));
  g.add_metadata("imgsz", fmt::format("[{}, {}]", o.height, o.width));
  g.add_metadata("names", "{" + names_text + "}");
  g.add_metadata("channels", "3");
  g.add_metadata("args", fmt::format("{{'batch': {}, 'dynamic': {}, 'opset': {}}}", o.batch,
                                     o.dynamic ? "True" : "False", o.opset));
  g.save(path);

  OnnxExportResult r;
  r.path = path;
  r.opset = g.opset();
  r.ir_version = g.ir_version();
  r.input_shape = dims_text(in_dims);
  r.output_shape = dims_text(out_dims);
  return r;
}

OnnxExportResult export_model(const Config& user_config, const LoadedModel* model) {
  Config config = user_config;
  std::string format = config.str("format");
  std::transform(format.begin(), format.end(), format.begin(), [](unsigned char c) { return std::tolower(c); });
  ADEPT_CHECK(format == "onnx", ValueError, "export: format '{}' is not supported; Adept exports format=onnx",
              config.str("format"));
  OnnxExportOptions o;
  o.opset = config.integer("opset");
  onnx::ir_version_for_opset(o.opset);  // a bad opset fails before the model loads
  const LoadedModel loaded = model ? *model : load_model(config.str("model"));
  if (!loaded.checkpoint.empty()) config.set_default("imgsz", loaded.train_config.str("imgsz"));
  config.set_default("batch", "1");
  o.height = o.width = config.integer("imgsz");
  o.batch = config.integer("batch");
  o.dynamic = config.flag("dynamic");
  std::string path;
  if (!loaded.checkpoint.empty())
    path = std::filesystem::path(loaded.checkpoint).replace_extension(".onnx").string();
  else
    path = fmt::format("yolo11{}.onnx", loaded.model->scale);
  return export_onnx(*loaded.model, loaded.names, path, o);
}

}  // namespace adept::models::yolo
