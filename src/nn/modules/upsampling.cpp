// Upsample layer.
#include "adept/nn/modules/upsampling.h"

#include "adept/nn/functional/interpolate.h"
#include "repr_util.h"

namespace adept::nn {

namespace F = functional;

Upsample::Upsample(std::optional<Shape> size, std::optional<std::vector<double>> scale_factor, std::string mode,
                   std::optional<bool> align_corners, std::optional<bool> recompute_scale_factor)
    : Module("Upsample"), size(std::move(size)), scale_factor(std::move(scale_factor)), mode(std::move(mode)),
      align_corners(align_corners), recompute_scale_factor(recompute_scale_factor) {
  size_is_tuple = this->size && this->size->size() > 1;
  scale_factor_is_tuple = this->scale_factor && this->scale_factor->size() > 1;
}

Tensor Upsample::forward(const Tensor& input) {
  return F::interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor);
}

std::string Upsample::extra_repr() const {
  std::string info;
  if (scale_factor) {
    std::vector<std::string> v;
    for (double s : *scale_factor) v.push_back(detail::py_float(s));
    info = "scale_factor=" + (scale_factor_is_tuple ? (v.size() == 1 ? "(" + v[0] + ",)"
                                                                     : fmt::format("({})", fmt::join(v, ", ")))
                                                    : v.at(0));
  } else if (size) {
    info = "size=" + (size_is_tuple ? detail::py_tuple(*size) : std::to_string(size->at(0)));
  } else {
    info = "size=None";
  }
  return info + ", mode=" + mode;
}

}  // namespace adept::nn
