// Cases of include/adept/nn/functional/*.h: activations, linear, conv2d / conv_transpose2d,
// pooling, normalization, interpolate, dropout and the losses.
#include <array>

#include "harness.h"

namespace adept::backend_ops {
namespace {

namespace F = adept::nn::functional;
using Fn = std::function<Tensors(const Tensors&)>;

void add(std::vector<Case>& out, const std::string& op, const std::string& variant, std::vector<Input> inputs, Fn f,
         Dtypes d = kFloat) {
  out.push_back(make_case(op, variant, std::move(inputs), std::move(f), std::move(d)));
}

Tensors one(Tensor t) { return {std::move(t)}; }

void activations(std::vector<Case>& out) {
  const std::vector<std::pair<const char*, UnaryFn>> ops = {
      {"hardtanh", [](const Tensor& x) { return F::hardtanh(x, -0.5, 1.0); }},
      {"relu6", [](const Tensor& x) { return F::relu6(x); }},
      {"hardsigmoid", [](const Tensor& x) { return F::hardsigmoid(x); }},
      {"hardswish", [](const Tensor& x) { return F::hardswish(x); }},
      {"elu", [](const Tensor& x) { return F::elu(x, 0.7); }},
      {"mish", [](const Tensor& x) { return F::mish(x); }}};
  for (const auto& [name, f] : ops) {
    Case c = unary_proto(name, "", f, kFloat, Gen::Large);
    c.with_device_tol(10);
    add_family(out, c, unary_shapes());
  }
}

// 2 N C_out H_out W_out (C_in / groups) kH kW of a conv2d with weight (C_out, C_in/groups, kH, kW).
double conv_flops(const std::vector<Shape>& s, int64_t stride, int64_t pad) {
  const Shape &x = s[0], &w = s[1];
  const double ho = static_cast<double>((x[2] + 2 * pad - w[2]) / stride + 1);
  const double wo = static_cast<double>((x[3] + 2 * pad - w[3]) / stride + 1);
  return 2.0 * static_cast<double>(x[0] * w[0] * w[1] * w[2] * w[3]) * ho * wo;
}

void linear_conv(std::vector<Case>& out) {
  add(out, "linear", "", {in({4, 6}), in({3, 6}), in({3})}, [](const Tensors& x) { return one(F::linear(x[0], x[1], x[2])); });
  add(out, "linear", "no_bias_3d", {in({2, 3, 5}), in({4, 5})}, [](const Tensors& x) { return one(F::linear(x[0], x[1])); });
  add(out, "linear", "vector_weight", {in({3, 5}), in({5})}, [](const Tensors& x) { return one(F::linear(x[0], x[1])); });
  add(out, "linear", "large_k", {in({2, 4096}), in({3, 4096}), in({3})},
      [](const Tensors& x) { return one(F::linear(x[0], x[1], x[2])); });
  for (Case& c : out)
    if (c.op == "linear") c.with_device_tol(10);
  const auto conv = [&](const std::string& variant, Shape xs, Shape ws, bool bias, int64_t stride, int64_t pad,
                        int64_t dilation, int64_t groups) {
    std::vector<Input> inputs = {in(std::move(xs)), in(std::move(ws))};
    if (bias) inputs.push_back(in({inputs[1].shape[0]}));
    add(out, "conv2d", variant, std::move(inputs), [=](const Tensors& x) {
      return one(F::conv2d(x[0], x[1], bias ? x[2] : Tensor(), stride, pad, dilation, groups));
    });
  };
  conv("", {2, 3, 6, 5}, {4, 3, 3, 3}, true, 1, 1, 1, 1);
  conv("stride_dilation", {1, 2, 9, 8}, {3, 2, 3, 2}, false, 2, 2, 2, 1);
  conv("groups", {2, 4, 5, 5}, {6, 2, 3, 3}, true, 1, 0, 1, 2);
  conv("depthwise", {1, 3, 6, 6}, {6, 1, 3, 3}, true, 1, 1, 1, 3);
  conv("pointwise", {2, 5, 4, 4}, {3, 5, 1, 1}, false, 1, 0, 1, 1);
  conv("unbatched", {3, 5, 5}, {2, 3, 2, 2}, true, 1, 0, 1, 1);
  conv("empty_batch", {0, 3, 5, 5}, {2, 3, 3, 3}, true, 1, 1, 1, 1);
  out.back().no_gradcheck();
  add(out, "conv2d", "same", {in({1, 2, 5, 6}), in({3, 2, 4, 3}), in({3})},
      [](const Tensors& x) { return one(F::conv2d(x[0], x[1], x[2], 1, "same")); });
  add(out, "conv2d", "perf", {in({2, 3, 8, 8}), in({4, 3, 3, 3})},
      [](const Tensors& x) { return one(F::conv2d(x[0], x[1], {}, 1, 1)); });
  out.back().perf({{8, 64, 56, 56}, {64, 64, 3, 3}}).with_flops([](const std::vector<Shape>& s) { return conv_flops(s, 1, 1); });
  // Perf only (tiny test shapes): YOLO11n-like 3x3 stride-1 convolutions, batch x channels x side, which
  // the Vulkan rule's Winograd thresholds were measured on (see backends/vulkan/kernels/conv/dispatch.cpp).
  for (const auto& [n, c, side] : std::vector<std::array<int64_t, 3>>{
           {2, 16, 80}, {2, 16, 20}, {2, 32, 80}, {2, 64, 40}, {8, 64, 80}, {2, 64, 20}, {4, 128, 40}, {2, 128, 20},
           {2, 256, 20}, {8, 256, 20}}) {
    add(out, "conv2d", fmt::format("perf_3x3_b{}_c{}_{}", n, c, side), {in({1, 2, 4, 4}), in({2, 2, 3, 3}), in({2})},
        [](const Tensors& x) { return one(F::conv2d(x[0], x[1], x[2], 1, 1)); });
    out.back().no_grad().no_gradcheck().perf({{n, c, side, side}, {c, c, 3, 3}, {c}}).with_flops(
        [](const std::vector<Shape>& s) { return conv_flops(s, 1, 1); });
  }
  const auto tconv = [&](const std::string& variant, Shape xs, Shape ws, bool bias, int64_t stride, int64_t pad,
                         int64_t out_pad, int64_t groups, int64_t dilation) {
    std::vector<Input> inputs = {in(std::move(xs)), in(std::move(ws))};
    if (bias) inputs.push_back(in({inputs[1].shape[1] * groups}));
    add(out, "conv_transpose2d", variant, std::move(inputs), [=](const Tensors& x) {
      return one(F::conv_transpose2d(x[0], x[1], bias ? x[2] : Tensor(), stride, pad, out_pad, groups, dilation));
    });
  };
  tconv("", {2, 3, 4, 5}, {3, 2, 3, 3}, true, 1, 0, 0, 1, 1);
  tconv("stride_output_padding", {1, 2, 3, 3}, {2, 3, 3, 2}, false, 2, 1, 1, 1, 1);
  tconv("groups_dilation", {1, 4, 3, 4}, {4, 1, 2, 2}, true, 1, 0, 0, 2, 2);
  // Each algorithm forced (ADEPT_CONV_ALGO) on a shape it serves: Vulkan's, and the CPU's in the same case.
  const auto algo = [&](const std::string& vulkan, const std::string& cpu) {
    out.back().with_env("ADEPT_CONV_ALGO", vulkan, DeviceType::Vulkan).with_env("ADEPT_CONV_ALGO", cpu, DeviceType::CPU);
    // F(4x4, 3x3)'s transforms (entries up to 8 and 1/24) round a few bits more than direct sums.
    if (vulkan == "winograd_f4") out.back().with_device_tol(10);
  };
  conv("implicit_gemm_tiles", {2, 20, 12, 12}, {70, 20, 3, 3}, true, 1, 1, 1, 1);  // 2 row tiles, 5 column tiles
  algo("implicit_gemm", "im2col");
  conv("implicit_gemm_split_k", {2, 4, 32, 32}, {8, 4, 3, 3}, false, 1, 1, 1, 1);  // weight gradient in 4 K slices
  algo("implicit_gemm", "reference");
  conv("implicit_gemm_strided_grouped", {2, 4, 9, 8}, {6, 2, 3, 2}, true, 2, 1, 2, 2);
  algo("implicit_gemm", "reference");
  // Strided input gradients by stride classes: odd sizes (classes of unequal size), a 1x1 stride-3 kernel
  // (classes with no taps), an asymmetric stride with groups, and K split over two slices.
  conv("implicit_gemm_stride_classes", {2, 6, 11, 10}, {5, 6, 3, 3}, true, 2, 1, 1, 1);
  algo("implicit_gemm", "reference");
  conv("implicit_gemm_stride3_pointwise", {2, 4, 10, 7}, {3, 4, 1, 1}, false, 3, 0, 1, 1);
  algo("implicit_gemm", "reference");
  add(out, "conv2d", "implicit_gemm_asymmetric_stride_groups", {in({1, 4, 9, 8}), in({6, 2, 3, 3}), in({6})},
      [](const Tensors& x) { return one(F::conv2d(x[0], x[1], x[2], {2, 1}, {0, 1}, 1, 2)); });
  algo("implicit_gemm", "reference");
  conv("implicit_gemm_stride_classes_split_k", {1, 8, 8, 8}, {256, 8, 3, 3}, false, 2, 1, 1, 1);
  algo("implicit_gemm", "reference");
  conv("pointwise_groups", {2, 6, 5, 7}, {4, 3, 1, 1}, true, 1, 0, 1, 2);
  algo("pointwise", "im2col");
  tconv("implicit_gemm_strided", {2, 4, 4, 3}, {4, 3, 3, 3}, true, 2, 1, 1, 1, 1);
  algo("implicit_gemm", "reference");
  conv("depthwise_stride_multiplier", {2, 3, 9, 8}, {6, 1, 3, 3}, true, 2, 1, 1, 3);  // m = 2, bias
  algo("depthwise", "depthwise");
  conv("depthwise_dilation", {1, 4, 9, 9}, {4, 1, 3, 3}, false, 1, 2, 2, 4);
  algo("depthwise", "depthwise");
  add(out, "conv2d", "depthwise_5x5_asymmetric", {in({2, 3, 11, 9}), in({3, 1, 5, 5}), in({3})},
      [](const Tensors& x) { return one(F::conv2d(x[0], x[1], x[2], {2, 1}, {2, 1}, 1, 3)); });
  algo("depthwise", "depthwise");
  conv("depthwise_empty_batch", {0, 2, 5, 5}, {4, 1, 3, 3}, true, 1, 1, 1, 2);
  out.back().no_gradcheck();
  algo("depthwise", "depthwise");
  conv("depthwise_split", {2, 2, 48, 48}, {4, 1, 3, 3}, false, 1, 1, 1, 2);  // weight gradient in 2 splits
  algo("depthwise", "depthwise");
  tconv("depthwise", {2, 4, 5, 4}, {4, 1, 3, 3}, true, 2, 1, 1, 2, 1);  // conv2d's input gradient, m = 2
  algo("depthwise", "depthwise");
  // The fused SiLU epilogue (forward mode runs without autograd: fused; backward mode: composed).
  const auto conv_silu = [&](const std::string& variant, Shape xs, Shape ws, int64_t stride, int64_t pad, int64_t groups) {
    const int64_t c_out = ws[0];
    add(out, "conv2d", variant, {in(std::move(xs)), in(std::move(ws)), in({c_out})}, [=](const Tensors& x) {
      return one(conv2d_silu(x[0], x[1], x[2], stride, pad, 1, groups));
    });
  };
  conv_silu("silu_epilogue", {2, 3, 6, 5}, {4, 3, 3, 3}, 1, 1, 1);
  conv_silu("silu_epilogue_split_k", {2, 4, 32, 32}, {8, 4, 3, 3}, 1, 1, 1);
  conv_silu("silu_epilogue_pointwise", {2, 6, 5, 7}, {4, 3, 1, 1}, 1, 0, 2);
  conv_silu("silu_epilogue_depthwise", {2, 4, 7, 6}, {8, 1, 3, 3}, 2, 1, 4);
  // Winograd F(2x2) / F(4x4): output sizes that are no multiples of m (partial tiles), paddings 0..2.
  conv("winograd", {2, 4, 6, 6}, {5, 4, 3, 3}, true, 1, 1, 1, 1);
  algo("winograd", "winograd");
  conv("winograd_f4_partial", {2, 3, 7, 9}, {4, 3, 3, 3}, true, 1, 1, 1, 1);  // 7x9 out: 2x3 tiles of 4
  algo("winograd_f4", "winograd");
  conv("winograd_pad0", {1, 3, 8, 7}, {4, 3, 3, 3}, false, 1, 0, 1, 1);
  algo("winograd", "winograd");
  conv("winograd_f4_pad0", {1, 3, 8, 7}, {4, 3, 3, 3}, false, 1, 0, 1, 1);
  algo("winograd_f4", "winograd");
  conv("winograd_pad2", {1, 2, 5, 6}, {3, 2, 3, 3}, true, 1, 2, 1, 1);
  algo("winograd", "winograd");
  conv("winograd_f4_pad2", {1, 2, 5, 6}, {3, 2, 3, 3}, true, 1, 2, 1, 1);
  algo("winograd_f4", "winograd");
  conv("winograd_groups", {2, 4, 5, 7}, {6, 2, 3, 3}, true, 1, 1, 1, 2);
  algo("winograd", "winograd");
  conv("winograd_f4_groups", {2, 4, 5, 7}, {6, 2, 3, 3}, true, 1, 1, 1, 2);
  algo("winograd_f4", "winograd");
  conv("winograd_f4_empty_batch", {0, 3, 5, 5}, {2, 3, 3, 3}, true, 1, 1, 1, 1);
  out.back().no_gradcheck();
  algo("winograd_f4", "winograd");
  conv("winograd_by_rule", {1, 16, 6, 5}, {16, 16, 3, 3}, true, 1, 1, 1, 1);  // Vulkan's rule: >= 16 channels
  tconv("winograd", {2, 3, 5, 4}, {3, 4, 3, 3}, true, 1, 1, 0, 1, 1);  // forward = the input-gradient kernel
  algo("winograd", "winograd");
  tconv("winograd_f4_groups", {1, 4, 6, 5}, {4, 3, 3, 3}, false, 1, 0, 0, 2, 1);
  algo("winograd_f4", "winograd");
}

void pooling(std::vector<Case>& out) {
  const Input x = in({2, 3, 7, 6}, Gen::Distinct);
  add(out, "max_pool2d", "", {x}, [](const Tensors& t) { return one(F::max_pool2d(t[0], 2)); });
  add(out, "max_pool2d", "stride_pad_dilation", {x},
      [](const Tensors& t) { return one(F::max_pool2d(t[0], 3, nn::IntPair{2, 1}, 1, 2)); });
  add(out, "max_pool2d", "ceil_mode", {x}, [](const Tensors& t) { return one(F::max_pool2d(t[0], 2, 2, 0, 1, true)); });
  add(out, "max_pool2d", "unbatched", {in({3, 5, 5}, Gen::Distinct)}, [](const Tensors& t) { return one(F::max_pool2d(t[0], 3, 1)); });
  add(out, "max_pool2d_with_indices", "", {x}, [](const Tensors& t) {
    auto [v, i] = F::max_pool2d_with_indices(t[0], 3, 2, 1);
    return Tensors{v, i};
  });
  // NaN wins (the last of a window), ties keep the first
  add(out, "max_pool2d_with_indices", "nan", {in({2, 3, 6, 7}, Gen::Special)}, [](const Tensors& t) {
    auto [v, i] = F::max_pool2d_with_indices(t[0], 3, 1, 1);
    return Tensors{v, i};
  });
  out.back().no_gradcheck();
  // dilated windows over rows (-1, 2) of 2 miss the input: -inf, index -1 (no gradient)
  add(out, "max_pool2d_with_indices", "empty_window", {in({1, 2, 2, 5}, Gen::Distinct)}, [](const Tensors& t) {
    auto [v, i] = F::max_pool2d_with_indices(t[0], 2, 1, 1, 3);
    return Tensors{v, i};
  });
  out.back().no_gradcheck();
  add(out, "avg_pool2d", "", {in({2, 3, 7, 6})}, [](const Tensors& t) { return one(F::avg_pool2d(t[0], 2)); });
  add(out, "avg_pool2d", "pad_exclude", {in({1, 2, 6, 5})},
      [](const Tensors& t) { return one(F::avg_pool2d(t[0], 3, 2, 1, false, false)); });
  add(out, "avg_pool2d", "ceil_divisor", {in({1, 2, 7, 7})},
      [](const Tensors& t) { return one(F::avg_pool2d(t[0], 2, 2, 0, true, true, 3)); });
  add(out, "adaptive_avg_pool2d", "", {in({2, 3, 7, 5})}, [](const Tensors& t) { return one(F::adaptive_avg_pool2d(t[0], {3, 2})); });
  add(out, "avg_pool2d", "ceil_pad_overlap", {in({2, 2, 7, 6})},
      [](const Tensors& t) { return one(F::avg_pool2d(t[0], 3, 2, 1, true, true)); });
  add(out, "adaptive_avg_pool2d", "upsample", {in({1, 2, 3, 5})}, [](const Tensors& t) { return one(F::adaptive_avg_pool2d(t[0], {5, 7})); });
  add(out, "adaptive_avg_pool2d", "global", {in({2, 4, 5, 5})}, [](const Tensors& t) { return one(F::adaptive_avg_pool2d(t[0], 1)); });
  add(out, "adaptive_max_pool2d", "", {in({2, 3, 7, 5}, Gen::Distinct)},
      [](const Tensors& t) { return one(F::adaptive_max_pool2d(t[0], {3, 2})); });
  add(out, "adaptive_max_pool2d_with_indices", "", {in({1, 2, 6, 6}, Gen::Distinct)}, [](const Tensors& t) {
    auto [v, i] = F::adaptive_max_pool2d_with_indices(t[0], 4);
    return Tensors{v, i};
  });
  add(out, "adaptive_max_pool2d_with_indices", "upsample", {in({2, 1, 3, 4}, Gen::Distinct)}, [](const Tensors& t) {
    auto [v, i] = F::adaptive_max_pool2d_with_indices(t[0], {5, 6});
    return Tensors{v, i};
  });
  add(out, "max_unpool2d", "", {in({1, 2, 4, 4}, Gen::Distinct)}, [](const Tensors& t) {
    auto [v, i] = F::max_pool2d_with_indices(t[0], 2);
    return one(F::max_unpool2d(v, i, 2));
  });
  // overlapping windows name one position several times: the last wins
  add(out, "max_unpool2d", "overlap", {in({2, 2, 5, 6}, Gen::Distinct)}, [](const Tensors& t) {
    auto [v, i] = F::max_pool2d_with_indices(t[0], 3, 1);
    return one(F::max_unpool2d(v, i, 3, 1));
  });
  out.back().no_gradcheck();  // the gradient gathers at every duplicate (PyTorch's), not only at the last
  for (Case& c : out)
    if (c.op.find("pool") != std::string::npos) c.perf({{8, 64, 56, 56}});
}

void normalization(std::vector<Case>& out) {
  // batch_norm and batch_norm_silu (BN fused with SiLU: in training the fused kernels apply SiLU in the apply
  // pass and fold silu' into the backward's sums) take the same cases.
  using BatchNormFn = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&, bool,
                                 std::optional<double>, double, const Tensor&);
  for (const auto& [name, bn] : {std::pair<const char*, BatchNormFn>{"batch_norm", &F::batch_norm},
                                 std::pair<const char*, BatchNormFn>{"batch_norm_silu", &F::batch_norm_silu}}) {
    // training: running stats are updated in place, so they are cloned (they are outputs too)
    const auto training = [&, bn = bn](const std::string& variant, Shape shape) {
      const int64_t C = shape[1];
      add(out, name, variant, {in(std::move(shape)), nograd({C}), nograd({C}, Gen::Positive), in({C}), in({C})},
          [bn](const Tensors& x) {
            Tensor rm = x[1].clone(), rv = x[2].clone();
            Tensor y = bn(x[0], rm, rv, x[3], x[4], true, 0.1, 1e-5, {});
            return Tensors{y, rm, rv};
          });
    };
    training("training", {4, 3, 5});
    training("training_4d", {3, 4, 5, 6});
    add(out, name, "eval", {in({2, 3, 4, 4}), nograd({3}), nograd({3}, Gen::Positive), in({3}), in({3})},
        [bn = bn](const Tensors& x) { return one(bn(x[0], x[1], x[2], x[3], x[4], false, 0.1, 1e-5, {})); });
    add(out, name, "no_affine", {in({6, 2})},
        [bn = bn](const Tensors& x) { return one(bn(x[0], {}, {}, {}, {}, true, 0.1, 1e-5, {})); });
    // 18000 values per channel: the Vulkan sums take several workgroups per channel and a combining pass
    add(out, name, "long_channel", {in({2, 2, 9000}), in({2}), in({2})},
        [bn = bn](const Tensors& x) { return one(bn(x[0], {}, {}, x[1], x[2], true, 0.1, 1e-5, {})); });
  }
  add(out, "layer_norm", "", {in({2, 3, 8}), in({8}), in({8})},
      [](const Tensors& x) { return one(F::layer_norm(x[0], {8}, x[1], x[2])); });
  add(out, "layer_norm", "two_dims_no_affine", {in({3, 4, 5})}, [](const Tensors& x) { return one(F::layer_norm(x[0], {4, 5})); });
  add(out, "layer_norm", "large_k", {in({2, 4096}), in({4096}), in({4096})},
      [](const Tensors& x) { return one(F::layer_norm(x[0], {4096}, x[1], x[2])); });
  add(out, "group_norm", "", {in({2, 6, 3, 3}), in({6}), in({6})},
      [](const Tensors& x) { return one(F::group_norm(x[0], 3, x[1], x[2])); });
  add(out, "group_norm", "no_affine", {in({2, 4, 5})}, [](const Tensors& x) { return one(F::group_norm(x[0], 2)); });
  for (Case& c : out)
    if (c.op.find("_norm") != std::string::npos) c.with_device_tol(10);
}

void resampling(std::vector<Case>& out) {
  const auto interp = [&](const std::string& variant, Shape s, std::optional<Shape> size,
                          std::optional<std::vector<double>> scale, std::string mode, std::optional<bool> ac) {
    add(out, "interpolate", variant, {in(std::move(s))},
        [=](const Tensors& x) { return one(F::interpolate(x[0], size, scale, mode, ac)); });
  };
  interp("nearest", {1, 2, 3, 4}, Shape{5, 7}, std::nullopt, "nearest", std::nullopt);
  interp("nearest_scale", {2, 2, 4, 3}, std::nullopt, std::vector<double>{2.0}, "nearest", std::nullopt);
  interp("nearest_exact", {1, 2, 5, 4}, Shape{3, 6}, std::nullopt, "nearest-exact", std::nullopt);
  interp("linear", {2, 3, 5}, Shape{8}, std::nullopt, "linear", std::nullopt);
  interp("linear_align_corners", {1, 2, 4}, Shape{7}, std::nullopt, "linear", true);
  interp("bilinear", {1, 2, 4, 5}, Shape{6, 3}, std::nullopt, "bilinear", false);
  interp("bilinear_align_corners", {1, 2, 3, 3}, Shape{5, 5}, std::nullopt, "bilinear", true);
  interp("bicubic", {1, 1, 4, 4}, Shape{7, 5}, std::nullopt, "bicubic", false);
  interp("bicubic_align_corners", {1, 2, 4, 5}, Shape{7, 6}, std::nullopt, "bicubic", true);
  // downsampling: skipped inputs (zero gradient) and, for bicubic, taps clamped onto the same row
  interp("nearest_down", {1, 1, 7, 9}, Shape{3, 4}, std::nullopt, "nearest", std::nullopt);
  interp("nearest_exact_scale_down", {1, 2, 7, 5}, std::nullopt, std::vector<double>{0.6}, "nearest-exact",
         std::nullopt);
  interp("bilinear_scale_down", {2, 1, 6, 7}, std::nullopt, std::vector<double>{0.5}, "bilinear", false);
  interp("bicubic_down", {1, 1, 9, 8}, Shape{4, 3}, std::nullopt, "bicubic", false);
  interp("linear_same_size", {1, 2, 5}, Shape{5}, std::nullopt, "linear", false);
  // ~50k outputs read one input: its gradient sums a list longer than lavapipe's loop limit allows in one pass
  interp("linear_long_gradient", {1, 1, 2}, Shape{40000}, std::nullopt, "linear", false);
  interp("area", {1, 2, 6, 5}, Shape{3, 2}, std::nullopt, "area", std::nullopt);
  // dropout: identity when not training or p = 0; in training, statistics only
  add(out, "dropout", "eval", {in({3, 4})}, [](const Tensors& x) { return one(F::dropout(x[0], 0.5, false)); });
  add(out, "dropout", "p0", {in({3, 4})}, [](const Tensors& x) { return one(F::dropout(x[0], 0.0, true)); });
  out.push_back(make_case("dropout", "training_stats", {nograd({64, 64}, Gen::Ones)},
                          [](const Tensors& x) -> Tensors { return {F::dropout(x[0], 0.25, true)}; }, kFloat)
                    .with_compare(Compare::Stats)
                    .with_layouts({})
                    .no_grad());
}

void losses(std::vector<Case>& out) {
  const std::vector<std::string> reductions = {"mean", "sum", "none"};
  using Loss = std::function<Tensor(const Tensor&, const Tensor&, const std::string&)>;
  const std::vector<std::tuple<const char*, Loss, Gen>> elementwise = {
      {"mse_loss", [](const Tensor& a, const Tensor& b, const std::string& r) { return F::mse_loss(a, b, r); }, Gen::Normal},
      {"l1_loss", [](const Tensor& a, const Tensor& b, const std::string& r) { return F::l1_loss(a, b, r); }, Gen::Normal},
      {"smooth_l1_loss",
       [](const Tensor& a, const Tensor& b, const std::string& r) { return F::smooth_l1_loss(a, b, r, 0.5); }, Gen::Normal},
      {"huber_loss", [](const Tensor& a, const Tensor& b, const std::string& r) { return F::huber_loss(a, b, r, 0.7); },
       Gen::Normal},
      {"binary_cross_entropy",
       [](const Tensor& a, const Tensor& b, const std::string& r) { return F::binary_cross_entropy(a, b, {}, r); }, Gen::Prob},
      {"binary_cross_entropy_with_logits",
       [](const Tensor& a, const Tensor& b, const std::string& r) {
         return F::binary_cross_entropy_with_logits(a, b, {}, r);
       },
       Gen::Large}};
  for (const auto& [name, f, gen] : elementwise) {
    for (const std::string& r : reductions) {
      add(out, name, r, {in({3, 5}, gen), in({3, 5}, Gen::Prob)}, [f = f, r](const Tensors& x) { return one(f(x[0], x[1], r)); });
      out.back().with_device_tol(10);
    }
  }
  add(out, "mse_loss", "broadcast", {in({3, 4}), in({4})}, [](const Tensors& x) { return one(F::mse_loss(x[0], x[1])); });
  add(out, "mse_loss", "empty", {in({0, 4}), in({0, 4})}, [](const Tensors& x) { return one(F::mse_loss(x[0], x[1], "sum")); });
  add(out, "binary_cross_entropy", "weight", {in({4, 3}, Gen::Prob), in({4, 3}, Gen::Prob), in({4, 3}, Gen::Positive)},
      [](const Tensors& x) { return one(F::binary_cross_entropy(x[0], x[1], x[2])); });
  add(out, "binary_cross_entropy_with_logits", "pos_weight",
      {in({4, 3}), in({4, 3}, Gen::Prob), in({4, 3}, Gen::Positive), in({3}, Gen::Positive)},
      [](const Tensors& x) { return one(F::binary_cross_entropy_with_logits(x[0], x[1], x[2], "sum", x[3])); });
  // Constant weights (the detection loss's case): the op's own backward node, not the composed ops.
  for (const std::string& r : reductions) {
    add(out, "binary_cross_entropy_with_logits", "const_weights_" + r,
        {in({2, 4, 3}, Gen::Large), in({2, 4, 3}, Gen::Prob), nograd({3}, Gen::Positive), nograd({4, 3}, Gen::Positive)},
        [r](const Tensors& x) { return one(F::binary_cross_entropy_with_logits(x[0], x[1], x[2], r, x[3])); });
    out.back().with_device_tol(10);
  }
  for (const std::string& r : reductions) {
    add(out, "cross_entropy", r, {in({5, 4}), range({5}, 0, 3)},
        [r](const Tensors& x) { return one(F::cross_entropy(x[0], x[1], {}, -100, r)); });
    // Any input will do (log_softmax's composition is cross_entropy's case); no other op runs in it.
    add(out, "nll_loss", r, {in({5, 4}), range({5}, 0, 3)},
        [r](const Tensors& x) { return one(F::nll_loss(x[0], x[1], {}, -100, r)); });
  }
  add(out, "cross_entropy", "weight_ignore", {in({6, 4}), range({6}, 0, 3), in({4}, Gen::Positive)},
      [](const Tensors& x) { return one(F::cross_entropy(x[0], x[1], x[2], 2)); });
  add(out, "cross_entropy", "label_smoothing", {in({5, 3}), range({5}, 0, 2)},
      [](const Tensors& x) { return one(F::cross_entropy(x[0], x[1], {}, -100, "mean", 0.2)); });
  add(out, "cross_entropy", "probabilities", {in({4, 3}), in({4, 3}, Gen::Prob)},
      [](const Tensors& x) { return one(F::cross_entropy(x[0], x[1])); });
  add(out, "cross_entropy", "spatial", {in({2, 3, 4, 2}), range({2, 4, 2}, 0, 2)},
      [](const Tensors& x) { return one(F::cross_entropy(x[0], x[1])); });
  add(out, "cross_entropy", "large_k", {in({2, 4096}), range({2}, 0, 4095)},
      [](const Tensors& x) { return one(F::cross_entropy(x[0], x[1])); });
  add(out, "nll_loss", "weight_ignore", {in({6, 4}), range({6}, 0, 3), in({4}, Gen::Positive)},
      [](const Tensors& x) { return one(F::nll_loss(x[0], x[1], x[2], 1)); });
  for (Case& c : out)
    if (c.op == "cross_entropy" || c.op == "nll_loss") c.with_device_tol(10);
}

}  // namespace

void add_nn_cases(std::vector<Case>& out) {
  std::vector<Case> nn;
  activations(nn);
  linear_conv(nn);
  pooling(nn);
  normalization(nn);
  resampling(nn);
  losses(nn);
  out.insert(out.end(), nn.begin(), nn.end());
}

}  // namespace adept::backend_ops
