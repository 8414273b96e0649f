"""ONNX import: ``adept.onnx.load(path_or_bytes)`` returns the model as an ``adept.nn.Module``.

The module evaluates the graph with Adept ops, so it runs on any device (``model.to("vulkan")``), under
autograd, and fine-tunes: floating-point initializers are parameters (buffers where an op reads them as
configuration or running statistics), registered under the ONNX names split at ``.`` so that
``state_dict()`` keys are the exporter's. ``model(*inputs)`` takes the graph inputs in order and returns
one tensor for a one-output graph, else a tuple in graph-output order. Opsets 9 to 25 of the default
domain; see the README's ONNX section for the op list. Export: ``adept.models.YOLO(...).export(format="onnx")``
(README, "ONNX export").

Errors: ``adept.IOError`` (an ``OSError``) naming the file for an unreadable, truncated or malformed
model; ``UnsupportedError`` (a ``NotImplementedError``) listing every unsupported op and element type of
the model at once (``.items``: ``(op_type, domain, opset, node, reason)`` tuples); at call time
``adept.ValueError`` / ``adept.DtypeError`` / ``adept.ShapeError`` naming the graph input for a wrong
number of inputs, dtype, rank or fixed dimension.
"""
import os

from . import _C

__all__ = ["load", "OnnxModel", "UnsupportedError"]

OnnxModel = _C._onnx.OnnxModel
OnnxModel.__module__ = "adept.onnx"
UnsupportedError = _C._onnx.UnsupportedError


def load(f):
    """Loads an ONNX model from a path (``str`` or ``os.PathLike``; external data files are read from its
    folder), the bytes of a ModelProto, or a binary file object (``read()`` returning bytes)."""
    if isinstance(f, (bytes, bytearray, memoryview)):
        return _C._onnx.load_bytes(bytes(f))
    if isinstance(f, (str, os.PathLike)):
        return _C._onnx.load(os.fsdecode(os.fspath(f)))
    if hasattr(f, "read"):
        data = f.read()
        if isinstance(data, (bytes, bytearray, memoryview)):
            return _C._onnx.load_bytes(bytes(data))
    raise TypeError(f"adept.onnx.load expects a path, bytes or a binary file object, got {type(f).__name__}")
