"""pytest configuration for the PyTorch parity tests: the --device option and the adept module.

Run: PYTHONPATH=<build dir>/python /usr/bin/python3 -m pytest tests/python [--device vulkan:0]
"""
import importlib

import pytest


def pytest_addoption(parser):
    parser.addoption("--device", default="cpu",
                     help="adept device the parity table runs on (torch reference stays on the CPU)")
    parser.addoption("--parity-module", default="adept",
                     help="module tested against torch; 'torch' self-checks the op table itself")


@pytest.fixture(scope="session")
def device(request):
    return request.config.getoption("--device")


@pytest.fixture(scope="session")
def m(request):
    """The adept module. Failing to import it is an error of every test, never a silent skip."""
    name = request.config.getoption("--parity-module")
    try:
        return importlib.import_module(name)
    except ImportError as e:
        raise RuntimeError(f"cannot import adept ({e}); run with PYTHONPATH=<build dir>/python") from e
