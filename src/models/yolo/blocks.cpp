// The YOLO11 blocks (include/adept/models/yolo/blocks.h), following the facts sheet section 2.
#include "adept/models/yolo/blocks.h"

#include <cmath>
#include <numeric>

#include "adept/autograd.h"
#include "adept/nn/modules.h"
#include "adept/ops.h"
#include "ops/helpers.h"

namespace adept::models::yolo {

namespace {

/// Padding that keeps the size at stride 1: half the effective kernel d (k - 1) + 1.
int64_t autopad(int64_t k, int64_t d) { return (d * (k - 1) + 1) / 2; }

}  // namespace

// ---- Conv / DWConv ----

Conv::Conv(int64_t c1, int64_t c2, int64_t k, int64_t s, int64_t g, int64_t d, bool act)
    : Conv("Conv", c1, c2, k, s, g, d, act) {}

Conv::Conv(const char* type_name, int64_t c1, int64_t c2, int64_t k, int64_t s, int64_t g, int64_t d, bool act)
    : nn::Module(type_name) {
  register_module("conv", std::make_shared<nn::Conv2d>(c1, c2, k, s, autopad(k, d), d, g, /*bias=*/false));
  register_module("bn", std::make_shared<nn::BatchNorm2d>(c2, /*eps=*/1e-3, /*momentum=*/0.03));
  register_module("act", act ? std::shared_ptr<nn::Module>(std::make_shared<nn::SiLU>())
                             : std::shared_ptr<nn::Module>(std::make_shared<nn::Identity>()));
}

// In eval mode without autograd (validation, prediction) the BatchNorm is folded into the convolution, as
// Ultralytics' fuse() does: w' = w gamma / sqrt(var + eps), b' = beta - mean gamma / sqrt(var + eps), and the
// SiLU runs in the convolution's output write (conv2d_silu): one pass over the activation instead of three.
// Otherwise (training) BN and SiLU run as one fused node (batch_norm_silu), which stores no BN output.
Tensor Conv::forward(const Tensor& x) {
  const std::shared_ptr<nn::Module> conv = this->conv(), bn = this->bn(), act = this->act();
  auto* bn2d = dynamic_cast<nn::BatchNorm*>(bn.get());
  const auto* c = dynamic_cast<const nn::Conv2d*>(conv.get());
  if (c && (c->padding_string || c->padding_mode != "zeros")) c = nullptr;  // only explicit zero padding folds
  const bool silu = dynamic_cast<const nn::SiLU*>(act.get()) != nullptr;
  const bool fold = !is_training() && !bn->is_training() && !is_grad_enabled() && c && bn2d && bn2d->affine &&
                    bn2d->track_running_stats;
  if (!fold) return bn2d && silu ? bn2d->forward_silu(conv->forward(x)) : act->forward(bn->forward(conv->forward(x)));
  const Tensor scale = bn->parameter("weight") * rsqrt(bn->buffer("running_var") + bn2d->eps);
  const Tensor w = c->parameter("weight") * scale.view({-1, 1, 1, 1});
  Tensor b = bn->parameter("bias") - bn->buffer("running_mean") * scale;
  if (c->parameter("bias").defined()) b = b + c->parameter("bias") * scale;  // a replacement conv with a bias
  if (silu) return conv2d_silu(x, w, b, c->stride, c->padding, c->dilation, c->groups);
  return act->forward(conv2d(x, w, b, c->stride, c->padding, c->dilation, c->groups));
}

DWConv::DWConv(int64_t c1, int64_t c2, int64_t k, int64_t s, bool act)
    : Conv("DWConv", c1, c2, k, s, std::gcd(c1, c2), 1, act) {}

// ---- Bottleneck / C3k / C3k2 ----

Bottleneck::Bottleneck(int64_t c1, int64_t c2, bool shortcut, int64_t g, nn::IntPair k, double e)
    : nn::Module("Bottleneck"), add(shortcut && c1 == c2) {
  auto c_ = static_cast<int64_t>(static_cast<double>(c2) * e);
  cv1 = register_module("cv1", std::make_shared<Conv>(c1, c_, k[0], 1));
  cv2 = register_module("cv2", std::make_shared<Conv>(c_, c2, k[1], 1, g));
}

Tensor Bottleneck::forward(const Tensor& x) {
  Tensor y = cv2->forward(cv1->forward(x));
  return add ? x + y : y;
}

C3k::C3k(int64_t c1, int64_t c2, int64_t n, bool shortcut, int64_t g, double e, int64_t k) : nn::Module("C3k") {
  auto c_ = static_cast<int64_t>(static_cast<double>(c2) * e);
  cv1 = register_module("cv1", std::make_shared<Conv>(c1, c_, 1, 1));
  cv2 = register_module("cv2", std::make_shared<Conv>(c1, c_, 1, 1));
  cv3 = register_module("cv3", std::make_shared<Conv>(2 * c_, c2, 1));
  m = register_module("m", std::make_shared<nn::Sequential>());
  for (int64_t i = 0; i < n; ++i) m->append(std::make_shared<Bottleneck>(c_, c_, shortcut, g, nn::IntPair{k, k}, 1.0));
}

Tensor C3k::forward(const Tensor& x) { return cv3->forward(cat({m->forward(cv1->forward(x)), cv2->forward(x)}, 1)); }

C3k2::C3k2(int64_t c1, int64_t c2, int64_t n, bool c3k, double e, int64_t g, bool shortcut)
    : nn::Module("C3k2"), c(static_cast<int64_t>(static_cast<double>(c2) * e)) {
  cv1 = register_module("cv1", std::make_shared<Conv>(c1, 2 * c, 1, 1));
  cv2 = register_module("cv2", std::make_shared<Conv>((2 + n) * c, c2, 1));
  m = register_module("m", std::make_shared<nn::ModuleList>());
  for (int64_t i = 0; i < n; ++i) {
    if (c3k)
      m->append(std::make_shared<C3k>(c, c, 2, shortcut, g));
    else
      m->append(std::make_shared<Bottleneck>(c, c, shortcut, g));
  }
}

Tensor C3k2::forward(const Tensor& x) {
  std::vector<Tensor> y = chunk(cv1->forward(x), 2, 1);
  for (int64_t i = 0; i < m->size(); ++i) y.push_back((*m)[i]->forward(y.back()));
  return cv2->forward(cat(y, 1));
}

// ---- SPPF ----

SPPF::SPPF(int64_t c1, int64_t c2, int64_t k) : nn::Module("SPPF") {
  int64_t c_ = c1 / 2;
  cv1 = register_module("cv1", std::make_shared<Conv>(c1, c_, 1, 1));
  cv2 = register_module("cv2", std::make_shared<Conv>(c_ * 4, c2, 1, 1));
  m = register_module("m", std::make_shared<nn::MaxPool2d>(k, nn::PoolSize(1), k / 2));
}

Tensor SPPF::forward(const Tensor& x) {
  std::vector<Tensor> y{cv1->forward(x)};
  for (int i = 0; i < 3; ++i) y.push_back(m->forward(y.back()));
  return cv2->forward(cat(y, 1));
}

// ---- Attention / PSABlock / C2PSA ----

Attention::Attention(int64_t dim, int64_t num_heads, double attn_ratio)
    : nn::Module("Attention"), num_heads(num_heads), head_dim(dim / num_heads) {
  ADEPT_CHECK(num_heads > 0 && dim % num_heads == 0, ValueError,
              "Attention: dim ({}) must be a positive multiple of num_heads ({})", dim, num_heads);
  key_dim = static_cast<int64_t>(static_cast<double>(head_dim) * attn_ratio);
  scale = 1.0 / std::sqrt(static_cast<double>(key_dim));
  qkv = register_module("qkv", std::make_shared<Conv>(dim, dim + 2 * key_dim * num_heads, 1, 1, 1, 1, false));
  proj = register_module("proj", std::make_shared<Conv>(dim, dim, 1, 1, 1, 1, false));
  pe = register_module("pe", std::make_shared<Conv>(dim, dim, 3, 1, dim, 1, false));
}

Tensor Attention::forward(const Tensor& x) {
  ADEPT_CHECK(x.dim() == 4, ShapeError, "Attention: expected a (B, C, H, W) input, got {} dims", x.dim());
  const int64_t B = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3), N = H * W;
  std::vector<Tensor> qkv_parts =
      split(qkv->forward(x).view({B, num_heads, 2 * key_dim + head_dim, N}), Shape{key_dim, key_dim, head_dim}, 2);
  const Tensor &q = qkv_parts[0], &k = qkv_parts[1], &v = qkv_parts[2];
  Tensor attn = softmax(matmul(q.transpose(-2, -1), k) * scale, -1);  // (B, heads, N, N)
  Tensor out = matmul(v, attn.transpose(-2, -1)).reshape({B, C, H, W});
  return proj->forward(out + pe->forward(v.reshape({B, C, H, W})));
}

