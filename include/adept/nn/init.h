// Parameter initialisation (torch.nn.init): in-place fills under no-grad, drawn from Adept's
// default generator (manual_seed makes them reproducible). Each returns the tensor it filled.
#pragma once
#include <optional>
#include <string>
#include <utility>

#include "adept/tensor.h"

namespace adept::nn::init {

/// The recommended gain for a nonlinearity: 1 for linear/conv*/sigmoid, 5/3 tanh, sqrt(2) relu,
/// sqrt(2 / (1 + negative_slope^2)) leaky_relu (param = negative_slope, default 0.01), 3/4 selu.
/// ValueError for other names.
double calculate_gain(const std::string& nonlinearity, std::optional<double> param = std::nullopt);

/// (fan_in, fan_out) of a weight of shape (out, in, *kernel): in * prod(kernel), out * prod(kernel).
/// ValueError for tensors with fewer than 2 dims (torch's _calculate_fan_in_and_fan_out).
std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor);

Tensor& uniform_(Tensor& tensor, double a = 0, double b = 1);
Tensor& normal_(Tensor& tensor, double mean = 0, double std = 1);
Tensor& constant_(Tensor& tensor, double val);
Tensor& ones_(Tensor& tensor);
Tensor& zeros_(Tensor& tensor);

/// U(-a, a), a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio, AISTATS 2010).
Tensor& xavier_uniform_(Tensor& tensor, double gain = 1);
/// N(0, std^2), std = gain * sqrt(2 / (fan_in + fan_out)).
Tensor& xavier_normal_(Tensor& tensor, double gain = 1);
/// U(-b, b), b = sqrt(3) * calculate_gain(nonlinearity, a) / sqrt(fan) with fan = fan_in or fan_out
/// by `mode` (He et al., ICCV 2015). A zero-element tensor is left as is. ValueError for another mode.
Tensor& kaiming_uniform_(Tensor& tensor, double a = 0, const std::string& mode = "fan_in",
                         const std::string& nonlinearity = "leaky_relu");
/// N(0, std^2), std = calculate_gain(nonlinearity, a) / sqrt(fan).
Tensor& kaiming_normal_(Tensor& tensor, double a = 0, const std::string& mode = "fan_in",
                        const std::string& nonlinearity = "leaky_relu");
/// N(mean, std^2) truncated to [a, b] (exact: out-of-range draws are redrawn). ValueError when
/// std <= 0, a >= b, or [a, b] holds too little of the distribution's mass (< 1e-4) to sample.
Tensor& trunc_normal_(Tensor& tensor, double mean = 0, double std = 1, double a = -2, double b = 2);

}  // namespace adept::nn::init
