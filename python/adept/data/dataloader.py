"""DataLoader (torch.utils.data.DataLoader): batches in the main process or in worker processes.

Workers are forked by the C++ worker pool (adept::data::detail::WorkerPool) with the GIL held;
each runs this module's ``_produce`` on its batches and returns the collated batch through POSIX
shared memory: its tensors travel as shared-memory views, the rest of its structure pickled.
Randomness inside ``__getitem__`` (Python's ``random``, NumPy's global generator, Adept's default
generator, ``sample_seed()``) is seeded per sample from (seed, epoch, index), so a batch does not
depend on ``num_workers``."""
import hashlib
import pickle
import random
import sys

import adept
from adept import _C

import itertools

from .collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info", "WorkerInfo"]

_STRUCTURE = "__structure__"
_END = "__end__"  # an iterable dataset's worker has no more batches this pass


class WorkerInfo:
    """What ``get_worker_info()`` returns inside a worker process."""

    def __init__(self, id, num_workers, seed, dataset):
        self.id, self.num_workers, self.seed, self.dataset = id, num_workers, seed, dataset

    def __repr__(self):
        return "WorkerInfo(id={}, num_workers={}, seed={}, dataset={!r})".format(
            self.id, self.num_workers, self.seed, self.dataset)


_worker_info = None


def get_worker_info():
    """The WorkerInfo of this worker process, or None in the main process."""
    return _worker_info


class _Ref:
    """Stands for the i-th tensor of a batch in its pickled structure."""
    __slots__ = ("i",)

    def __init__(self, i):
        self.i = i

    def __reduce__(self):
        return (_Ref, (self.i,))


class _NumpyRef(_Ref):
    """Stands for a NumPy array that travelled as the i-th tensor (returned as an array again)."""
    __slots__ = ()

    def __reduce__(self):
        return (_NumpyRef, (self.i,))


def _is_numeric_ndarray(obj):
    return type(obj).__module__ == "numpy" and type(obj).__name__ == "ndarray" and obj.dtype.kind in "biuf" \
        and obj.dtype.byteorder in "=|" and obj.dtype.itemsize <= 8 and obj.dtype.name != "float128"


def _flatten(obj, tensors):
    """Replaces the tensors (and numeric NumPy arrays) in ``obj`` by references into ``tensors``,
    so they cross processes through shared memory instead of the pickle."""
    if isinstance(obj, adept.Tensor):
        tensors.append(obj.detach().contiguous())
        return _Ref(len(tensors) - 1)
    if _is_numeric_ndarray(obj):
        try:
            tensors.append(adept.from_numpy(sys.modules["numpy"].ascontiguousarray(obj)))
            return _NumpyRef(len(tensors) - 1)
        except Exception:  # a dtype Adept lacks (uint16 ...): pickled instead
            return obj
    if isinstance(obj, dict):
        return type(obj)((k, _flatten(v, tensors)) for k, v in obj.items())
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_flatten(v, tensors) for v in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_flatten(v, tensors) for v in obj)
    return obj


def _unflatten(obj, tensors):
    if isinstance(obj, _NumpyRef):
        return tensors[obj.i].numpy()
    if isinstance(obj, _Ref):
        return tensors[obj.i]
    if isinstance(obj, dict):
        return type(obj)((k, _unflatten(v, tensors)) for k, v in obj.items())
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_unflatten(v, tensors) for v in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_unflatten(v, tensors) for v in obj)
    return obj


def _decode(out):
    """The batch of a worker pool result. Empties ``out``, so that only the batch refers to its
    tensors: the segment is free for reuse as soon as the caller drops the batch."""
    structure = pickle.loads(bytes(memoryview(out.pop(_STRUCTURE))))
    tensors = [out.pop(str(i)) for i in range(len(out))]
    return _unflatten(structure, tensors)


def _seed_sample(seed):
    random.seed(seed)
    adept.manual_seed(seed)
    np = sys.modules.get("numpy")
    if np is not None:
        np.random.seed(seed % (2 ** 32))


_INT64 = (-2 ** 63, 2 ** 63 - 1)


def _is_int64(i):
    return isinstance(i, int) and not isinstance(i, bool) and _INT64[0] <= i <= _INT64[1]


def _key_number(key):
    """A stable int64 for a dataset key that is not an integer (str, tuple ...), to seed its sample."""
    return int.from_bytes(hashlib.blake2b(repr(key).encode(), digest_size=8).digest(), "little") >> 1


def _fetch(dataset, indices, collate_fn, auto_collation, worker_id, num_workers, seed, epoch):
    """Loads and collates one batch, each sample under its own seed."""
    samples = []
    for i in indices:
        integral = _is_int64(i)
        number = i if integral else _key_number(i)
        _C._data._set_worker_info(worker_id, num_workers, seed, epoch, number if integral else -1)
        _seed_sample(_C._data._mix_seed(seed, epoch, number))
        samples.append(dataset[i])
    _C._data._set_worker_info(worker_id, num_workers, seed, epoch, -1)
    batch = collate_fn(samples) if auto_collation else collate_fn(samples[0])
    _C._data._clear_worker_info()
    return batch


