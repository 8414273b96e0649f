"""Gradient clipping (torch.nn.utils.clip_grad_norm_ / clip_grad_value_, torch 1.13 semantics)."""
from ... import _C

_U = _C._nn._utils


def _tensors(parameters):
    return [parameters] if isinstance(parameters, _C.Tensor) else list(parameters)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scales the grads so their total norm is at most max_norm; returns the total norm (0-d tensor).
    norm_type may be float('inf') or 'inf'. RuntimeError (adept.Error) on a non-finite norm when
    error_if_nonfinite."""
    return _U.clip_grad_norm_(_tensors(parameters), float(max_norm), float(norm_type), bool(error_if_nonfinite))


def clip_grad_value_(parameters, clip_value):
    """Clamps every grad to [-clip_value, clip_value] in place."""
    _U.clip_grad_value_(_tensors(parameters), float(clip_value))
