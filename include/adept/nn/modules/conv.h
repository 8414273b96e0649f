// 2-d convolution layers (torch.nn.Conv2d, torch.nn.ConvTranspose2d).
#pragma once
#include <initializer_list>
#include <optional>
#include <string>

#include "adept/nn/module.h"
#include "adept/nn/options.h"

namespace adept::nn {

/// Conv2d's padding argument: an int or (h, w) pair, or the string "same" / "valid" (torch's
/// int-tuple-or-str padding). A literal 0 selects the int form.
struct Conv2dPadding {
  IntPair amount{0};
  std::optional<std::string> mode;
  Conv2dPadding(int both) : amount(both) {}                          // NOLINT(google-explicit-constructor)
  Conv2dPadding(int64_t both) : amount(both) {}                      // NOLINT(google-explicit-constructor)
  Conv2dPadding(IntPair p) : amount(p) {}                            // NOLINT(google-explicit-constructor)
  Conv2dPadding(std::initializer_list<int64_t> l) : amount(l) {}     // NOLINT(google-explicit-constructor)
  Conv2dPadding(const char* s) : mode(s) {}                          // NOLINT(google-explicit-constructor)
  Conv2dPadding(std::string s) : mode(std::move(s)) {}               // NOLINT(google-explicit-constructor)
};

/// 2-d cross-correlation layer over functional::conv2d. Parameters: weight
/// (out_channels, in_channels / groups, kH, kW), bias (out_channels) unless bias=false; default init
/// U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for both, fan_in = in_channels / groups * kH * kW (torch's
/// kaiming_uniform_(a=sqrt(5)) and bias rule). padding: an int/pair or "same" / "valid".
/// padding_mode "zeros" (implicit zero padding), "reflect", "replicate" or "circular" (explicit
/// adept::pad before an unpadded conv, as torch).
/// (N, C_in, H, W) or (C_in, H, W) -> (N, C_out, H_out, W_out), H_out as functional::conv2d.
/// Errors (ValueError, at construction, as torch): channels not divisible by groups, groups < 1,
/// an unknown padding string or padding_mode, padding="same" with a stride other than 1.
class Conv2d : public Module {
 public:
  Conv2d(int64_t in_channels, int64_t out_channels, IntPair kernel_size, IntPair stride = 1,
         Conv2dPadding padding = 0, IntPair dilation = 1, int64_t groups = 1, bool bias = true,
         std::string padding_mode = "zeros");
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  void reset_parameters();

  int64_t in_channels, out_channels;
  IntPair kernel_size, stride, padding, dilation;
  /// "same" / "valid" when padding was given as a string (`padding` is then 0).
  std::optional<std::string> padding_string;
  int64_t groups;
  std::string padding_mode;
};

/// 2-d transposed convolution layer over functional::conv_transpose2d. weight
/// (in_channels, out_channels / groups, kH, kW), bias (out_channels); default init as torch
/// (fan_in computed from the weight's dim 1: out_channels / groups * kH * kW).
/// (N, C_in, H, W) -> (N, C_out, H_out, W_out), H_out = (H - 1) sH - 2 padH + dH (kH - 1) + output_paddingH + 1.
/// Only padding_mode "zeros" exists (ValueError otherwise, as torch); channels not divisible by
/// groups: ValueError.
class ConvTranspose2d : public Module {
 public:
  ConvTranspose2d(int64_t in_channels, int64_t out_channels, IntPair kernel_size, IntPair stride = 1,
                  IntPair padding = 0, IntPair output_padding = 0, int64_t groups = 1, bool bias = true,
                  IntPair dilation = 1, std::string padding_mode = "zeros");
  Tensor forward(const Tensor& input) override;
  /// forward with an explicit output size (the last two entries are (H_out, W_out)): the
  /// output_padding is derived from it (ValueError when it is not reachable), as torch.
  Tensor forward(const Tensor& input, const Shape& output_size);
  std::string extra_repr() const override;
  void reset_parameters();

  int64_t in_channels, out_channels;
  IntPair kernel_size, stride, padding, output_padding;
  int64_t groups;
  IntPair dilation;
  std::string padding_mode;
};

}  // namespace adept::nn
