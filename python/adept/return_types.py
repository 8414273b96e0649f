"""Named tuples returned by ops with (values, indices) results, e.g. ``adept.max(x, dim=1)`` (torch.return_types)."""
import collections


def _repr(self):
    return f"adept.return_types.{type(self).__name__}(\nvalues={self.values!r},\nindices={self.indices!r})"


def _make(name, values, indices):
    """Builds ``return_types.<name>(values, indices)``, creating the type on first use (called from C++)."""
    cls = globals().get(name)
    if cls is None:
        base = collections.namedtuple(name, ["values", "indices"])
        cls = type(name, (base,), {"__slots__": (), "__module__": __name__, "__repr__": _repr})
        globals()[name] = cls
    return cls(values, indices)
