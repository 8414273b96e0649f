"""Parameter initialisation with torch.nn.init's names and arguments. Every function fills its
tensor in place under no-grad from adept's default generator (adept.manual_seed reproduces it) and
returns the same tensor object."""
import warnings

from .. import _C

_I = _C._nn._init

__all__ = ["calculate_gain", "uniform_", "normal_", "constant_", "ones_", "zeros_", "xavier_uniform_",
           "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "trunc_normal_"]


def calculate_gain(nonlinearity, param=None):
    """Recommended gain for ``nonlinearity`` (param: leaky_relu's negative_slope, default 0.01)."""
    if nonlinearity != "leaky_relu" or param is None:
        return _I.calculate_gain(nonlinearity, None)
    if isinstance(param, bool) or not isinstance(param, (int, float)):
        raise ValueError(f"negative_slope {param} not a valid number")
    return _I.calculate_gain(nonlinearity, float(param))


def _calculate_fan_in_and_fan_out(tensor):
    """(fan_in, fan_out) of a weight (out, in, *kernel); ValueError below 2 dims."""
    return tuple(_I.calculate_fan_in_and_fan_out(tensor))


calculate_fan_in_and_fan_out = _calculate_fan_in_and_fan_out


def uniform_(tensor, a=0.0, b=1.0):
    _I.uniform_(tensor, float(a), float(b))
    return tensor


def normal_(tensor, mean=0.0, std=1.0):
    _I.normal_(tensor, float(mean), float(std))
    return tensor


def constant_(tensor, val):
    _I.constant_(tensor, float(val))
    return tensor


def ones_(tensor):
    return constant_(tensor, 1.0)


def zeros_(tensor):
    return constant_(tensor, 0.0)


def xavier_uniform_(tensor, gain=1.0):
    _I.xavier_uniform_(tensor, float(gain))
    return tensor


def xavier_normal_(tensor, gain=1.0):
    _I.xavier_normal_(tensor, float(gain))
    return tensor


def _kaiming(fill, tensor, a, mode, nonlinearity):
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    fill(tensor, float(a), mode.lower(), nonlinearity)
    return tensor


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    return _kaiming(_I.kaiming_uniform_, tensor, a, mode, nonlinearity)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    return _kaiming(_I.kaiming_normal_, tensor, a, mode, nonlinearity)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0):
    """N(mean, std^2) truncated to [a, b] (exact, by rejection)."""
    _I.trunc_normal_(tensor, float(mean), float(std), float(a), float(b))
    return tensor
