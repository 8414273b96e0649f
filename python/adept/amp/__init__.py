"""Automatic mixed precision (torch.amp): ``autocast`` regions and ``GradScaler``.

Inside ``with adept.autocast("vulkan"):`` convolutions and matrix products on Vulkan tensors run in
float16 (bfloat16 on the CPU by default), ops that need range (softmax, log_softmax, norms, sum,
exp/log/pow, the losses) in float32, everything else in its inputs' dtype; float64 is never cast.
Backward runs in the forward's dtypes. ``GradScaler`` scales the loss so float16 gradients keep their
small values, unscales the gradients before the step, skips steps with inf / NaN gradients and adapts
the scale (Micikevicius et al., "Mixed Precision Training", 2018). The policy is in C++
(include/adept/ops/autocast.h); see there for the op lists.
"""
import functools
import warnings

from .. import _C

__all__ = ["autocast", "GradScaler", "is_autocast_enabled", "get_autocast_dtype"]

_amp = _C._amp


def is_autocast_enabled(device_type="vulkan"):
    """Whether an autocast region is on for ``device_type`` ('cpu' or 'vulkan') in this thread."""
    return _amp.is_autocast_enabled(device_type)


def get_autocast_dtype(device_type="vulkan"):
    """The low-precision dtype of ``device_type``'s regions (float16 on Vulkan, bfloat16 on the CPU)."""
    return _amp.get_autocast_dtype(device_type)


class autocast:
    """Context manager / decorator: ``torch.autocast(device_type, dtype=None, enabled=True,
    cache_enabled=None)``.

    ``device_type`` is 'vulkan' or 'cpu' (RuntimeError otherwise, as torch); ``dtype`` float16 or
    bfloat16, default the device type's autocast dtype; another dtype warns and disables the region,
    as torch does. ``cache_enabled`` is accepted for compatibility: Adept does not cache casts of
    weights (each op casts its inputs), which changes speed, not results. Regions nest; leaving one
    restores the state it found. The state is per thread."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"autocast: expected device_type to be a str ('cpu' or 'vulkan'), got {device_type!r}")
        self.device = device_type
        _amp.is_autocast_enabled(device_type)  # validates the device type now
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self._enabled = bool(enabled)
        from .. import float16, bfloat16
        if self.fast_dtype not in (float16, bfloat16):
            warnings.warn(f"In {device_type} autocast, but the target dtype {self.fast_dtype} is not supported "
                          "(float16 and bfloat16 are). Disabling autocast.")
            self.fast_dtype = get_autocast_dtype(device_type)
            self._enabled = False
        self._saved = []

    def __enter__(self):
        self._saved.append((_amp.is_autocast_enabled(self.device), _amp.get_autocast_dtype(self.device)))
        _amp.set_autocast_dtype(self.device, self.fast_dtype)
        _amp.set_autocast_enabled(self.device, self._enabled)
        return self

    def __exit__(self, exc_type, exc, tb):
        enabled, dtype = self._saved.pop()
        _amp.set_autocast_enabled(self.device, enabled)
        _amp.set_autocast_dtype(self.device, dtype)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with autocast(self.device, self.fast_dtype, self._enabled):
                return fn(*args, **kwargs)
        return wrapper


class GradScaler:
    """Dynamic loss scaling: ``torch.amp.GradScaler(device='vulkan', init_scale=2.0**16,
    growth_factor=2.0, backoff_factor=0.5, growth_interval=2000, enabled=True)``.

    ``scaler.scale(loss).backward(); scaler.unscale_(opt)`` (optional, e.g. before clipping);
    ``scaler.step(opt); scaler.update()``. step() skips ``opt.step()`` when a gradient is inf or NaN
    and update() then multiplies the scale by backoff_factor; growth_interval finite steps in a row
    multiply it by growth_factor. Disabled, scale() returns its input and step() is opt.step()."""

    def __init__(self, device="vulkan", init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = str(device)
        self._impl = _amp.GradScaler(float(init_scale), float(growth_factor), float(backoff_factor),
                                     int(growth_interval), bool(enabled))

    def scale(self, outputs):
        """outputs * scale: a tensor, or the tensors of a list / tuple (recursively, same container type)."""
        if isinstance(outputs, _C.Tensor):
            return self._impl.scale(outputs)
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        raise ValueError("GradScaler.scale: outputs must be a Tensor or an iterable of Tensors")

    def unscale_(self, optimizer):
        if self._impl.is_enabled() and not isinstance(optimizer, _C._optim.Optimizer):
            raise TypeError(f"GradScaler.unscale_: expected an adept.optim optimizer, got {type(optimizer).__name__}")
        self._impl.unscale_(optimizer)

    def step(self, optimizer, *args, **kwargs):
        """``optimizer.step(*args, **kwargs)`` unless a gradient is inf / NaN (unscaling first unless
        unscale_ ran); returns what it returns, or None when the step was skipped. Closures are not
        supported while enabled. ``optimizer`` is an adept.optim optimizer (its step may be overridden)."""
        if not self._impl.is_enabled():
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("GradScaler.step: closure use is not supported while GradScaler is enabled")
        if not isinstance(optimizer, _C._optim.Optimizer):
            raise TypeError(f"GradScaler.step: expected an adept.optim optimizer, got {type(optimizer).__name__}")
        ret = optimizer.step(*args, **kwargs) if self._impl._step_begin(optimizer) else None
        self._impl._step_end(optimizer)
        return ret

    def update(self, new_scale=None):
        if new_scale is not None and isinstance(new_scale, _C.Tensor):
            if new_scale.numel() != 1:
                raise ValueError("GradScaler.update: new_scale should be a float or a 1-element tensor")
            new_scale = new_scale.item()
        self._impl.update(None if new_scale is None else float(new_scale))

    def get_scale(self):
        return self._impl.get_scale()

    def get_growth_factor(self):
        return self._impl.get_growth_factor()

    def set_growth_factor(self, new_factor):
        self._impl.set_growth_factor(float(new_factor))

    def get_backoff_factor(self):
        return self._impl.get_backoff_factor()

    def set_backoff_factor(self, new_factor):
        self._impl.set_backoff_factor(float(new_factor))

    def get_growth_interval(self):
        return self._impl.get_growth_interval()

    def set_growth_interval(self, new_interval):
        self._impl.set_growth_interval(int(new_interval))

    def _get_growth_tracker(self):
        return self._impl.get_growth_tracker()

    def is_enabled(self):
        return self._impl.is_enabled()

    def state_dict(self):
        """{'scale', 'growth_factor', 'backoff_factor', 'growth_interval', '_growth_tracker'} ({} when disabled)."""
        return self._impl.state_dict()

    def load_state_dict(self, state_dict):
        self._impl.load_state_dict(dict(state_dict))