PSABlock::PSABlock(int64_t c, double attn_ratio, int64_t num_heads, bool shortcut)
    : nn::Module("PSABlock"), add(shortcut) {
  attn = register_module("attn", std::make_shared<Attention>(c, num_heads, attn_ratio));
  ffn = register_module("ffn", std::make_shared<nn::Sequential>(std::vector<nn::ModulePtr>{
                                   std::make_shared<Conv>(c, 2 * c, 1),
                                   std::make_shared<Conv>(2 * c, c, 1, 1, 1, 1, /*act=*/false)}));
}

Tensor PSABlock::forward(const Tensor& x) {
  Tensor y = add ? x + attn->forward(x) : attn->forward(x);
  return add ? y + ffn->forward(y) : ffn->forward(y);
}

C2PSA::C2PSA(int64_t c1, int64_t c2, int64_t n, double e)
    : nn::Module("C2PSA"), c(static_cast<int64_t>(static_cast<double>(c1) * e)) {
  ADEPT_CHECK(c1 == c2, ValueError, "C2PSA: c2 ({}) must equal c1 ({})", c2, c1);
  cv1 = register_module("cv1", std::make_shared<Conv>(c1, 2 * c, 1, 1));
  cv2 = register_module("cv2", std::make_shared<Conv>(2 * c, c1, 1));
  m = register_module("m", std::make_shared<nn::Sequential>());
  for (int64_t i = 0; i < n; ++i) m->append(std::make_shared<PSABlock>(c, 0.5, c / 64));
}