class _RngGuard:
    """Keeps the main process's generators as they were around in-process loading."""

    def __enter__(self):
        np = sys.modules.get("numpy")
        self.state = (random.getstate(), adept.get_rng_state(), np.random.get_state() if np is not None else None)

    def __exit__(self, *exc):
        random.setstate(self.state[0])
        adept.set_rng_state(self.state[1])
        if self.state[2] is not None:
            sys.modules["numpy"].random.set_state(self.state[2])
        _C._data._clear_worker_info()


class _KeyErrorMessage(str):
    """str(KeyError(m)) is repr(m): this message reprs as itself, so its lines stay readable (torch's trick)."""

    def __repr__(self):
        return self


def _reraise(err):
    """Raises a worker's error as its own exception type when possible (as torch does)."""
    message, worker_id, index, type_name, original, payload = err.args
    where = " while loading sample {}".format(index) if index >= 0 else ""
    text = message if not type_name else "Caught {} in DataLoader worker process {}{}.\nOriginal {}".format(
        type_name, worker_id, where, original)
    exc_type = None
    if payload:
        try:
            exc_type = pickle.loads(payload)
        except Exception:
            exc_type = None
    elif type_name.startswith("adept::"):  # a C++ error: its Python class (adept.OutOfMemoryError ...)
        exc_type = getattr(adept, type_name[len("adept::"):], None)
    # KeyboardInterrupt / SystemExit from a worker must not pass for the user's Ctrl-C or exit.
    if isinstance(exc_type, type) and issubclass(exc_type, Exception):
        try:
            new = exc_type(_KeyErrorMessage(text) if issubclass(exc_type, KeyError) else text)
        except Exception:
            new = None
        if new is not None:
            raise new from None
    raise RuntimeError(text) from None


class _InfiniteConstantSampler(Sampler):
    """The sampler of an iterable dataset: None forever (the dataset decides when to stop)."""

    def __iter__(self):
        return itertools.repeat(None)


class _IterableFetcher:
    """Batches from one process's iterator over an iterable dataset, restarted each epoch."""

    def __init__(self, dataset, collate_fn, batch_size, drop_last):
        self.dataset, self.collate_fn, self.batch_size, self.drop_last = dataset, collate_fn, batch_size, drop_last
        self.epoch, self.it = None, None

    def next_batch(self, epoch):
        """The next batch, or None when this process's stream is exhausted."""
        if epoch != self.epoch:
            self.epoch, self.it = epoch, iter(self.dataset)
        if self.it is None:
            return None
        if self.batch_size is None:
            item = next(self.it, _END)
            if item is _END:
                self.it = None
                return None
            return self.collate_fn(item)
        items = list(itertools.islice(self.it, self.batch_size))
        if len(items) < self.batch_size:
            self.it = None
            if not items or self.drop_last:
                return None
        return self.collate_fn(items)


class _LoaderIterator:
    """The iterator of one pass (has len(), as torch's)."""

    def __init__(self, loader, batches):
        self._loader, self._batches = loader, batches

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._batches)

    def __len__(self):
        return len(self._loader)

    def close(self):
        self._batches.close()


