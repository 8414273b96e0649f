"""Reverse-mode differentiation entry points (torch.autograd.backward / torch.autograd.grad)."""
from . import _C
from .grad_mode import no_grad, enable_grad, set_grad_enabled  # noqa: F401

__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled"]


def _as_tuple(x):
    if x is None:
        return None
    if isinstance(x, _C.Tensor):
        return (x,)
    return tuple(x)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates the gradients of ``tensors`` into the ``.grad`` of the leaves they depend on."""
    if inputs is not None:
        raise TypeError("backward: the inputs argument is not supported")
    _C._autograd_backward(list(_as_tuple(tensors)), _as_tuple(grad_tensors), retain_graph, create_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=False):
    """Returns a tuple with d(outputs)/d(input) for each input, without touching ``.grad``.

    An input the outputs do not depend on raises unless ``allow_unused``, which gives None for it.
    """
    return _C._autograd_grad(list(_as_tuple(outputs)), list(_as_tuple(inputs)), _as_tuple(grad_outputs),
                             retain_graph, create_graph, allow_unused)
