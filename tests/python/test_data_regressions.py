"""DataLoader regressions found by trying it as a user (each test is the smallest repro)."""
import gc
import os
import time

import numpy as np
import pytest

import adept
import adept.data as aud


class ArrayDataset(aud.Dataset):
    def __len__(self):
        return 32

    def __getitem__(self, i):
        return np.full((320, 320, 3), i % 256, np.uint8), i


def test_numpy_arrays_travel_through_shared_memory_and_come_back_as_arrays():
    # Pickling the arrays into the batch structure once took ~1 s per MB.
    t0 = time.perf_counter()
    batches = list(aud.DataLoader(ArrayDataset(), batch_size=8, num_workers=2, collate_fn=lambda x: x))
    assert time.perf_counter() - t0 < 10
    flat = [s for b in batches for s in b]
    assert [i for _, i in flat] == list(range(32))
    for arr, i in flat:
        assert isinstance(arr, np.ndarray) and arr.dtype == np.uint8 and arr.shape == (320, 320, 3)
        assert int(arr[5, 7, 1]) == i


@pytest.mark.parametrize("num_workers", [0, 2])
def test_samplers_may_yield_keys_that_are_not_integers(num_workers):
    data = {"a": 1, ("t", 2): 2, 2 ** 70: 3}
    loader = aud.DataLoader(data, sampler=list(data), batch_size=2, num_workers=num_workers,
                            collate_fn=lambda x: x)
    assert list(loader) == [[1, 2], [3]]


def test_a_forked_child_exiting_leaves_the_parents_workers_alone():
    loader = aud.DataLoader(list(range(40)), batch_size=4, num_workers=2, persistent_workers=True)
    it = iter(loader)
    assert next(it).tolist() == [0, 1, 2, 3]
    pid = os.fork()
    if pid == 0:  # the child drops its copies of the loader and its pool (shutdown runs in the child)
        try:
            del it, loader
            gc.collect()
        finally:
            os._exit(0)
    assert os.waitpid(pid, 0)[1] == 0
    assert [b.tolist()[0] for b in it] == [4, 8, 12, 16, 20, 24, 28, 32, 36]
    assert list(next(iter(loader)).tolist()) == [0, 1, 2, 3]


def test_reset_makes_persistent_workers_see_dataset_changes():
    class Switch(aud.Dataset):
        value = 0

        def __len__(self):
            return 4

        def __getitem__(self, i):
            return self.value
    ds = Switch()
    loader = aud.DataLoader(ds, batch_size=4, num_workers=1, persistent_workers=True)
    assert next(iter(loader)).tolist() == [0] * 4
    ds.value = 1
    assert next(iter(loader)).tolist() == [0] * 4   # the worker holds its own copy
    loader.reset()
    assert next(iter(loader)).tolist() == [1] * 4


def test_worker_seeds_differ_like_torch():
    class Seeds(aud.Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            return aud.get_worker_info().seed
    loader = aud.DataLoader(Seeds(), batch_size=None, num_workers=2, seed=100)
    assert [int(s) for s in loader] == [100, 101]


@pytest.mark.parametrize("exc", [KeyboardInterrupt, SystemExit])
def test_a_worker_interrupt_is_not_mistaken_for_the_users(exc):
    class Raises(aud.Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            raise exc("from the worker")
    with pytest.raises(RuntimeError) as e:
        list(aud.DataLoader(Raises(), num_workers=1))
    assert "from the worker" in str(e.value)


def test_the_iterator_has_a_length():
    it = iter(aud.DataLoader(list(range(10)), batch_size=3))
    assert len(it) == 4
    assert len(list(it)) == 4
