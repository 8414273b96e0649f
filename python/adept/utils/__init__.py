"""torch.utils-style aliases: ``adept.utils.data`` is ``adept.data``."""
from adept import data  # noqa: F401
