// conv2d's forward, input-gradient and weight-gradient kernels as implicit GEMMs
// (shaders/conv_implicit_gemm.comp). Long K sums are split (split-K) into partial sums in the
// accumulation dtype, added in a fixed order by the reduce kernel: for occupancy (the weight gradient's K
// is N * H_out * W_out while its output is small) and for drivers with a loop limit (llvmpipe).
#include <algorithm>

#include "backends/vulkan/kernels/conv/conv.h"
#include "backends/vulkan/launch.h"
#include "kernels/pointwise.h"
#include "kernels/reduce.h"
#include "kernels/tensor_view.h"

namespace adept::vk::conv {
namespace {

enum class Mode { Forward = 0, Input = 1, Weight = 2 };

constexpr int64_t kTileK = 16;

// The shader's tile (TM x TN): GEMMs of few rows (few channels, common in small detectors) take a
// flatter tile so that fewer of its rows idle, where its shared memory (16 x (TM + 1) + 16 x TN
// accumulation-type words) fits the device's (float64's 16x256 tile needs 34,944 bytes: more than
// lavapipe's 32 KiB).
struct Tile {
  int64_t m, n;
};
Tile tile_for(int64_t M, int64_t acc_bytes, uint32_t max_shared) {
  for (const Tile t : {Tile{16, 256}, Tile{32, 128}}) {
    if (M <= t.m && kTileK * (t.m + 1 + t.n) * acc_bytes <= max_shared) return t;
  }
  return {64, 64};
}
// Split-K aims at about this many workgroups per dispatch (a few waves on a large GPU), never below
// kMinSlice K per workgroup.
constexpr int64_t kTargetGroups = 1024, kMinSlice = 512;

const char* shader_base(Mode m) {
  switch (m) {
    case Mode::Forward: return "conv_igemm_fwd";
    case Mode::Input: return "conv_igemm_bwd_input";
    case Mode::Weight: return "conv_igemm_bwd_weight";
  }
  return "";
}

// out (the mode's output) from sources a and b (see the shader) and optional bias.
void run(Mode mode, const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& bias, const ConvGeometry& g) {
  const char* op = mode == Mode::Forward ? "conv2d" : mode == Mode::Input ? "conv2d_backward_input" : "conv2d_backward_weight";
  for (const Tensor* t : {&out, &a, &b}) check_index_range(*t, op);
  const int64_t kHW = g.kH * g.kW;
  int64_t M = 0, Ngemm = 0, K = 0;
  switch (mode) {
    case Mode::Forward: M = g.cout_g(), Ngemm = g.N * g.H_out * g.W_out, K = g.cin_g() * kHW; break;
    case Mode::Input: M = g.cin_g(), Ngemm = g.N * g.H * g.W, K = g.cout_g() * kHW; break;
    case Mode::Weight: M = g.cout_g(), Ngemm = g.cin_g() * kHW, K = g.N * g.H_out * g.W_out; break;
  }
  // The input gradient of a strided convolution by stride classes (see the shader): the largest class
  // sizes the grid and the K splits; smaller classes skip the tiles and splits they lack.
  const bool parity = mode == Mode::Input && (g.stride_h > 1 || g.stride_w > 1) && g.dil_h == 1 && g.dil_w == 1;
  const int64_t classes = parity ? g.stride_h * g.stride_w : 1;
  if (parity) {
    auto up = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
    Ngemm = g.N * up(g.H, g.stride_h) * up(g.W, g.stride_w);
    K = g.cout_g() * up(g.kH, g.stride_h) * up(g.kW, g.stride_w);
  }
  Context& ctx = context_of(out);
  const Tile tile = tile_for(M, out.dtype() == kFloat64 ? 8 : 4, ctx.info().max_shared_memory);
  const int64_t m_tiles = (M + tile.m - 1) / tile.m, n_tiles = (Ngemm + tile.n - 1) / tile.n;
  // K per split: enough workgroups to fill the device, within the driver's loop budget (matmul's rule).
  int64_t splits = std::clamp<int64_t>(kTargetGroups / std::max<int64_t>(1, m_tiles * n_tiles * g.groups * classes), 1,
                                       std::max<int64_t>(1, K / kMinSlice));
  const uint32_t limit = ctx.info().loop_iteration_limit;
  if (limit) splits = std::max<int64_t>(splits, (K + limit / 4 - 1) / (limit / 4));
  int64_t slice = (K + splits - 1) / splits;
  slice = (slice + kTileK - 1) / kTileK * kTileK;
  splits = (K + slice - 1) / slice;
  const int64_t z = classes * g.groups * splits * m_tiles;
  ADEPT_CHECK(z <= 65535, ValueError,
              "{}: {} stride classes x {} groups x {} K splits x {} row tiles are too many for one Vulkan dispatch", op,
              classes, g.groups, splits, m_tiles);

  // Split sums go to a partial buffer in the accumulation dtype; half inputs always (the f32 variants).
  const bool half = out.dtype() == kFloat16 || out.dtype() == kBFloat16;
  const bool raw = splits > 1 || half;
  const Dtype acc_dtype = out.dtype() == kFloat64 ? kFloat64 : kFloat32;
  const Tensor target = raw ? kernel_buffer({splits, out.numel()}, acc_dtype, out.device()) : out;
  const std::string suffix = dtype_suffix(out.dtype());
  const std::string shader = std::string(shader_base(mode)) + "_" + (raw ? dtype_suffix(acc_dtype) : suffix) + "_" + suffix;

  const Tensor& bias_or_dummy = bias.defined() ? bias : a;
  std::vector<int64_t> meta64 = {g.N,        g.C_in,     g.H,      g.W,     g.C_out,  g.kH,     g.kW,
                                 g.H_out,    g.W_out,    g.stride_h, g.stride_w, g.pad_h, g.pad_w, g.dil_h,
                                 g.dil_w,    g.cin_g(),  g.cout_g(), target.storage_offset(), a.storage_offset(),
                                 b.storage_offset(), bias_or_dummy.storage_offset(), g.groups};
  const bool epilogue = mode == Mode::Forward && !raw;
  struct Push {
    uint32_t M, Ngemm, K, k_slice, splits, m_tiles, flags, out_numel;
  } push{static_cast<uint32_t>(M), static_cast<uint32_t>(Ngemm), static_cast<uint32_t>(K), static_cast<uint32_t>(slice),
         static_cast<uint32_t>(splits), static_cast<uint32_t>(m_tiles),
         (epilogue && bias.defined() ? 1u : 0u) | (epilogue && g.silu ? 2u : 0u) | (raw ? 4u : 0u),
         static_cast<uint32_t>(out.numel())};
  static_assert(sizeof(Push) == 32);
  const Grid2d grid = grid_2d(n_tiles);
  const std::vector<int32_t> spec = {static_cast<int32_t>(g.kH), static_cast<int32_t>(g.kW), parity ? 1 : 0,
                                     static_cast<int32_t>(tile.m), static_cast<int32_t>(tile.n)};
  launch(ctx, op, shader, spec, std::vector<int32_t>(meta64.begin(), meta64.end()), {&target, &a, &b, &bias_or_dummy},
         &push, sizeof(push), grid.x, grid.y, static_cast<uint32_t>(z));
  if (!raw) return;

  // Sum the splits in order, convert to out's dtype, then the forward's epilogue.
  sum_splits(out, target, op);
  if (mode != Mode::Forward) return;
  const Device dev = out.device();
  if (bias.defined()) {
    binary_kernel().get(dev, op)(BinaryOp::Add, out, out, restrided(bias, out.sizes(), {0, 1, 0, 0}, bias.storage_offset()));
  }
  if (g.silu) unary_kernel().get(dev, op)(UnaryOp::Silu, out, out, UnaryParams{});
}

}  // namespace

void sum_splits(const Tensor& out, const Tensor& partials, const char* op) {
  const Device dev = out.device();
  Tensor sum = partials;
  if (partials.size(0) > 1) {
    sum = kernel_buffer({1, out.numel()}, partials.dtype(), dev);
    reduce_kernel().get(dev, op)(ReduceOp::Sum, sum, partials, 1);
  }
  const Tensor flat = restrided(out, {1, out.numel()}, {out.numel(), 1}, out.storage_offset());
  copy_kernel().get(dev, op)(flat, sum);
}

void implicit_gemm_forward(const Tensor& y, const Tensor& x, const Tensor& w, const Tensor& bias, const ConvGeometry& g) {
  run(Mode::Forward, y, w, x, bias, g);
}
void implicit_gemm_backward_input(const Tensor& gx, const Tensor& gy, const Tensor& w, const ConvGeometry& g) {
  run(Mode::Input, gx, w, gy, Tensor(), g);
}
void implicit_gemm_backward_weight(const Tensor& gw, const Tensor& x, const Tensor& gy, const ConvGeometry& g) {
  run(Mode::Weight, gw, gy, x, Tensor(), g);
}

}  // namespace adept::vk::conv
