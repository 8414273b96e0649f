// The building blocks of YOLO11 (Conv, DWConv, Bottleneck, C3k, C3k2, SPPF, Attention, PSABlock,
// C2PSA, Concat, DFL, Detect), with the submodule names of Ultralytics' checkpoints.
#pragma once
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "adept/nn/module.h"
#include "adept/nn/modules/container.h"
#include "adept/nn/options.h"

// Every block follows ../shared/docs/yolo11.md section 2 (the YOLO11 facts sheet, Ultralytics
// 8.3.x). Shapes are NCHW; a block maps (B, c1, H, W) -> (B, c2, H', W') with H' = H except for a
// strided Conv. Errors of wrong channel counts come from the inner Conv2d / BatchNorm2d.
namespace adept::models::yolo {

/// Conv2d (no bias, padding k // 2 scaled by dilation) -> BatchNorm2d(eps 1e-3, momentum 0.03) ->
/// SiLU (act=true) or Identity. Children: conv, bn, act. (B, c1, H, W) -> (B, c2, H/s, W/s).
class Conv : public nn::Module {
 public:
  Conv(int64_t c1, int64_t c2, int64_t k = 1, int64_t s = 1, int64_t g = 1, int64_t d = 1, bool act = true);
  Tensor forward(const Tensor& x) override;
  /// The children, looked up by name so that a replacement (convert_sync_batchnorm's SyncBatchNorm, a user's
  /// `model.conv.act = nn.ReLU()`) is what runs and what is exported.
  std::shared_ptr<nn::Module> conv() const { return child("conv"); }
  std::shared_ptr<nn::Module> bn() const { return child("bn"); }
  std::shared_ptr<nn::Module> act() const { return child("act"); }

