"""Adept: a tensor engine with autograd and PyTorch's API (``import adept as torch`` ports code).

The C++ core lives in the extension ``adept._C``; this package re-exports it and adds the
Pythonic pieces: grad-mode context managers/decorators, ``adept.autograd`` and ``adept.nn.functional``.
Like torch, ``adept.float``, ``adept.int`` and ``adept.bool`` are dtypes inside this namespace.
"""
import os as _os

# OpenMP threads that spin while they wait steal the cores from data-loader worker processes (and
# from anything else running): measured 5x slower training steps on a busy 2-core machine. Sleep
# instead, unless the user chose a policy. Read once when the OpenMP runtime loads (first import).
if "OMP_WAIT_POLICY" not in _os.environ and "GOMP_SPINCOUNT" not in _os.environ:
    _os.environ["OMP_WAIT_POLICY"] = "PASSIVE"

from . import _C  # noqa: E402
import atexit as _atexit  # noqa: E402
if hasattr(_C.vulkan, "wait_idle"):
    # A script that leaves on an exception may still have GPU work in flight; the driver's exit handlers must
    # not run under it (Python's atexit runs before them).
    _atexit.register(_C.vulkan.wait_idle)
from ._C import *  # noqa: F401,F403  (Tensor, dtypes, creation functions, ops, exception types)
from . import return_types  # noqa: F401
from .grad_mode import no_grad, enable_grad, set_grad_enabled  # noqa: F401
from . import autograd  # noqa: F401
from . import nn  # noqa: F401
from . import optim  # noqa: F401
from . import io  # noqa: F401
from . import data  # noqa: F401
from . import vision  # noqa: F401
from . import models  # noqa: F401
from . import utils  # noqa: F401
from . import amp  # noqa: F401
from . import onnx  # noqa: F401
from .amp import autocast, is_autocast_enabled, get_autocast_dtype  # noqa: F401  (torch.autocast)
from .io import save, load  # noqa: F401  (safetensors checkpoints)

__version__ = "0.1.0"


def _dtype_from_name(name):
    """Unpickles a dtype (see dtype.__reduce__)."""
    return getattr(_C, name)
