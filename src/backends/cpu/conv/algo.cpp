// The CPU conv2d algorithm rule and the ADEPT_CONV_ALGO override.
#include "backends/cpu/conv/algo.h"

#include <cstdlib>
#include <cstring>
#include <optional>

#include "adept/errors.h"

namespace adept::cpu::conv {
namespace {

constexpr ConvAlgo kAll[] = {ConvAlgo::Reference, ConvAlgo::Im2col, ConvAlgo::Winograd, ConvAlgo::Depthwise};

std::optional<ConvAlgo> forced_algo() {
  const char* env = std::getenv("ADEPT_CONV_ALGO");
  if (!env || !*env || std::strcmp(env, "auto") == 0) return std::nullopt;
  for (ConvAlgo a : kAll) {
    if (std::strcmp(env, conv_algo_name(a)) == 0) return a;
  }
  throw ValueError(fmt::format("conv2d: unknown ADEPT_CONV_ALGO '{}' (expected auto, reference, im2col, winograd or depthwise)",
                               env));
}

bool is_depthwise(const ConvGeometry& g) { return g.groups == g.C_in && g.C_out % g.C_in == 0; }
bool is_winograd_shape(const ConvGeometry& g) {
  return g.kH == 3 && g.kW == 3 && g.stride_h == 1 && g.stride_w == 1 && g.dil_h == 1 && g.dil_w == 1;
}

bool can_compute(ConvAlgo a, const ConvGeometry& g, ConvDir d) {
  switch (a) {
    case ConvAlgo::Reference: case ConvAlgo::Im2col: return true;
    case ConvAlgo::Depthwise: return is_depthwise(g);
    case ConvAlgo::Winograd:
      return is_winograd_shape(g) && (d == ConvDir::Forward || (d == ConvDir::Input && g.pad_h <= 2 && g.pad_w <= 2));
  }
  return false;
}

}  // namespace

const char* conv_algo_name(ConvAlgo a) {
  switch (a) {
    case ConvAlgo::Reference: return "reference";
    case ConvAlgo::Im2col: return "im2col";
    case ConvAlgo::Winograd: return "winograd";
    case ConvAlgo::Depthwise: return "depthwise";
  }
  return "?";
}

ConvAlgo choose_algo(const ConvGeometry& g, ConvDir dir) {
  std::optional<ConvAlgo> f = forced_algo();
  if (f && can_compute(*f, g, dir)) return *f;
  const char* op = dir == ConvDir::Forward ? "conv2d" : "conv_transpose2d";
  ADEPT_CHECK(!f || !g.strict, ValueError,
              "{}: ADEPT_CONV_ALGO={} cannot compute this convolution (weight {}x{}, stride ({}, {}), dilation ({}, {}), "
              "groups {}, {} -> {} channels{})", op, conv_algo_name(*f), g.kH, g.kW, g.stride_h, g.stride_w, g.dil_h,
              g.dil_w, g.groups, g.C_in, g.C_out,
              *f == ConvAlgo::Winograd ? ": winograd needs 3x3, stride 1, dilation 1 (and padding <= 2 for the "
                                         "transposed conv)"
              : *f == ConvAlgo::Depthwise ? ": depthwise needs groups == input channels" : "");
  return is_depthwise(g) ? ConvAlgo::Depthwise : ConvAlgo::Im2col;
}

}  // namespace adept::cpu::conv