 protected:
  Conv(const char* type_name, int64_t c1, int64_t c2, int64_t k, int64_t s, int64_t g, int64_t d, bool act);
};

/// A Conv with groups = gcd(c1, c2) (depthwise when c1 = c2).
class DWConv : public Conv {
 public:
  DWConv(int64_t c1, int64_t c2, int64_t k = 1, int64_t s = 1, bool act = true);
};

/// cv1 = Conv(c1 -> int(c2 e), k1), cv2 = Conv(-> c2, k2); adds the input when shortcut and c1 == c2.
class Bottleneck : public nn::Module {
 public:
  Bottleneck(int64_t c1, int64_t c2, bool shortcut = true, int64_t g = 1, nn::IntPair k = {3, 3}, double e = 0.5);
  Tensor forward(const Tensor& x) override;
  std::shared_ptr<Conv> cv1, cv2;
  bool add;
};

/// C3 with n Bottleneck(c_, c_, k=(k, k), e=1) in m (a Sequential), c_ = int(c2 e):
/// cv3(cat[m(cv1(x)), cv2(x)]).
class C3k : public nn::Module {
 public:
  C3k(int64_t c1, int64_t c2, int64_t n = 2, bool shortcut = true, int64_t g = 1, double e = 0.5, int64_t k = 3);
  Tensor forward(const Tensor& x) override;
  std::shared_ptr<Conv> cv1, cv2, cv3;
  std::shared_ptr<nn::Sequential> m;
};

/// The C2f skeleton with hidden c = int(c2 e): cv1 (c1 -> 2c) split in halves, each of the n
/// inner modules (m, a ModuleList: C3k(c, c, 2) when c3k, else Bottleneck(c, c, e=0.5)) applied to
/// the last chunk, cv2 ((2 + n) c -> c2) over the concatenation of all chunks.
class C3k2 : public nn::Module {
 public:
  C3k2(int64_t c1, int64_t c2, int64_t n = 1, bool c3k = false, double e = 0.5, int64_t g = 1, bool shortcut = true);
  Tensor forward(const Tensor& x) override;
  int64_t c;
  std::shared_ptr<Conv> cv1, cv2;
  std::shared_ptr<nn::ModuleList> m;
};

/// Spatial pyramid pooling, fast: cv1 (c1 -> c1/2), three chained MaxPool2d(k, 1, k/2) in m,
/// cv2 over cat[x', y1, y2, y3] (2 c1 -> c2).
class SPPF : public nn::Module {
 public:
  SPPF(int64_t c1, int64_t c2, int64_t k = 5);
  Tensor forward(const Tensor& x) override;
  std::shared_ptr<Conv> cv1, cv2;
  std::shared_ptr<nn::Module> m;
};

/// Multi-head self-attention over the H W positions (sheet 2.8): qkv (1x1, dim -> dim + 2 key_dim
/// heads), proj (1x1), pe (3x3 depthwise on v), all without activation.
/// head_dim = dim / num_heads, key_dim = int(head_dim attn_ratio), scale = key_dim^-0.5.
class Attention : public nn::Module {
 public:
  Attention(int64_t dim, int64_t num_heads = 8, double attn_ratio = 0.5);
  Tensor forward(const Tensor& x) override;
  int64_t num_heads, head_dim, key_dim;
  double scale;
  std::shared_ptr<Conv> qkv, proj, pe;
};

/// x + attn(x), then x + ffn(x) with ffn = Sequential(Conv(c -> 2c), Conv(2c -> c, act=false));
/// the residuals are applied when shortcut (add).
class PSABlock : public nn::Module {
 public:
  PSABlock(int64_t c, double attn_ratio = 0.5, int64_t num_heads = 4, bool shortcut = true);
  Tensor forward(const Tensor& x) override;
  std::shared_ptr<Attention> attn;
  std::shared_ptr<nn::Sequential> ffn;
  bool add;
};

/// c = int(c1 e); cv1 (c1 -> 2c) split into a, b; b through n PSABlock(c, heads c / 64) in m;
/// cv2 (2c -> c1) over cat[a, b]. ValueError when c2 != c1.
class C2PSA : public nn::Module {
 public:
  C2PSA(int64_t c1, int64_t c2, int64_t n = 1, double e = 0.5);
  Tensor forward(const Tensor& x) override;
  int64_t c;
  std::shared_ptr<Conv> cv1, cv2;
  std::shared_ptr<nn::Sequential> m;
};

/// Concatenation of several inputs along `dimension` (channels by default).
class Concat : public nn::Module {
 public:
  explicit Concat(int64_t dimension = 1);
  using nn::Module::forward;
  Tensor forward(const std::vector<Tensor>& xs);
  int64_t d;
};

/// Distribution focal loss integral (Li et al., 2020, "Generalized Focal Loss"): softmax over the
/// c1 bins of each of the 4 sides, then the expectation sum_i i p_i through a frozen 1x1 conv whose
/// weight is [0, 1, ..., c1 - 1] (requires_grad false). (B, 4 c1, A) -> (B, 4, A).
class DFL : public nn::Module {
 public:
  explicit DFL(int64_t c1 = 16);
  Tensor forward(const Tensor& x) override;
  int64_t c1;
  std::shared_ptr<nn::Module> conv;
};

/// The YOLO11 detection head (sheet 2.12) over nl levels with input channels ch. Per level i:
/// cv2[i] = Conv(ch_i -> c2, 3), Conv(c2 -> c2, 3), Conv2d(c2 -> 4 reg_max, 1) (box distributions);
/// cv3[i] = [DWConv(ch_i, 3), Conv(ch_i -> c3, 1)], [DWConv(c3, 3), Conv(c3 -> c3, 1)],
/// Conv2d(c3 -> nc, 1) (class logits), c2 = max(16, ch_0 / 4, 4 reg_max), c3 = max(ch_0, min(nc, 100)).
class Detect : public nn::Module {
 public:
  Detect(int64_t nc, const std::vector<int64_t>& ch, int64_t reg_max = 16);
  using nn::Module::forward;
  /// The raw maps: level i (B, ch_i, H_i, W_i) -> (B, 4 reg_max + nc, H_i, W_i) = cat[box, cls].
  /// ValueError when the number of inputs is not nl.
  std::vector<Tensor> forward_maps(const std::vector<Tensor>& xs);
  /// Decodes raw maps (as forward_maps returns) into (B, 4 + nc, A): [cx, cy, w, h] in input
  /// pixels (DFL distances around the anchor points, dist2bbox, times the stride) followed by
  /// sigmoid class scores; A = sum_i H_i W_i, anchors ordered level, row, column. Needs `stride`.
  Tensor decode(const std::vector<Tensor>& maps);
  /// Training mode: forward_maps; evaluation mode: {decode(forward_maps(xs))}.
  std::vector<Tensor> forward(const std::vector<Tensor>& xs);
  /// Sets the final box conv biases to 1.0 and the class ones to ln(5 / nc / (640 / stride_i)^2)
  /// (needs `stride`).
  void bias_init();
  int64_t nc, nl, reg_max, no;
  /// Stride of each level in input pixels (set by the model that owns the head).
  std::vector<double> stride;
  std::shared_ptr<nn::ModuleList> cv2, cv3;
  std::shared_ptr<DFL> dfl;
};

/// Anchor points (A, 2) = (x + offset, y + offset) in grid units and strides (A, 1), over levels of
/// the given (H_i, W_i) sizes in order, rows outer, columns inner (Ultralytics' make_anchors).
std::pair<Tensor, Tensor> make_anchors(const std::vector<std::pair<int64_t, int64_t>>& sizes,
                                       const std::vector<double>& strides, Dtype dtype, double offset = 0.5);

}  // namespace adept::models::yolo
