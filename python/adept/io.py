"""Checkpoint files in the safetensors format, readable by the ``safetensors`` package and PyTorch.

``save_file`` / ``load_file`` follow ``safetensors.torch``; ``adept.save`` / ``adept.load`` are the
``torch.save`` / ``torch.load`` spelling for a state dict (a flat dict of tensors). Unlike
``torch.save`` nothing is pickled: a file holds named tensors plus ``{str: str}`` metadata (put
epochs, configs, RNG state there as strings, e.g. JSON). Writes are atomic: the file is replaced
only once the new one is completely on disk.

Errors: ``TypeError`` for arguments of the wrong type; ``adept.ValueError`` for an empty or duplicate
name; ``adept.IOError`` (an ``OSError``) naming the file for a file that cannot be written or read
or is malformed; ``adept.DtypeError`` (a ``TypeError``) for a dtype Adept does not support.
"""
import os
from collections.abc import Mapping

from . import _C

__all__ = ["save_file", "load_file", "load_metadata", "save", "load"]


def _path(filename):
    return os.fsdecode(os.fspath(filename))


def _check_str_dict(d, what, value_type, value_name):
    if not isinstance(d, Mapping):
        raise TypeError(f"{what} must be a dict, got {type(d).__name__}")
    for k, v in d.items():
        if not isinstance(k, str):
            raise TypeError(f"{what}: keys must be str, got {type(k).__name__} ({k!r})")
        if not isinstance(v, value_type):
            raise TypeError(f"{what}: value of {k!r} must be {value_name}, got {type(v).__name__}")


def save_file(tensors, filename, metadata=None):
    """Writes ``tensors`` ({name: adept.Tensor}, any device and layout) and ``metadata`` ({str: str})
    to ``filename`` atomically (temp file, fsync, rename). Tensors are stored in the dict's order.
    As ``safetensors.torch.save_file``."""
    _check_str_dict(tensors, "save_file: tensors", _C.Tensor, "an adept.Tensor")
    if metadata is None:
        metadata = {}
    _check_str_dict(metadata, "save_file: metadata", str, "str")
    _C._io.save_file(list(tensors.items()), _path(filename), dict(metadata))


def load_file(filename, device="cpu"):
    """Reads a safetensors file (ours, the ``safetensors`` package's or any conforming writer's) into
    a dict {name: tensor} on ``device``, in the order of the tensors' data in the file.
    As ``safetensors.torch.load_file``."""
    tensors, _ = _C._io.load_file(_path(filename), device)
    return dict(tensors)


def load_metadata(filename):
    """The ``__metadata__`` dict {str: str} of a safetensors file (empty when absent), read without
    its tensor data (as ``safetensors.safe_open(filename, "np").metadata()``)."""
    return _C._io.load_metadata(_path(filename))


def save(obj, f, metadata=None):
    """Saves a state dict ({name: tensor}, e.g. ``module.state_dict()``) to the file ``f`` as
    safetensors, with optional ``{str: str}`` metadata. Other objects raise TypeError: Adept does
    not pickle."""
    if not isinstance(obj, Mapping):
        raise TypeError(f"adept.save: expected a state dict {{str: Tensor}}, got {type(obj).__name__} "
                        "(checkpoints are safetensors files: tensors plus str metadata)")
    save_file(obj, f, metadata)


def load(f, map_location=None):
    """Loads a state dict saved by :func:`save` (or any safetensors file) onto ``map_location``
    (a device or device string; default CPU). Use :func:`load_metadata` for the metadata."""
    return load_file(f, "cpu" if map_location is None else map_location)
