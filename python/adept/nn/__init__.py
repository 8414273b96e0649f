"""Neural-network building blocks: ``Module`` and the layer classes, ``functional``, ``init``, ``utils``."""
from . import functional  # noqa: F401
from . import init  # noqa: F401
from . import utils  # noqa: F401
from . import parallel  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import Module, Parameter  # noqa: F401
