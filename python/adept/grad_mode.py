"""Grad-mode switches usable as context managers and as decorators (torch.no_grad & co)."""
import functools

from . import _C


class _GradMode:
    """Sets grad mode to ``self._mode`` inside a ``with`` block or a decorated function."""

    _mode = True

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(self._mode)
        return self

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


class no_grad(_GradMode):
    """Disables gradient recording: ``with adept.no_grad():`` or ``@adept.no_grad()``."""

    _mode = False


class enable_grad(_GradMode):
    """Enables gradient recording inside a no_grad region."""

    _mode = True


class set_grad_enabled(_GradMode):
    """``set_grad_enabled(mode)`` sets grad mode now; as a context manager it restores the old mode on exit."""

    def __init__(self, mode):
        self._prev = _C.is_grad_enabled()
        self._mode = bool(mode)
        _C._set_grad_enabled(self._mode)

    def __enter__(self):
        return self

    def __call__(self, func):
        _C._set_grad_enabled(self._prev)  # decorating must not change the mode of the caller

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(self._mode):
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return set_grad_enabled(self._mode)
