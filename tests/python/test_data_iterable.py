"""Iterable-style datasets through adept.data.DataLoader, compared with torch.utils.data."""
import math
import os
import glob

import pytest
import torch.utils.data as tud

import adept.data as aud


def make_range_dataset(lib):
    """torch's documented example: each worker takes one contiguous share of [start, end)."""
    class RangeDataset(lib.IterableDataset):
        def __init__(self, start, end):
            self.start, self.end = start, end

        def __iter__(self):
            w = lib.get_worker_info()
            if w is None:
                return iter(range(self.start, self.end))
            per = int(math.ceil((self.end - self.start) / float(w.num_workers)))
            lo = self.start + w.id * per
            return iter(range(lo, min(lo + per, self.end)))

        def __len__(self):
            return self.end - self.start
    return RangeDataset


def as_lists(loader):
    return [b.tolist() if hasattr(b, "tolist") else b for b in loader]


@pytest.mark.parametrize("num_workers", [0, 1, 2, 3])
@pytest.mark.parametrize("batch_size,drop_last", [(1, False), (3, False), (3, True), (None, False)])
def test_batches_match_torch(num_workers, batch_size, drop_last):
    kw = dict(batch_size=batch_size, drop_last=drop_last, num_workers=num_workers)
    ours = aud.DataLoader(make_range_dataset(aud)(3, 17), **kw)
    theirs = tud.DataLoader(make_range_dataset(tud)(3, 17), **kw)
    assert as_lists(ours) == as_lists(theirs)
    assert len(ours) == len(theirs)
    assert not glob.glob("/dev/shm/adept.{}.*".format(os.getpid()))


def test_persistent_workers_restart_the_stream_each_epoch():
    loader = aud.DataLoader(make_range_dataset(aud)(0, 10), batch_size=4, num_workers=2, persistent_workers=True)
    first, second = as_lists(loader), as_lists(loader)
    assert first == second
    assert sorted(x for b in first for x in b) == list(range(10))


def test_chain_dataset_and_add():
    R = make_range_dataset(aud)
    assert as_lists(aud.DataLoader(R(0, 3) + R(10, 12), batch_size=None)) == [0, 1, 2, 10, 11]


@pytest.mark.parametrize("kwargs", [dict(shuffle=True), dict(sampler=[0, 1]), dict(batch_sampler=[[0]])])
def test_sampling_options_are_rejected_like_torch(kwargs):
    with pytest.raises(ValueError) as theirs:
        tud.DataLoader(make_range_dataset(tud)(0, 4), **kwargs)
    with pytest.raises(ValueError) as ours:
        aud.DataLoader(make_range_dataset(aud)(0, 4), **kwargs)
    assert str(ours.value) == str(theirs.value)


def test_len_without_dataset_len_is_a_type_error():
    class NoLen(aud.IterableDataset):
        def __iter__(self):
            return iter(range(3))
    with pytest.raises(TypeError):
        len(aud.DataLoader(NoLen()))
    assert as_lists(aud.DataLoader(NoLen(), batch_size=2, num_workers=1)) == [[0, 1], [2]]


def test_worker_error_in_iter_names_the_worker():
    class Bad(aud.IterableDataset):
        def __iter__(self):
            if aud.get_worker_info().id == 1:
                raise KeyError("no stream")
            return iter(range(4))
    with pytest.raises(KeyError) as e:
        list(aud.DataLoader(Bad(), num_workers=2))
    assert "worker process 1" in str(e.value) and "no stream" in str(e.value)
    assert not glob.glob("/dev/shm/adept.{}.*".format(os.getpid()))
