"""``adept.utils.data``: the same module as ``adept.data`` (torch.utils.data's spelling)."""
from adept.data import *  # noqa: F401,F403
from adept.data import __all__  # noqa: F401
