"""Samplers (torch.utils.data samplers). The index arithmetic lives in C++ (adept::data); these
classes give it torch's constructors and make it iterable. Each ``iter()`` is one pass; shuffling
samplers draw a new order per pass."""
from adept import _C

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
           "BatchSampler", "DistributedSampler"]


class Sampler:
    """Base class: subclasses define ``__iter__`` (and usually ``__len__``)."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class _CppSampler(Sampler):
    def __init__(self, impl):
        self._impl = impl
        self._pass = 0

    def __iter__(self):
        indices = self._impl.indices(self._pass)
        self._pass += 1
        return iter(indices)

    def __len__(self):
        return len(self._impl)


class SequentialSampler(_CppSampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source
        super().__init__(_C._data.SequentialSampler(len(data_source)))


def _seed_of(generator):
    if generator is None:
        return None
    import adept
    return int(adept.randint(0, 2 ** 62, (1,), generator=generator).item())


class RandomSampler(_CppSampler):
    """A random permutation per pass (``num_samples`` of them concatenated when larger than the
    dataset), or ``num_samples`` draws with ``replacement``. ``seed`` (or a ``generator``) makes
    the sequence of passes reproducible; otherwise each pass draws from the default generator."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None, seed=None):
        if not isinstance(replacement, bool):
            raise TypeError("replacement should be a boolean value, but got replacement={}".format(replacement))
        if num_samples is not None and (not isinstance(num_samples, int) or num_samples <= 0):
            raise ValueError("num_samples should be a positive integer value, but got num_samples={}".format(num_samples))
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        super().__init__(_C._data.RandomSampler(len(data_source), replacement, num_samples,
                                                seed if seed is not None else _seed_of(generator)))

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order per pass."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator
        self._order = RandomSampler(range(len(indices)), generator=generator)

    def __iter__(self):
        return (self.indices[i] for i in self._order)

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(_CppSampler):
    """``num_samples`` indices in [0, len(weights)) drawn with probability proportional to
    ``weights``, with or without ``replacement``; a new draw per pass (reproducible with ``seed`` or
    ``generator``). ValueError for bad arguments, as torch."""

    def __init__(self, weights, num_samples, replacement=True, generator=None, seed=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got num_samples={}".format(num_samples))
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value, but got replacement={}".format(replacement))
        import adept
        w = weights if isinstance(weights, adept.Tensor) else adept.tensor(weights, dtype=adept.float64)
        if w.dim() != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape {}".format(tuple(w.shape)))
        self.weights = w.to(adept.float64)
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator
        super().__init__(_C._data.WeightedRandomSampler(self.weights.tolist(), num_samples, replacement,
                                                        seed if seed is not None else _seed_of(generator)))


class BatchSampler(Sampler):
    """Groups the indices of ``sampler`` into lists of ``batch_size`` (the last one shorter unless
    ``drop_last``)."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, but got batch_size={}".format(batch_size))
        if not isinstance(drop_last, bool):
            raise ValueError("drop_last should be a boolean value, but got drop_last={}".format(drop_last))
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size


class DistributedSampler(_CppSampler):
    """The share of process ``rank`` among ``num_replicas``: the (shuffled with ``seed + epoch``)
    indices padded by repetition to a multiple of ``num_replicas`` (or cut, with ``drop_last``),
    then every ``num_replicas``-th from ``rank``. Call ``set_epoch`` before each epoch. ``num_replicas``
    and ``rank`` default to the world size and rank of adept.distributed's process group."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None or rank is None:
            from .. import distributed as dist
            if not dist.is_initialized():
                raise RuntimeError("Requires distributed package to be available: call "
                                   "adept.distributed.init_process_group() or pass num_replicas and rank")
            num_replicas = dist.get_world_size() if num_replicas is None else num_replicas
            rank = dist.get_rank() if rank is None else rank
        if rank >= num_replicas or rank < 0:
            raise ValueError("Invalid rank {}, rank should be in the interval [0, {}]".format(rank, num_replicas - 1))
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.shuffle = shuffle
        self.seed = seed
        self.drop_last = drop_last
        super().__init__(_C._data.DistributedSampler(len(dataset), num_replicas, rank, shuffle, seed, drop_last))
        self.num_samples = len(self._impl)
        self.total_size = self._impl.total_size

    @property
    def epoch(self):
        return self._impl.epoch

    def set_epoch(self, epoch):
        self._impl.set_epoch(epoch)
