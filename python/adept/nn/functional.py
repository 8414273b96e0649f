"""Functional layers with torch.nn.functional's names, backed by the C++ ops."""
from .. import _C

# The pointwise ops the op table marks as torch.nn.functional's too (sigmoid, gelu, logsigmoid ...);
# those with an `inplace` argument are redefined below.
globals().update({name: getattr(_C, name) for name in _C._functional_ops})
one_hot = _C.one_hot


def _inplace(fn, input, inplace, *args):
    """fn(input, *args), written into `input` when `inplace` (torch's ``inplace=True``). Under autograd
    fn runs on a copy, so the values it saved for backward are not the ones the write replaces."""
    if not inplace:
        return fn(input, *args)
    return input.copy_(fn(input.clone() if input.requires_grad else input, *args))


def relu(input, inplace=False):
    return _inplace(_C.relu, input, inplace)


def silu(input, inplace=False):
    return _inplace(_C.silu, input, inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return _inplace(_C.leaky_relu, input, inplace, negative_slope)


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:  # torch's legacy implicit dim: 0 for 0-, 1- and 3-d inputs, else 1
        dim = 0 if input.dim() in (0, 1, 3) else 1
    return _C.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = 0 if input.dim() in (0, 1, 3) else 1
    return _C.log_softmax(input, dim, dtype=dtype)


def pad(input, pad, mode="constant", value=None):
    """Pads the last dims: ``pad = (left_last, right_last, left_prev, right_prev, ...)``."""
    return _C.pad(input, list(pad), mode, 0.0 if value is None else float(value))


# ---- normalization, losses, linear, dropout, piecewise activations (C++: adept/nn/functional/) ----

def _reduction(size_average, reduce, reduction):
    """torch's legacy size_average/reduce arguments, when given, override ``reduction``."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return ("mean" if size_average else "sum") if reduce else "none"


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
               eps=1e-05, num_batches_tracked=None):
    """Batch norm over dim 1; ``momentum=None`` (cumulative average) reads ``num_batches_tracked``."""
    return _C._nn.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps,
                             num_batches_tracked)


def batch_norm_silu(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
                    eps=1e-05, num_batches_tracked=None):
    """``silu(batch_norm(...))`` with batch_norm's arguments (an Adept extension): in training one fused
    node that never stores the normalised values and folds SiLU's gradient into batch norm's backward."""
    return _C._nn.batch_norm_silu(input, running_mean, running_var, weight, bias, training, momentum, eps,
                                  num_batches_tracked)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    return _C._nn.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    return _C._nn.group_norm(input, num_groups, weight, bias, eps)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    return _C._nn.binary_cross_entropy_with_logits(input, target, weight, _reduction(size_average, reduce, reduction),
                                                   pos_weight)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    return _C._nn.binary_cross_entropy(input, target, weight, _reduction(size_average, reduce, reduction))


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    return _C._nn.cross_entropy(input, target, weight, ignore_index, _reduction(size_average, reduce, reduction),
                                label_smoothing)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    return _C._nn.nll_loss(input, target, weight, ignore_index, _reduction(size_average, reduce, reduction))


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _C._nn.mse_loss(input, target, _reduction(size_average, reduce, reduction))


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _C._nn.l1_loss(input, target, _reduction(size_average, reduce, reduction))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    return _C._nn.smooth_l1_loss(input, target, _reduction(size_average, reduce, reduction), beta)


def huber_loss(input, target, reduction="mean", delta=1.0):
    return _C._nn.huber_loss(input, target, reduction, delta)


def linear(input, weight, bias=None):
    return _C._nn.linear(input, weight, bias)


def dropout(input, p=0.5, training=True, inplace=False):
    if not 0.0 <= p <= 1.0:  # checked before the in-place path too, with torch's message
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    return _inplace(_C._nn.dropout, input, inplace, p, training)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    return _inplace(_C._nn.hardtanh, input, inplace, min_val, max_val)


def relu6(input, inplace=False):
    return _inplace(_C._nn.relu6, input, inplace)


def hardsigmoid(input, inplace=False):
    return _inplace(_C._nn.hardsigmoid, input, inplace)


def hardswish(input, inplace=False):
    return _inplace(_C._nn.hardswish, input, inplace)


def elu(input, alpha=1.0, inplace=False):
    return _inplace(_C._nn.elu, input, inplace, alpha)


def mish(input, inplace=False):
    return _inplace(_C._nn.mish, input, inplace)


# ---- convolution (C++: adept/nn/functional/conv.h; ADEPT_CONV_ALGO picks the CPU algorithm) ----

def _int_list(v):
    """An int-or-tuple argument (stride, padding ...) as a list of ints for the C++ side."""
    return [int(v)] if isinstance(v, int) else [int(e) for e in v]


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-d cross-correlation; ``padding`` is an int, a pair, ``'same'`` or ``'valid'``."""
    pad = padding if isinstance(padding, str) else _int_list(padding)
    return _C._nn.conv2d(input, weight, bias, _int_list(stride), pad, _int_list(dilation), groups)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """2-d transposed convolution (the input gradient of conv2d); weight is (C_in, C_out/groups, kH, kW)."""
    if isinstance(padding, str):
        raise TypeError("conv_transpose2d(): argument 'padding' must be tuple of ints, not str")
    return _C._nn.conv_transpose2d(input, weight, bias, _int_list(stride), _int_list(padding),
                                   _int_list(output_padding), groups, _int_list(dilation))


# ---- pooling and interpolation (C++: adept/nn/functional/pooling.h, interpolate.h) ----

def _opt_int_list(v):
    """stride=None (or an empty tuple) means kernel_size."""
    return None if v is None else _int_list(v)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _C._nn.max_pool2d(input, _int_list(kernel_size), _opt_int_list(stride), _int_list(padding),
                             _int_list(dilation), ceil_mode, return_indices)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _C._nn.avg_pool2d(input, _int_list(kernel_size), _opt_int_list(stride), _int_list(padding), ceil_mode,
                             count_include_pad, divisor_override)


def _adaptive_size(input, output_size):
    """An int, or a pair whose None entries keep the input's size."""
    if isinstance(output_size, int):
        return [output_size, output_size]
    sizes = list(output_size)
    if len(sizes) == 2:
        return [input.shape[i - 2] if s is None else int(s) for i, s in enumerate(sizes)]
    return [int(s) for s in sizes]


def adaptive_avg_pool2d(input, output_size):
    return _C._nn.adaptive_avg_pool2d(input, _adaptive_size(input, output_size))


def adaptive_max_pool2d(input, output_size, return_indices=False):
    return _C._nn.adaptive_max_pool2d(input, _adaptive_size(input, output_size), return_indices)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=True):
    return adaptive_max_pool2d(input, output_size, True)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    size = None if output_size is None else [int(s) for s in output_size]
    return _C._nn.max_unpool2d(input, indices, _int_list(kernel_size), _opt_int_list(stride), _int_list(padding), size)


def _per_spatial_dim(value, dims, what, convert):
    """A number for every spatial dim, or a sequence with one entry per spatial dim (ValueError otherwise)."""
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        if len(value) != dims:
            raise ValueError(f"Input and {what} must have the same number of spatial dimensions, but got input with "
                             f"{dims} spatial dimensions and {what} {tuple(value)}")
        return [convert(v) for v in value]
    return [convert(value)] * dims


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None,
                antialias=False):
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not implemented")
    dims = max(input.dim() - 2, 0)
    return _C._nn.interpolate(input, _per_spatial_dim(size, dims, "output size", int),
                              _per_spatial_dim(scale_factor, dims, "scale_factor", float), mode, align_corners,
                              recompute_scale_factor)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    return interpolate(input, size, scale_factor, mode, align_corners)
