"""Checkpoint files in the safetensors format, readable by the ``safetensors`` package and PyTorch.

``save_file`` / ``load_file`` follow ``safetensors.torch``; ``adept.save`` / ``adept.load`` are the
``torch.save`` / ``torch.load`` spelling for a state dict (a flat dict of tensors) or nested state
(``optimizer.state_dict()``, a checkpoint dict bundling model, optimizer and epoch). Unlike
``torch.save`` nothing is pickled: a file holds named tensors plus ``{str: str}`` metadata (put
epochs, configs, RNG state there as strings, e.g. JSON). Writes are atomic: the file is replaced
only once the new one is completely on disk.

Errors: ``TypeError`` for arguments of the wrong type; ``adept.ValueError`` for an empty or duplicate
name; ``adept.IOError`` (an ``OSError``) naming the file for a file that cannot be written or read
or is malformed; ``adept.DtypeError`` (a ``TypeError``) for a dtype Adept does not support.
"""
import json
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


_TREE_KEY = "adept.tree"


def _is_flat(obj):
    return isinstance(obj, Mapping) and all(isinstance(k, str) and isinstance(v, _C.Tensor) for k, v in obj.items())


def _flatten(obj, name, tensors):
    """A JSON skeleton of ``obj`` with each tensor moved to ``tensors`` under its dotted path."""
    if isinstance(obj, _C.Tensor):
        tensors[name] = obj
        return {"tensor": name}
    if isinstance(obj, Mapping):
        items = []
        for k, v in obj.items():
            if not isinstance(k, (str, int)) or isinstance(k, bool):
                raise TypeError(f"adept.save: keys must be str or int, got {type(k).__name__} at '{name}'")
            items.append([k, _flatten(v, f"{name}.{k}" if name else str(k), tensors)])
        return {"dict": items}
    if isinstance(obj, (list, tuple)):
        kind = "list" if isinstance(obj, list) else "tuple"
        return {kind: [_flatten(v, f"{name}.{i}" if name else str(i), tensors) for i, v in enumerate(obj)]}
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return {"value": obj}
    raise TypeError(f"adept.save: cannot store a {type(obj).__name__} at '{name}' (tensors, numbers, str, None, "
                    "dicts, lists and tuples only: Adept does not pickle)")


def _unflatten(node, tensors):
    (kind, v), = node.items()
    if kind == "tensor":
        return tensors[v]
    if kind == "dict":
        return {k: _unflatten(x, tensors) for k, x in v}
    if kind in ("list", "tuple"):
        items = [_unflatten(x, tensors) for x in v]
        return items if kind == "list" else tuple(items)
    return v


def save(obj, f, metadata=None):
    """Saves ``obj`` to the file ``f`` as safetensors, with optional ``{str: str}`` metadata.

    A state dict {str: Tensor} (``module.state_dict()``) is stored as is, readable by any safetensors
    reader. Nested state — ``optimizer.state_dict()``, a scheduler's, or a checkpoint dict bundling
    several — is stored as its tensors under dotted paths (``optimizer.state.0.exp_avg``) plus the
    structure and the numbers/strings as JSON in the metadata key ``adept.tree``; :func:`load` rebuilds
    it. Other objects raise TypeError: Adept does not pickle."""
    if _is_flat(obj):
        save_file(obj, f, metadata)
        return
    if not isinstance(obj, Mapping):
        raise TypeError(f"adept.save: expected a state dict (a dict of tensors, or of nested dicts/lists of tensors "
                        f"and numbers), got "
                        f"{type(obj).__name__} (checkpoints are safetensors files: tensors plus str metadata)")
    tensors = {}
    tree = _flatten(obj, "", tensors)
    meta = dict(metadata or {})
    if _TREE_KEY in meta:
        raise ValueError(f"adept.save: the metadata key '{_TREE_KEY}' is reserved")
    meta[_TREE_KEY] = json.dumps(tree)
    save_file(tensors, f, meta)


def load(f, map_location=None):
    """Loads what :func:`save` wrote (or any safetensors file, as a {name: tensor} dict) onto
    ``map_location`` (a device or device string; default CPU). Use :func:`load_metadata` for the metadata."""
    tensors = load_file(f, "cpu" if map_location is None else map_location)
    tree = load_metadata(f).get(_TREE_KEY)
    if tree is None:
        return tensors
    try:
        return _unflatten(json.loads(tree), tensors)
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise _C.IOError(f"adept.load: {_path(f)}: the '{_TREE_KEY}' metadata is corrupt ({e})") from e
