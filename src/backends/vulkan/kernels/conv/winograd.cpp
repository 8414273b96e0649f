// Winograd F(m x m, 3x3) conv2d, m = 2 or 4 (Lavin & Gray 2016, "Fast Algorithms for Convolutional
// Neural Networks"; F(4x4) on the interpolation points 0, +-1, +-2): the weight transform U = G g G^T,
// the input transform V = B^T d B of every (m + 2) x (m + 2) input tile, (m + 2)^2 * groups GEMMs
// M = U V over the channels of a group on bmm_kernel, and the output transform A^T M A (+ bias, SiLU)
// writing y (shaders/conv_winograd.comp). 2.25x (m = 2) or 4x (m = 4) fewer multiplies than direct 3x3 in
// the GEMMs, which dominate from about 16 channels on. U, V and M are float32 for half inputs (float64 for
// float64); the batch is processed in chunks whose V and M stay under kChunkBytes. Deterministic: every
// sum has one fixed order.
#include <algorithm>

#include "backends/vulkan/kernels/conv/conv.h"
#include "backends/vulkan/launch.h"
#include "kernels/linalg.h"
#include "kernels/tensor_view.h"

namespace adept::vk::conv {
namespace {

// V and M of one chunk of the batch stay under this size (a few samples of a large layer).
constexpr int64_t kChunkBytes = 64ll << 20;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

enum class Mode { Input = 0, Weight = 1, Output = 2 };

struct Plan {
  const ConvGeometry& g;
  int m;
  int64_t tH, tW;
  std::string name(Mode mode, Dtype out, Dtype in) const {
    static const char* kModes[] = {"in", "weight", "out"};
    return fmt::format("conv_wino{}_{}_{}_{}", m, kModes[static_cast<int>(mode)], dtype_suffix(out), dtype_suffix(in));
  }
};

// One transform dispatch (one invocation per count) with the shader's metadata.
void transform(const Plan& pl, Mode mode, const Tensor& out, const Tensor& in, const Tensor& bias, int64_t out_offset,
               int64_t in_offset, int64_t count, int64_t P, int flags, const char* op) {
  if (count == 0) return;
  const ConvGeometry& g = pl.g;
  const Tensor& bias_or_dummy = bias.defined() ? bias : out;
  const std::vector<int64_t> meta = {g.H,    g.W,    g.H_out,     g.W_out,    g.pad_h,   g.pad_w,
                                     pl.tH,  pl.tW,  g.C_in,      g.C_out,    g.cin_g(), g.cout_g(),
                                     out_offset, in_offset, bias_or_dummy.storage_offset(), flags, count, P};
  const Grid2d grid = grid_for(count, op);
  const uint32_t unused = 0;
  launch(context_of(out), op, pl.name(mode, out.dtype(), in.dtype()), {}, std::vector<int32_t>(meta.begin(), meta.end()),
         {&out, &in, &bias_or_dummy}, &unused, sizeof(unused), grid.x, grid.y);
}

// y = conv(x, w) + bias (then SiLU when g.silu); flip: w is the forward kernel of the convolution whose
// input gradient this is (read flipped and with its channels swapped, see the shader).
void run(const Tensor& y, const Tensor& x, const Tensor& w, const Tensor& bias, const ConvGeometry& g, int m, bool flip,
         const char* op) {
  if (y.numel() == 0) return;
  for (const Tensor* t : {&y, &x, &w}) check_index_range(*t, op);
  const Plan pl{g, m, ceil_div(g.H_out, m), ceil_div(g.W_out, m)};
  const int64_t E = (m + 2) * (m + 2), cig = g.cin_g(), cog = g.cout_g(), tiles = pl.tH * pl.tW;
  const Dtype acc = y.dtype() == kFloat64 ? kFloat64 : kFloat32;
  const Device dev = y.device();

  const Tensor U = kernel_buffer({E, g.C_out, cig}, acc, dev);
  check_index_range(U, op);
  transform(pl, Mode::Weight, U, w, Tensor(), U.storage_offset(), w.storage_offset(), g.C_out * cig, 0, flip ? 4 : 0, op);

  const int64_t per_sample = E * std::max(g.C_in, g.C_out) * tiles * static_cast<int64_t>(element_size(acc));
  const int64_t chunk = std::clamp<int64_t>(kChunkBytes / std::max<int64_t>(1, per_sample), 1, g.N);
  const int flags = (bias.defined() ? 1 : 0) | (g.silu ? 2 : 0);
  for (int64_t n0 = 0; n0 < g.N; n0 += chunk) {
    const int64_t nb = std::min(chunk, g.N - n0), P = nb * tiles;
    const Tensor V = kernel_buffer({E, g.C_in, P}, acc, dev), M = kernel_buffer({E, g.C_out, P}, acc, dev);
    for (const Tensor* t : {&V, &M}) check_index_range(*t, op);
    transform(pl, Mode::Input, V, x, Tensor(), V.storage_offset(), x.storage_offset() + n0 * g.C_in * g.H * g.W,
              g.C_in * P, P, 0, op);
    // (E * groups) GEMMs (cog x cig) @ (cig x P), in dispatches of at most 65535 products.
    const int64_t B = E * g.groups;
    const Tensor Ub = restrided(U, {B, cog, cig}, {cog * cig, cig, 1}, U.storage_offset());
    const Tensor Vb = restrided(V, {B, cig, P}, {cig * P, P, 1}, V.storage_offset());
    const Tensor Mb = restrided(M, {B, cog, P}, {cog * P, P, 1}, M.storage_offset());
    for (int64_t b0 = 0; b0 < B; b0 += 65535) {
      const int64_t len = std::min<int64_t>(65535, B - b0);
      bmm_kernel().get(dev, op)(narrow_view(Mb, 0, b0, len), narrow_view(Ub, 0, b0, len), narrow_view(Vb, 0, b0, len));
    }
    transform(pl, Mode::Output, y, M, bias, y.storage_offset() + n0 * g.C_out * g.H_out * g.W_out,
              M.storage_offset(), g.C_out * P, P, flags, op);
  }
}

}  // namespace

void winograd_forward(const Tensor& y, const Tensor& x, const Tensor& w, const Tensor& bias, const ConvGeometry& g,
                      int m) {
  run(y, x, w, bias, g, m, false, "conv2d");
}

void winograd_backward_input(const Tensor& gx, const Tensor& gy, const Tensor& w, const ConvGeometry& g, int m) {
  // gx = conv(gy, w flipped, channels swapped) with padding 2 - pad: the forward of the transposed geometry.
  ConvGeometry t = g;
  t.C_in = g.C_out;
  t.H = g.H_out;
  t.W = g.W_out;
  t.C_out = g.C_in;
  t.H_out = g.H;
  t.W_out = g.W;
  t.pad_h = 2 - g.pad_h;
  t.pad_w = 2 - g.pad_w;
  t.silu = false;
  run(gx, gy, w, Tensor(), t, m, true, "conv2d_backward_input");
}

}  // namespace adept::vk::conv