Tensor C2PSA::forward(const Tensor& x) {
  std::vector<Tensor> ab = split(cv1->forward(x), Shape{c, c}, 1);
  return cv2->forward(cat({ab[0], m->forward(ab[1])}, 1));
}

// ---- Concat ----

Concat::Concat(int64_t dimension) : nn::Module("Concat"), d(dimension) {}

Tensor Concat::forward(const std::vector<Tensor>& xs) { return cat(xs, d); }

// ---- DFL ----

DFL::DFL(int64_t c1) : nn::Module("DFL"), c1(c1) {
  auto c = std::make_shared<nn::Conv2d>(c1, 1, 1, 1, 0, 1, 1, /*bias=*/false);
  c->register_parameter("weight", arange(c1, kFloat32).view({1, c1, 1, 1}), /*requires_grad=*/false);
  conv = register_module("conv", c);
}

Tensor DFL::forward(const Tensor& x) {
  ADEPT_CHECK(x.dim() == 3 && x.size(1) == 4 * c1, ShapeError, "DFL: expected a (B, {}, A) input, got {}", 4 * c1,
              shape_str(x.sizes()));
  const int64_t B = x.size(0), A = x.size(2);
  Tensor p = softmax(x.reshape({B, 4, c1, A}).transpose(2, 1), 1);  // (B, c1, 4, A)
  return conv->forward(p).view({B, 4, A});
}

// ---- Detect ----

Detect::Detect(int64_t nc, const std::vector<int64_t>& ch, int64_t reg_max)
    : nn::Module("Detect"), nc(nc), nl(static_cast<int64_t>(ch.size())), reg_max(reg_max), no(nc + 4 * reg_max) {
  ADEPT_CHECK(nc > 0 && !ch.empty(), ValueError, "Detect: needs nc > 0 and at least one level, got nc={}, {} levels",
              nc, ch.size());
  const int64_t c2 = std::max({int64_t{16}, ch[0] / 4, 4 * reg_max});
  const int64_t c3 = std::max(ch[0], std::min(nc, int64_t{100}));
  cv2 = register_module("cv2", std::make_shared<nn::ModuleList>());
  cv3 = register_module("cv3", std::make_shared<nn::ModuleList>());
  using Seq = nn::Sequential;
  using Mods = std::vector<nn::ModulePtr>;
  for (int64_t x : ch) {
    cv2->append(std::make_shared<Seq>(Mods{std::make_shared<Conv>(x, c2, 3), std::make_shared<Conv>(c2, c2, 3),
                                           std::make_shared<nn::Conv2d>(c2, 4 * reg_max, 1)}));
    cv3->append(std::make_shared<Seq>(
        Mods{std::make_shared<Seq>(Mods{std::make_shared<DWConv>(x, x, 3), std::make_shared<Conv>(x, c3, 1)}),
             std::make_shared<Seq>(Mods{std::make_shared<DWConv>(c3, c3, 3), std::make_shared<Conv>(c3, c3, 1)}),
             std::make_shared<nn::Conv2d>(c3, nc, 1)}));
  }
  dfl = register_module("dfl", std::make_shared<DFL>(reg_max));
}

