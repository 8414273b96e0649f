// one_hot: int64 class indices to (..., num_classes) int64 indicator vectors (torch.nn.functional.one_hot).
#include "ops/helpers.h"

namespace adept {

Tensor one_hot(const Tensor& x, int64_t num_classes) {
  ADEPT_CHECK(x.dtype() == kInt64, DtypeError, "one_hot: one_hot is only applicable to index tensor (int64), got {}",
              dtype_name(x.dtype()));
  ADEPT_CHECK(num_classes >= -1, ValueError, "one_hot: num_classes should be -1 or non-negative, got {}", num_classes);
  NoGradGuard ng;
  if (x.numel() == 0) {
    ADEPT_CHECK(num_classes != -1, ValueError, "one_hot: Can not infer total number of classes from empty tensor.");
  } else {
    int64_t lo = min(x).item().to_int64(), hi = max(x).item().to_int64();
    ADEPT_CHECK(lo >= 0, ValueError, "one_hot: Class values must be non-negative, got {}", lo);
    if (num_classes == -1) num_classes = hi + 1;
    ADEPT_CHECK(hi < num_classes, ValueError, "one_hot: Class values must be smaller than num_classes ({}), got {}",
                num_classes, hi);
  }
  Shape shape = x.sizes();
  shape.push_back(num_classes);
  Tensor out = zeros(shape, TensorOptions(kInt64).set_device(x.device()));
  if (x.numel() == 0) return out;
  return scatter(out, -1, x.unsqueeze(-1), Scalar(1));
}

}  // namespace adept
