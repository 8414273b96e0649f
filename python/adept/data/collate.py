"""default_collate / default_convert with torch's rules for Python structures."""
import collections.abc
import numbers

import adept

__all__ = ["default_collate", "default_convert"]

_ERROR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}")


def _is_ndarray(x):
    return type(x).__module__ == "numpy" and type(x).__name__ in ("ndarray", "memmap")


def default_convert(data):
    """Converts NumPy arrays (also inside dicts, lists and tuples) to tensors, leaving the rest."""
    if isinstance(data, adept.Tensor):
        return data
    if _is_ndarray(data):
        return adept.from_numpy(data) if data.dtype.kind in "biuf" else data
    if isinstance(data, collections.abc.Mapping):
        return type(data)({k: default_convert(v) for k, v in data.items()}) if not isinstance(data, dict) \
            else {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, (list, tuple)):
        return type(data)(default_convert(d) for d in data)
    return data


def default_collate(batch):
    """Puts the samples of a batch together: tensors are stacked along a new dimension 0, NumPy
    arrays and numbers become tensors (float -> float64, int -> int64, bool -> bool), strings stay
    a list, and dicts, named tuples, tuples and lists are collated element by element. TypeError
    for other types; RuntimeError when the sequences of a batch differ in length."""
    elem = batch[0]
    if isinstance(elem, adept.Tensor):
        return adept.stack(list(batch), 0)
    if _is_ndarray(elem):
        if elem.dtype.kind not in "biuf":
            raise TypeError(_ERROR.format(elem.dtype))
        return adept.stack([adept.from_numpy(b) for b in batch], 0)
    if type(elem).__module__ == "numpy" and hasattr(elem, "dtype"):  # NumPy scalar
        return adept.tensor([b.item() for b in batch])
    if isinstance(elem, bool):
        return adept.tensor(list(batch), dtype=adept.bool)
    if isinstance(elem, float):
        return adept.tensor(list(batch), dtype=adept.float64)
    if isinstance(elem, numbers.Integral):
        return adept.tensor(list(batch), dtype=adept.int64)
    if isinstance(elem, (str, bytes)):
        return list(batch)
    if isinstance(elem, collections.abc.Mapping):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
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