std::vector<Tensor> Detect::forward_maps(const std::vector<Tensor>& xs) {
  ADEPT_CHECK(static_cast<int64_t>(xs.size()) == nl, ValueError, "Detect: expected {} feature maps, got {}", nl,
              xs.size());
  std::vector<Tensor> out;
  for (int64_t i = 0; i < nl; ++i) out.push_back(cat({(*cv2)[i]->forward(xs[i]), (*cv3)[i]->forward(xs[i])}, 1));
  return out;
}

std::pair<Tensor, Tensor> make_anchors(const std::vector<std::pair<int64_t, int64_t>>& sizes,
                                       const std::vector<double>& strides, Dtype dtype, double offset) {
  ADEPT_CHECK(sizes.size() == strides.size(), ValueError, "make_anchors: {} sizes but {} strides", sizes.size(),
              strides.size());
  std::vector<Tensor> points, stride_list;
  for (size_t i = 0; i < sizes.size(); ++i) {
    auto [h, w] = sizes[i];
    Tensor sx = arange(w, dtype) + offset, sy = arange(h, dtype) + offset;
    std::vector<Tensor> grid = meshgrid({sy, sx}, "ij");
    points.push_back(stack({grid[1], grid[0]}, -1).reshape({h * w, 2}));
    stride_list.push_back(full({h * w, 1}, strides[i], dtype));
  }
  return {cat(points, 0), cat(stride_list, 0)};
}

Tensor Detect::decode(const std::vector<Tensor>& maps) {
  ADEPT_CHECK(static_cast<int64_t>(maps.size()) == nl && static_cast<int64_t>(stride.size()) == nl, ValueError,
              "Detect.decode: expected {} maps and strides, got {} maps, {} strides", nl, maps.size(), stride.size());
  const int64_t B = maps[0].size(0);
  std::vector<Tensor> flat;
  std::vector<std::pair<int64_t, int64_t>> sizes;
  for (const Tensor& m : maps) {
    flat.push_back(m.reshape({B, no, m.size(2) * m.size(3)}));
    sizes.emplace_back(m.size(2), m.size(3));
  }
  auto [anchor_cpu, stride_cpu] = make_anchors(sizes, stride, maps[0].dtype());
  const Tensor anchors = anchor_cpu.to(maps[0].device()), strides = stride_cpu.to(maps[0].device());
  std::vector<Tensor> parts = split(cat(flat, 2), Shape{4 * reg_max, nc}, 1);
  Tensor dist = dfl->forward(parts[0]);                    // (B, 4, A): l, t, r, b in grid units
  Tensor anc = anchors.transpose(0, 1).unsqueeze(0);       // (1, 2, A)
  Tensor x1y1 = anc - dist.narrow(1, 0, 2), x2y2 = anc + dist.narrow(1, 2, 2);
  Tensor box = cat({(x1y1 + x2y2) / 2, x2y2 - x1y1}, 1) * strides.transpose(0, 1);  // xywh, pixels
  return cat({box, sigmoid(parts[1])}, 1);
}

std::vector<Tensor> Detect::forward(const std::vector<Tensor>& xs) {
  std::vector<Tensor> maps = forward_maps(xs);
  if (is_training()) return maps;
  return {decode(maps)};
}

void Detect::bias_init() {
  ADEPT_CHECK(static_cast<int64_t>(stride.size()) == nl, ValueError, "Detect.bias_init: strides are not set");
  NoGradGuard ng;
  for (int64_t i = 0; i < nl; ++i) {
    auto box = std::dynamic_pointer_cast<nn::Sequential>((*cv2)[i]);
    auto cls = std::dynamic_pointer_cast<nn::Sequential>((*cv3)[i]);
    (*box)[-1]->parameter("bias").fill_(1.0);
    const double cells = (640.0 / stride[i]) * (640.0 / stride[i]);
    (*cls)[-1]->parameter("bias").fill_(std::log(5.0 / static_cast<double>(nc) / cells));
  }
}

}  // namespace adept::models::yolo
