// The conv2d algorithm names and the ADEPT_CONV_ALGO override shared by the backends' rules.
#include <cstdlib>
#include <cstring>

#include "adept/errors.h"
#include "kernels/conv.h"

namespace adept {

namespace {
constexpr ConvAlgo kAll[] = {ConvAlgo::Reference, ConvAlgo::Im2col,    ConvAlgo::ImplicitGemm, ConvAlgo::Pointwise,
                             ConvAlgo::Depthwise, ConvAlgo::Winograd, ConvAlgo::WinogradF4};
}  // namespace

const char* conv_algo_name(ConvAlgo a) {
  switch (a) {
    case ConvAlgo::Reference: return "reference";
    case ConvAlgo::Im2col: return "im2col";
    case ConvAlgo::ImplicitGemm: return "implicit_gemm";
    case ConvAlgo::Pointwise: return "pointwise";
    case ConvAlgo::Depthwise: return "depthwise";
    case ConvAlgo::Winograd: return "winograd";
    case ConvAlgo::WinogradF4: return "winograd_f4";
  }
  return "?";
}

std::optional<ConvAlgo> forced_conv_algo() {
  const char* env = std::getenv("ADEPT_CONV_ALGO");
  if (!env || !*env || std::strcmp(env, "auto") == 0) return std::nullopt;
  for (ConvAlgo a : kAll) {
    if (std::strcmp(env, conv_algo_name(a)) == 0) return a;
  }
  throw ValueError(fmt::format("conv2d: unknown ADEPT_CONV_ALGO '{}' (expected auto, reference, im2col, implicit_gemm, "
                               "pointwise, depthwise, winograd or winograd_f4)", env));
}

void check_forced_conv_algo(const std::optional<ConvAlgo>& forced, bool can, const ConvGeometry& g, ConvDir dir,
                            const char* backend, const char* why) {
  if (!forced || can || !g.strict) return;
  const char* op = dir == ConvDir::Forward ? "conv2d" : "conv_transpose2d";
  throw ValueError(fmt::format("{}: ADEPT_CONV_ALGO={} cannot compute this convolution on {} (weight {}x{}, stride "
                               "({}, {}), dilation ({}, {}), groups {}, {} -> {} channels){}{}", op,
                               conv_algo_name(*forced), backend, g.kH, g.kW, g.stride_h, g.stride_w, g.dil_h, g.dil_w,
                               g.groups, g.C_in, g.C_out, *why ? ": " : "", why));
}

}  // namespace adept
