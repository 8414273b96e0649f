// The CPU conv2d algorithm rule.
#include "backends/cpu/conv/algo.h"

namespace adept::cpu::conv {
namespace {

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
    default: return false;
  }
}

const char* requirement(ConvAlgo a) {
  switch (a) {
    case ConvAlgo::Winograd: return "winograd needs 3x3, stride 1, dilation 1 (and padding <= 2 for the transposed conv)";
    case ConvAlgo::Depthwise: return "depthwise needs groups == input channels";
    case ConvAlgo::Reference: case ConvAlgo::Im2col: return "";
    default: return "the CPU has reference, im2col, depthwise and winograd";
  }
}

}  // namespace

ConvAlgo choose_algo(const ConvGeometry& g, ConvDir dir) {
  const std::optional<ConvAlgo> f = forced_conv_algo();
  const bool can = f && can_compute(*f, g, dir);
  if (can) return *f;
  if (f) check_forced_conv_algo(f, false, g, dir, "cpu", requirement(*f));
  return is_depthwise(g) ? ConvAlgo::Depthwise : ConvAlgo::Im2col;
}

}  // namespace adept::cpu::conv
