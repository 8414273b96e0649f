"""default_collate / default_convert with torch's rules for Python structures."""
import collections.abc
import numbers
import sys

import adept

__all__ = ["default_collate", "default_convert"]

_ERROR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}")


def _is_ndarray(x):
    return type(x).__module__ == "numpy" and type(x).__name__ in ("ndarray", "memmap")


def _mapping_like(elem, items):
    """``items`` (a dict) as the mapping type of ``elem``, e.g. an OrderedDict stays one (torch's rule);
    types that cannot be built from a dict (defaultdict) give the plain dict."""
    try:
        return type(elem)(items)
    except TypeError:
        return items


def _is_numpy_scalar(x):
    return type(x).__module__ == "numpy" and hasattr(x, "dtype") and not isinstance(x, (str, bytes))


def default_convert(data):
    """Converts NumPy arrays and scalars (also inside dicts, lists and tuples) to tensors, leaving the
    rest; as torch, a plain tuple becomes a list."""
    if isinstance(data, adept.Tensor):
        return data
    if _is_ndarray(data) or _is_numpy_scalar(data):
        return adept.from_numpy(sys.modules["numpy"].asarray(data)) if data.dtype.kind in "biuf" else data
    if isinstance(data, collections.abc.Mapping):
        return _mapping_like(data, {k: default_convert(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        converted = [default_convert(d) for d in data]
        try:
            return type(data)(converted)
        except TypeError:  # e.g. range cannot be built from a list
            return converted
    return data


def default_collate(batch):
    """Puts the samples of a batch together: tensors are stacked along a new dimension 0, NumPy
    arrays and scalars become tensors of their dtype, numbers become tensors (float -> float64,
    int -> int64, bool -> bool), strings stay the sequence they came in, and mappings (keeping
    their type), named tuples, tuples (-> lists) and lists are collated element by element.
    TypeError for other types; RuntimeError when the sequences of a batch differ in length."""
    elem = batch[0]
    if isinstance(elem, adept.Tensor):
        return adept.stack(list(batch), 0)
    if _is_ndarray(elem):
        if elem.dtype.kind not in "biuf":
            raise TypeError(_ERROR.format(elem.dtype))
        return adept.stack([adept.from_numpy(b) for b in batch], 0)
    if _is_numpy_scalar(elem):
        # NumPy scalars keep their dtype (np.float64 -> float64, np.int32 -> int32), as in torch.
        return adept.from_numpy(sys.modules["numpy"].asarray(list(batch)))
    if isinstance(elem, bool):
        return adept.tensor(list(batch), dtype=adept.bool)
    if isinstance(elem, float):
        return adept.tensor(list(batch), dtype=adept.float64)
    if isinstance(elem, numbers.Integral):
        return adept.tensor(list(batch), dtype=adept.int64)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return _mapping_like(elem, {key: default_collate([d[key] for d in batch]) for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(samples) for samples in transposed]
        try:
            return type(elem)([default_collate(samples) for samples in transposed])
        except TypeError:
            return [default_collate(samples) for samples in transposed]
    raise TypeError(_ERROR.format(type(elem)))
