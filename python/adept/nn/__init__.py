"""Neural-network building blocks (functional forms so far)."""
from . import functional  # noqa: F401
