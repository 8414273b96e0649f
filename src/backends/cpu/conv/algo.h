// The CPU's choice of conv2d algorithm: a deterministic rule per geometry, which ADEPT_CONV_ALGO
// overrides (kernels/conv.h).
#pragma once
#include "kernels/conv.h"

namespace adept::cpu::conv {

/// The algorithm for one kernel call: reference, im2col, depthwise or winograd. Rule: depthwise when
/// groups == C_in (and C_out a multiple), else im2col + GEMM. Winograd is not chosen by the rule: measured
/// on the YOLO11n shapes (bench/conv_vs_torch.py) its scalar transforms lose to im2col whenever OpenBLAS
/// runs its AVX-512 kernels. A forced algorithm that cannot compute the call (or that the CPU lacks) is
/// replaced by the rule's choice, except for a `strict` geometry, which raises ValueError naming the
/// algorithm and why.
ConvAlgo choose_algo(const ConvGeometry& g, ConvDir dir);

}  // namespace adept::cpu::conv
