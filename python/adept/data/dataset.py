"""Map-style datasets (torch.utils.data.Dataset and friends)."""
import bisect
import math
import warnings

from adept import _C

__all__ = ["Dataset", "IterableDataset", "ChainDataset", "TensorDataset", "Subset", "ConcatDataset", "CppDataset",
           "random_split"]

# Datasets implemented in C++ (e.g. adept.vision.DetectionDataset) derive from this base; their
# __getitem__ returns a dict of tensors.
CppDataset = _C._data.Dataset


class Dataset:
    """A map-style dataset: subclasses define ``__getitem__(index)`` and ``__len__()``."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """An iterable-style dataset: subclasses define ``__iter__``. With worker processes each
    worker iterates its own copy; use ``get_worker_info()`` in ``__iter__`` to split the stream."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other):
        return ChainDataset([self, other])


class ChainDataset(IterableDataset):
    """Several iterable datasets one after the other."""

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            yield from d

    def __len__(self):
        return sum(len(d) for d in self.datasets)


class TensorDataset(Dataset):
    """Samples are the i-th rows of the given tensors: ``(t0[i], t1[i], ...)``. All tensors must
    have the same size in dimension 0 (ValueError otherwise)."""

    def __init__(self, *tensors):
        if any(tensors[0].size(0) != t.size(0) for t in tensors):
            raise ValueError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


class ConcatDataset(Dataset):
    """Several datasets one after the other. ValueError for an empty list."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("datasets should not be an empty iterable")
        self.cumulative_sizes = []
        total = 0
        for d in self.datasets:
            total += len(d)
            self.cumulative_sizes.append(total)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which > 0 else 0
        return self.datasets[which][idx - start]


def random_split(dataset, lengths, generator=None):
    """Splits ``dataset`` into non-overlapping random Subsets of the given lengths, or of the given
    fractions of its length (floored, the remainder handed out one by one from the first split),
    as torch.utils.data.random_split. ValueError when the lengths do not add up."""
    import adept
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        n = len(dataset)
        subset_lengths = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError("Fraction at index {} is not between 0 and 1".format(i))
            subset_lengths.append(int(math.floor(n * frac)))
        for i in range(n - sum(subset_lengths)):
            subset_lengths[i % len(subset_lengths)] += 1
        for i, length in enumerate(subset_lengths):
            if length == 0:
                warnings.warn("Length of split at index {} is 0. This might result in an empty dataset.".format(i))
        lengths = subset_lengths
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    perm = adept.randperm(sum(lengths), generator=generator).tolist()
    out, offset = [], 0
    for length in lengths:
        out.append(Subset(dataset, perm[offset:offset + length]))
        offset += length
    return out
