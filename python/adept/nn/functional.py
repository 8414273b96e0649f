"""Functional layers with torch.nn.functional's names, backed by the C++ ops."""
from .. import _C

relu = _C.relu
sigmoid = _C.sigmoid
tanh = _C.tanh
silu = _C.silu
gelu = _C.gelu
softplus = _C.softplus
leaky_relu = _C.leaky_relu
softmax = _C.softmax
log_softmax = _C.log_softmax
one_hot = _C.one_hot


def pad(input, pad, mode="constant", value=None):
    """Pads the last dims: ``pad = (left_last, right_last, left_prev, right_prev, ...)``."""
    return _C.pad(input, list(pad), mode, 0.0 if value is None else float(value))