class DataLoader:
    """Iterates over ``dataset`` in batches (torch's arguments and errors). ``num_workers > 0``
    loads in that many worker processes; the batches, their order and their random augmentation
    are the same for any ``num_workers``. ``seed`` fixes shuffling and per-sample seeds (default:
    drawn from Adept's default generator when the loader is built). An ``IterableDataset`` is
    iterated by each worker (split the stream with ``get_worker_info()``), batches taken from the
    workers in turn. ``pin_memory`` is accepted and has no effect on the CPU; workers are always
    forked."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", seed=None):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        if prefetch_factor is not None and prefetch_factor < 1:
            raise ValueError("prefetch_factor option should be >= 1")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if multiprocessing_context not in (None, "fork"):
            raise ValueError("multiprocessing_context: Adept's workers are always forked, got {!r}".format(
                multiprocessing_context))
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            for name, value in (("shuffle", shuffle), ("sampler", sampler), ("batch_sampler", batch_sampler)):
                if value not in (None, False):
                    raise ValueError("DataLoader with IterableDataset: expected unspecified {} option, but got "
                                     "{}={}".format(name, name, value))
            sampler = _InfiniteConstantSampler()
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if seed is None:
            seed = int(adept.randint(0, 2 ** 62, (1,), generator=generator).item())
        self.seed = seed
        if sampler is None:
            sampler = RandomSampler(dataset, seed=_C._data._mix_seed(seed, 0, -2)) if shuffle \
                else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.persistent_workers = persistent_workers
        self.generator = generator
        self.multiprocessing_context = multiprocessing_context
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if batch_sampler is not None else default_convert)
        self.epoch = 0
        self._pool = None

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    def _index_batches(self):
        if self._auto_collation:
            return iter(self.batch_sampler)
        return ([i] for i in self.sampler)

    def _worker_tasks(self):
        """The index batches as the worker pool takes them: int64 lists, or pickled other keys."""
        for batch in self._index_batches():
            batch = list(batch)
            yield batch if all(_is_int64(i) for i in batch) else pickle.dumps(batch)

    def reset(self):
        """Stops the persistent workers now; the next pass forks new ones, which see the dataset's
        current state (call it after changing the dataset, e.g. DetectionDataset.close_mosaic(),
        as Ultralytics' trainer does)."""
        self._shutdown()

    def __len__(self):
        if self._iterable:
            n = len(self.dataset)  # TypeError when the dataset has no length, as in torch
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        return len(self.batch_sampler) if self._auto_collation else len(self.sampler)

    def __iter__(self):
        epoch = self.epoch
        self.epoch += 1
        batches = self._iter_in_process(epoch) if self.num_workers == 0 else self._iter_workers(epoch)
        return _LoaderIterator(self, batches)

    def _iter_in_process(self, epoch):
        if self._iterable:
            fetcher = _IterableFetcher(self.dataset, self.collate_fn, self.batch_size, self.drop_last)
            while (batch := fetcher.next_batch(epoch)) is not None:
                yield batch
            return
        for indices in self._index_batches():
            with _RngGuard():
                batch = _fetch(self.dataset, indices, self.collate_fn, self._auto_collation, -1, 0, self.seed, epoch)
            yield batch

    def _start_pool(self):
        dataset, collate_fn, auto = self.dataset, self.collate_fn, self._auto_collation
        num_workers, seed, user_init = self.num_workers, self.seed, self.worker_init_fn

        def init(worker_id):
            global _worker_info
            # torch's convention: each worker's seed is the base seed + its id
            _worker_info = WorkerInfo(worker_id, num_workers, (seed + worker_id) % 2 ** 64, dataset)
            _seed_sample(_C._data._mix_seed(seed, -1, worker_id))
            if user_init is not None:
                user_init(worker_id)

        fetcher = _IterableFetcher(dataset, collate_fn, self.batch_size, self.drop_last) if self._iterable else None

        def produce(indices, epoch, worker_id):
            if isinstance(indices, bytes):  # keys that are not int64, pickled by _worker_tasks
                indices = pickle.loads(indices)
            if fetcher is not None:
                batch = fetcher.next_batch(epoch)
                if batch is None:
                    return {_END: adept.zeros(0)}
            else:
                batch = _fetch(dataset, indices, collate_fn, auto, worker_id, num_workers, seed, epoch)
            tensors = []
            structure = _flatten(batch, tensors)
            out = {str(i): t for i, t in enumerate(tensors)}
            out[_STRUCTURE] = _C._data._bytes_to_tensor(pickle.dumps(structure))
            return out

        return _C._data._WorkerPool(produce, num_workers, self.prefetch_factor, float(self.timeout), seed, init)

    def _iter_workers(self, epoch):
        # Without persistent_workers each pass has its own pool, so two live iterators of one
        # loader (zip(loader, loader)) do not share (and stop) each other's workers.
        if not self.persistent_workers:
            pool = self._start_pool()
        else:
            if self._pool is None:
                self._pool = self._start_pool()
            pool = self._pool
        try:
            # An iterable dataset's workers get empty tasks until each has said it is exhausted.
            pool.start_pass(itertools.repeat([]) if self._iterable else self._worker_tasks(), epoch)
            exhausted = set()
            seq = -1
            while True:
                try:
                    out = pool.next()
                except _C._data.WorkerError as err:
                    self._shutdown(pool)
                    _reraise(err)
                if out is None:
                    break
                seq += 1
                if _END in out:
                    exhausted.add(seq % self.num_workers)
                    if len(exhausted) == self.num_workers:
                        break
                    continue
                yield _decode(out)
        except GeneratorExit:
            # The loop stopped early (break, an error in the loop body, the iterator dropped).
            # Persistent workers stay, as in torch: the next pass drops the batches still queued.
            if not self.persistent_workers:
                self._shutdown(pool)
            raise
        except BaseException:
            self._shutdown(pool)  # Ctrl-C while waiting for a batch, or another error here: workers go now
            raise
        if not self.persistent_workers:
            self._shutdown(pool)

    def _shutdown(self, pool=None):
        """Stops ``pool`` (default: the persistent one)."""
        pool = self._pool if pool is None else pool
        if pool is not None:
            pool.shutdown()
        if pool is self._pool:
            self._pool = None

    def __del__(self):
        try:
            self._shutdown()
        except Exception:
            pass
