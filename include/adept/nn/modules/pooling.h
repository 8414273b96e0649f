// 2-d pooling layers (torch.nn.MaxPool2d, AvgPool2d, AdaptiveAvgPool2d, MaxUnpool2d).
#pragma once
#include <array>
#include <optional>
#include <string>
#include <tuple>

#include "adept/nn/module.h"
#include "adept/nn/options.h"

namespace adept::nn {

/// A pooling size as given: one int for both dims (`2`) or a pair (`{2, 3}`). repr prints it the
/// way it was given, as torch does ("kernel_size=2" vs "kernel_size=(2, 3)").
struct PoolSize {
  IntPair value;
  bool is_pair = false;
  PoolSize(int64_t both) : value(both) {}                             // NOLINT(google-explicit-constructor)
  PoolSize(int64_t h, int64_t w) : value(h, w), is_pair(true) {}
  PoolSize(IntPair p, bool is_pair) : value(p), is_pair(is_pair) {}
  std::string repr() const;
};

/// Max over kernel_size windows (functional::max_pool2d); stride defaults to kernel_size.
/// (N, C, H, W) or (C, H, W) -> (N, C, H_out, W_out). forward returns the pooled values;
/// forward_with_indices also the flat indices (what return_indices=true makes the Python forward
/// return, and what MaxUnpool2d takes).
class MaxPool2d : public Module {
 public:
  MaxPool2d(PoolSize kernel_size, std::optional<PoolSize> stride = std::nullopt, PoolSize padding = 0,
            PoolSize dilation = 1, bool return_indices = false, bool ceil_mode = false);
  Tensor forward(const Tensor& input) override;
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  std::string extra_repr() const override;

  PoolSize kernel_size, stride, padding, dilation;
  bool return_indices, ceil_mode;
};

/// Mean over kernel_size windows (functional::avg_pool2d, same options); stride defaults to kernel_size.
class AvgPool2d : public Module {
 public:
  AvgPool2d(PoolSize kernel_size, std::optional<PoolSize> stride = std::nullopt, PoolSize padding = 0,
            bool ceil_mode = false, bool count_include_pad = true, std::optional<int64_t> divisor_override = std::nullopt);
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;

  PoolSize kernel_size, stride, padding;
  bool ceil_mode, count_include_pad;
  std::optional<int64_t> divisor_override;
};

/// Adaptive average pooling to output_size (functional::adaptive_avg_pool2d). An absent entry
/// (None in torch) keeps that input dim. (N, C, H, W) -> (N, C, H_out, W_out).
class AdaptiveAvgPool2d : public Module {
 public:
  /// One size for both dims.
  explicit AdaptiveAvgPool2d(int64_t output_size);
  /// (H_out, W_out), either may be nullopt.
  AdaptiveAvgPool2d(std::optional<int64_t> h, std::optional<int64_t> w);
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;

  std::array<std::optional<int64_t>, 2> output_size;
  bool is_pair;
};

/// Partial inverse of MaxPool2d (functional::max_unpool2d): forward(input, indices[, output_size]).
/// The single-tensor forward raises (it needs the indices).
class MaxUnpool2d : public Module {
 public:
  MaxUnpool2d(IntPair kernel_size, std::optional<IntPair> stride = std::nullopt, IntPair padding = 0);
  using Module::forward;
  Tensor forward(const Tensor& input, const Tensor& indices, std::optional<Shape> output_size = std::nullopt);
  std::string extra_repr() const override;

  IntPair kernel_size, stride, padding;
};

}  // namespace adept::nn
