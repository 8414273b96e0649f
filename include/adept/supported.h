// Which ops a device can run, answered from the kernel registry and the op table
// (src/kernels/op_table.def) without running anything.
#pragma once
#include <string>
#include <vector>

#include "adept/device.h"
#include "adept/dtype.h"

namespace adept {

/// True when the op named `op` (its public, PyTorch name: "conv2d", "exp", "cross_entropy") accepts
/// `dtype` and `device` has every kernel the op's forward needs for it, and, with `backward`, every
/// kernel its backward needs too. Kernel families that take op codes (unary, binary, reduce) answer
/// per code and dtype, as the device's shader variants implement them. Aliases (negative, subtract,
/// ...) answer for their op. Throws ValueError for a name that is not in the op table and
/// DeviceError for a device that does not exist (as allocating on it would).
bool supported(const std::string& op, const Device& device, Dtype dtype, bool backward = false);
/// Everything `ops` lack on `device` for `dtype`, one entry per op and missing kernel, e.g.
/// "conv2d: conv2d_forward" or "exp: unary:Exp (float16)"; empty when all are supported. Ops that
/// refuse `dtype` on every device read "op: dtype <name> not accepted".
std::vector<std::string> missing_kernels(const std::vector<std::string>& ops, const Device& device, Dtype dtype,
                                         bool backward = false);
/// The names of every op in the op table, in table order (aliases not included).
std::vector<std::string> op_table_names();

}  // namespace adept
