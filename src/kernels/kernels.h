// The kernel interface: every kernel family's signature and parameter structs, and the registry.
// Ops (src/ops) check arguments, infer shapes and dtypes, broadcast and record autograd; kernels only
// compute. Backends (src/backends) include only core and this folder. Unless a family says otherwise,
// all tensors passed to a kernel are on the same device, operands already have the output's shape
// (broadcast by stride-0 views) and the op's compute dtype, `out` is freshly allocated or a valid
// in-place target, and kernels accept any strides.
#pragma once
#include "kernels/batch_norm.h"
#include "kernels/conv.h"
#include "kernels/index.h"
#include "kernels/interpolate.h"
#include "kernels/layer_norm.h"
#include "kernels/linalg.h"
#include "kernels/optim.h"
#include "kernels/pointwise.h"
#include "kernels/pooling.h"
#include "kernels/random.h"
#include "kernels/reduce.h"
#include "kernels/tensor_view.h"
#include "kernels/transfer.h"
