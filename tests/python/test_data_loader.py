"""adept.data (adept.utils.data) DataLoader: parity with torch.utils.data where the two overlap,
worker processes, every fault mode (each followed by a check that no /dev/shm/adept.<pid>.*
segment and no worker process is left), and the shared-memory lifecycle of batches.

Run: OMP_NUM_THREADS=2 PYTHONPATH=<build dir>/python /usr/bin/python3 -m pytest -q tests/python/test_data_loader.py
"""
import collections
import gc
import glob
import math
import os
import random
import select
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import torch
import torch.utils.data as tud

import adept
import adept.utils.data as aud

Point = collections.namedtuple("Point", ["x", "y"])  # module level: picklable for worker results


# ---------------------------------------------------------------------------------------------
# helpers

def plain(x):
    """A comparable form of a batch: tensors (adept or torch) as (dtype, shape, values), containers
    tagged with their type name (so tuple vs list vs namedtuple, dict vs OrderedDict count)."""
    if isinstance(x, (adept.Tensor, torch.Tensor)):
        n = x.numpy()
        return ("tensor", str(n.dtype), tuple(n.shape), n.tolist())
    if isinstance(x, collections.abc.Mapping):
        return (type(x).__name__, [(k, plain(v)) for k, v in x.items()])
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [plain(v) for v in x])
    return (type(x).__name__, x)


def batches(loader):
    return [plain(b) for b in loader]


def shm_files(pid=None):
    return glob.glob("/dev/shm/adept.{}.*".format(os.getpid() if pid is None else pid))


def proc_stat(pid):
    """(ppid, start time) of `pid`, or None when it does not exist."""
    try:
        with open("/proc/{}/stat".format(pid)) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[1]), int(fields[19])


def children(pid=None):
    pid = os.getpid() if pid is None else pid
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            st = proc_stat(int(d))
            if st is not None and st[0] == pid:
                out.append(int(d))
    return out


def assert_clean():
    """No shared-memory segment of this process and no child process (running or zombie) left."""
    assert shm_files() == []
    assert children() == []
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


def child_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p and os.path.isdir(os.path.join(p, "adept")))
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


class Squares:
    """The same dataset for both libraries: `lib` is adept or torch."""

    def __init__(self, lib, n):
        self.lib, self.n = lib, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return {"x": self.lib.tensor([float(i), float(i * i)]), "i": i, "name": "s{}".format(i)}


class Reverse:
    """A custom Python sampler (no base class: both libraries take any iterable with a length)."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n - 1, -1, -1))

    def __len__(self):
        return self.n


def both(n, **kw):
    """The same loader in adept and torch (in-process)."""
    return aud.DataLoader(Squares(adept, n), **kw), tud.DataLoader(Squares(torch, n), **kw)


# ---------------------------------------------------------------------------------------------
# 1. parity with torch

@pytest.mark.parametrize("n", [0, 1, 7, 8])
@pytest.mark.parametrize("batch_size,drop_last", [(1, False), (1, True), (3, False), (3, True), (4, False),
                                                  (4, True), (None, False)])  # None + drop_last: an error
def test_batches_and_len_match_torch(n, batch_size, drop_last):
    a, t = both(n, batch_size=batch_size, drop_last=drop_last)
    assert len(a) == len(t)
    got, want = batches(a), batches(t)
    assert got == want
    assert len(got) == len(a)


def test_alias_module():
    assert aud.DataLoader is adept.data.DataLoader
    assert aud.default_collate is adept.data.default_collate


@pytest.mark.parametrize("batch_sampler", [[[3, 1], [0], [5, 6, 7], [2, 4]], "BatchSampler"])
def test_custom_batch_sampler_matches_torch(batch_sampler):
    if batch_sampler == "BatchSampler":
        a = aud.DataLoader(Squares(adept, 8), batch_sampler=aud.BatchSampler(aud.SequentialSampler(range(8)), 3, True))
        t = tud.DataLoader(Squares(torch, 8), batch_sampler=tud.BatchSampler(tud.SequentialSampler(range(8)), 3, True))
    else:
        a, t = both(8, batch_sampler=batch_sampler)
    assert len(a) == len(t)
    assert batches(a) == batches(t)


@pytest.mark.parametrize("batch_size,drop_last", [(3, False), (3, True), (None, False)])
def test_custom_sampler_matches_torch(batch_size, drop_last):
    a, t = both(7, sampler=Reverse(7), batch_size=batch_size, drop_last=drop_last)
    assert len(a) == len(t)
    assert batches(a) == batches(t)


def error_of(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type is compared by the caller
        return type(e), str(e)
    return None, None


@pytest.mark.parametrize("kwargs", [
    dict(sampler="S", shuffle=True),
    dict(batch_sampler="B", batch_size=2),
    dict(batch_sampler="B", shuffle=True),
    dict(batch_sampler="B", sampler="S"),
    dict(batch_sampler="B", drop_last=True),
    dict(batch_size=None, drop_last=True),
    dict(num_workers=-1),
    dict(timeout=-1),
    dict(persistent_workers=True),
], ids=lambda k: ",".join(sorted(k)))
def test_value_errors_match_torch(kwargs):
    def make(lib):
        data = lib.utils.data if lib is torch else aud
        kw = dict(kwargs)
        if kw.get("sampler") == "S":
            kw["sampler"] = data.SequentialSampler(range(4))
        if kw.get("batch_sampler") == "B":
            kw["batch_sampler"] = [[0, 1], [2, 3]]
        return lambda: data.DataLoader(Squares(lib, 4), **kw)

    a, t = error_of(make(adept)), error_of(make(torch))
    assert t[0] is ValueError
    assert a == t


def test_prefetch_factor_and_timeout_validation():
    # torch 1.13 only errors for a non-default value; its message is a prefix of the newer wording adept uses
    t = error_of(lambda: tud.DataLoader(Squares(torch, 4), prefetch_factor=3))
    a = error_of(lambda: aud.DataLoader(Squares(adept, 4), prefetch_factor=3))
    assert a[0] is t[0] is ValueError
    assert a[1].startswith(t[1].rstrip("."))
    with pytest.raises(ValueError, match="prefetch_factor"):
        aud.DataLoader(Squares(adept, 4), num_workers=1, prefetch_factor=0)
    with pytest.raises(ValueError, match="timeout option should be non-negative"):
        aud.DataLoader(Squares(adept, 4), num_workers=1, timeout=-0.5)
    loader = aud.DataLoader(Squares(adept, 5), batch_size=2, num_workers=1, prefetch_factor=1, timeout=5)
    assert batches(loader) == batches(tud.DataLoader(Squares(torch, 5), batch_size=2))
    assert_clean()


def test_sampler_value_errors_match_torch():
    cases = [
        lambda d: d.BatchSampler(d.SequentialSampler(range(4)), 0, False),
        lambda d: d.BatchSampler(d.SequentialSampler(range(4)), 2, "no"),
        lambda d: d.RandomSampler(range(4), num_samples=0),
        lambda d: d.RandomSampler(range(4), replacement="yes"),
        lambda d: d.DistributedSampler(range(4), num_replicas=2, rank=2),
        lambda d: d.DistributedSampler(range(4), num_replicas=2, rank=-1),
    ]
    for case in cases:
        t = error_of(lambda: case(tud))
        assert t[0] in (ValueError, TypeError)
        assert error_of(lambda: case(aud)) == t


def collate_cases(lib):
    """(name, list of samples) for default_collate; tensors built with `lib`."""
    rng = np.random.default_rng(0)
    f = rng.standard_normal((3, 2, 3)).astype(np.float32)
    return [
        ("tensor_f32", [lib.tensor(f[i]) for i in range(3)]),
        ("tensor_i64", [lib.tensor([i, 2 * i]) for i in range(3)]),
        ("tensor_u8", [lib.tensor([[i, 255 - i]], dtype=lib.uint8) for i in range(3)]),
        ("tensor_bool", [lib.tensor([i % 2 == 0, True]) for i in range(3)]),
        ("tensor_scalar", [lib.tensor(1.5 * i) for i in range(3)]),
        ("tensor_transposed", [lib.tensor(f[i]).t() for i in range(3)]),
        ("np_f32", [f[i] for i in range(3)]),
        ("np_f64", [f[i].astype(np.float64) for i in range(3)]),
        ("np_i32", [np.arange(4, dtype=np.int32) + i for i in range(3)]),
        ("np_i64", [np.arange(4, dtype=np.int64) * i for i in range(3)]),
        ("np_u8", [np.full((2, 2), i, dtype=np.uint8) for i in range(3)]),
        ("np_bool", [np.array([True, i == 1]) for i in range(3)]),
        ("np_scalar_f32", [np.float32(i + 0.5) for i in range(3)]),
        ("np_scalar_f64", [np.float64(i + 0.25) for i in range(3)]),
        ("np_scalar_i32", [np.int32(i) for i in range(3)]),
        ("np_scalar_i64", [np.int64(i) for i in range(3)]),
        ("np_scalar_bool", [np.bool_(i == 1) for i in range(3)]),
        ("ints", [0, 5, -3]),
        ("floats", [0.5, 1.0, -2.25]),
        ("bools", [True, False, True]),
        ("strings", ["a", "bc", ""]),
        ("dicts", [{"img": lib.tensor([float(i)]), "cls": i, "meta": {"name": "n{}".format(i), "w": i / 2}}
                   for i in range(3)]),
        ("ordered_dicts", [collections.OrderedDict([("b", i), ("a", lib.tensor([i]))]) for i in range(3)]),
        ("tuples", [(lib.tensor([float(i)]), i, "t{}".format(i)) for i in range(3)]),
        ("namedtuples", [Point(lib.tensor([i, i]), float(i)) for i in range(3)]),
        ("lists", [[i, float(i), "l"] for i in range(3)]),
        ("nested_lists", [[[i, i + 1], [lib.tensor([i])]] for i in range(3)]),
    ]


@pytest.mark.filterwarnings("ignore:In future, it will be an error for 'np.bool_':DeprecationWarning")  # torch's
@pytest.mark.parametrize("case", [c[0] for c in collate_cases(torch)])
def test_default_collate_matches_torch(case):
    a = dict(collate_cases(adept))[case]
    t = dict(collate_cases(torch))[case]
    assert plain(aud.default_collate(a)) == plain(tud.default_collate(t))


@pytest.mark.parametrize("case", ["np_f32", "np_u8", "np_scalar_f64", "np_scalar_i32", "dicts", "ordered_dicts",
                                  "tuples", "namedtuples", "lists", "nested_lists", "strings", "ints"])
def test_default_convert_matches_torch(case):
    a = dict(collate_cases(adept))[case]
    t = dict(collate_cases(torch))[case]
    assert [plain(aud.default_convert(x)) for x in a] == [plain(tud.default_convert(x)) for x in t]
    assert plain(aud.default_convert(range(3))) == plain(tud.default_convert(range(3)))
    strings = np.array(["a", "b"])
    assert aud.default_convert(strings) is strings


@pytest.mark.parametrize("bad", [[[1, 2], [3]], [np.array(["a"]), np.array(["b"])], [object(), object()],
                                 [None, None]], ids=["ragged", "np_str", "object", "none"])
def test_default_collate_errors_match_torch(bad):
    a, t = error_of(lambda: aud.default_collate(bad)), error_of(lambda: tud.default_collate(bad))
    assert t[0] is not None and a[0] is t[0]
    if isinstance(bad[0], list):
        assert a[1] == t[1] == "each element in list of batch should be of equal size"


def test_default_collate_shape_mismatch_raises():
    a = error_of(lambda: aud.default_collate([adept.zeros(2), adept.zeros(3)]))
    t = error_of(lambda: tud.default_collate([torch.zeros(2), torch.zeros(3)]))
    assert t[0] is RuntimeError and issubclass(a[0], RuntimeError)
    assert "[2] at entry 0 and [3] at entry 1" in a[1] and "[2] at entry 0 and [3] at entry 1" in t[1]


@pytest.mark.parametrize("n", [0, 1, 5, 8, 11])
@pytest.mark.parametrize("replicas", [1, 2, 3, 4])
@pytest.mark.parametrize("drop_last", [False, True])
def test_distributed_sampler_splits_match_torch(n, replicas, drop_last):
    for rank in range(replicas):
        a = aud.DistributedSampler(range(n), num_replicas=replicas, rank=rank, shuffle=False, drop_last=drop_last)
        t = tud.DistributedSampler(range(n), num_replicas=replicas, rank=rank, shuffle=False, drop_last=drop_last)
        assert (len(a), a.num_samples, a.total_size) == (len(t), t.num_samples, t.total_size)
        assert list(a) == list(t)


def test_distributed_sampler_shuffle_properties():
    n, replicas = 11, 3
    def shares(epoch, seed=0):
        out = []
        for rank in range(replicas):
            s = aud.DistributedSampler(range(n), num_replicas=replicas, rank=rank, shuffle=True, seed=seed)
            s.set_epoch(epoch)
            out.append(list(s))
        return out
    e0 = shares(0)
    assert all(len(s) == math.ceil(n / replicas) for s in e0)
    assert set().union(*map(set, e0)) == set(range(n))
    assert shares(0) == e0
    assert shares(1) != e0
    assert shares(0, seed=5) != e0
    merged = [e0[r][k] for k in range(len(e0[0])) for r in range(replicas)][:n]
    assert sorted(merged) == list(range(n)) and merged != list(range(n))


@pytest.mark.parametrize("n", [0, 1, 9, 10])
@pytest.mark.parametrize("batch_size", [1, 3, 10, 12])
@pytest.mark.parametrize("drop_last", [False, True])
def test_batch_sampler_matches_torch(n, batch_size, drop_last):
    a = aud.BatchSampler(aud.SequentialSampler(range(n)), batch_size, drop_last)
    t = tud.BatchSampler(tud.SequentialSampler(range(n)), batch_size, drop_last)
    assert len(a) == len(t)
    assert list(a) == list(t)
    # over a plain Python sampler too
    assert list(aud.BatchSampler(list(range(n))[::-1], batch_size, drop_last)) == \
        list(tud.BatchSampler(list(range(n))[::-1], batch_size, drop_last))


def test_tensor_subset_concat_datasets_match_torch():
    x = np.arange(24, dtype=np.float32).reshape(6, 4)
    y = np.arange(6, dtype=np.int64) * 10

    def build(lib, data):
        td = data.TensorDataset(lib.tensor(x), lib.tensor(y))
        sub = data.Subset(td, [5, 0, 3])
        return td, sub, data.ConcatDataset([td, sub])

    a, t = build(adept, aud), build(torch, tud)
    for da, dt in zip(a, t):
        assert len(da) == len(dt)
        for i in list(range(len(dt))) + [-1, -len(dt)]:
            assert plain(da[i]) == plain(dt[i])
    assert plain(a[1][[2, 0]]) == plain(t[1][[2, 0]])
    assert error_of(lambda: a[2][-100]) == error_of(lambda: t[2][-100])
    assert error_of(lambda: a[2][100])[0] is error_of(lambda: t[2][100])[0] is IndexError
    assert (a[2].cumulative_sizes) == (t[2].cumulative_sizes)
    # through the loaders
    la = aud.DataLoader(a[2], batch_size=4)
    lt = tud.DataLoader(t[2], batch_size=4)
    assert batches(la) == batches(lt)
    with pytest.raises(ValueError):
        aud.TensorDataset(adept.zeros(3), adept.zeros(4))
    with pytest.raises(ValueError):
        aud.ConcatDataset([])


def test_random_sampler():
    n = 20
    s = aud.RandomSampler(range(n))
    p0, p1 = list(s), list(s)
    assert len(s) == n and sorted(p0) == sorted(p1) == list(range(n))
    assert p0 != p1  # a new order per pass (1/20! chance of equality)
    seeded = [aud.RandomSampler(range(n), seed=7) for _ in range(2)]
    assert [list(seeded[0]) for _ in range(3)] == [list(seeded[1]) for _ in range(3)]
    r = aud.RandomSampler(range(n), replacement=True, num_samples=57)
    draws = list(r)
    assert len(r) == len(draws) == 57 and all(0 <= d < n for d in draws)
    assert len(set(draws)) < 57  # with replacement: 57 draws from 20 values repeat
    m = aud.RandomSampler(range(7), num_samples=17)
    draws = list(m)
    assert len(m) == len(draws) == 17
    counts = collections.Counter(draws)
    assert set(counts) == set(range(7)) and set(counts.values()) <= {2, 3}
    assert sorted(draws[:7]) == list(range(7)) and sorted(draws[7:14]) == list(range(7))
    sub = aud.SubsetRandomSampler([3, 9, 4, 12])
    assert len(sub) == 4 and sorted(sub) == [3, 4, 9, 12]


# ---------------------------------------------------------------------------------------------
# 2. workers

class RandomDraws:
    """Draws from Python's, NumPy's and Adept's global generators in __getitem__."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"i": i, "x": adept.full((3,), float(i)), "py": random.random(), "np": np.random.rand(2),
                "ad": adept.rand(2), "name": "r{}".format(i), "pair": (i, "p")}


@pytest.mark.parametrize("mode", ["sequential", "shuffle", "batch_sampler", "no_collation"])
def test_workers_give_the_same_batches(mode):
    kw = {"sequential": dict(batch_size=3), "shuffle": dict(batch_size=3, shuffle=True, drop_last=True),
          "batch_sampler": dict(batch_sampler=[[9, 2], [4], [0, 1, 5, 6], [3, 7, 8]]),
          "no_collation": dict(batch_size=None)}[mode]
    state = (random.getstate(), np.random.get_state()[1].copy())
    runs = {}
    for nw in (0, 1, 3):
        loader = aud.DataLoader(RandomDraws(10), num_workers=nw, seed=1234, **kw)
        runs[nw] = [batches(loader), batches(loader)]  # two epochs
        assert_clean()
    loader = aud.DataLoader(RandomDraws(10), num_workers=2, seed=1234, persistent_workers=True, **kw)
    runs["persistent"] = [batches(loader), batches(loader)]
    del loader
    assert_clean()
    assert runs[0] == runs[1] == runs[3] == runs["persistent"]
    e0, e1 = runs[0]
    assert e0 != e1  # per-(seed, epoch, index) draws differ across epochs
    # the main process's generators are not disturbed by loading
    assert random.getstate() == state[0] and (np.random.get_state()[1] == state[1]).all()
    # draws differ between samples
    flat = [b for b in aud.DataLoader(RandomDraws(10), batch_size=None, seed=1234)]
    assert len({s["py"] for s in flat}) == 10 and len({float(s["ad"][0]) for s in flat}) == 10
    assert len({float(s["np"][0]) for s in flat}) == 10
    other = aud.DataLoader(RandomDraws(10), num_workers=0, seed=99, **kw)
    assert batches(other) != e0


class InfoDataset:
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        info = aud.get_worker_info()
        if info is None:
            return {"i": i, "id": -1, "num_workers": 0, "pid": os.getpid(), "ds": -1}
        return {"i": i, "id": info.id, "num_workers": info.num_workers, "pid": os.getpid(),
                "ds": info.dataset.n if isinstance(info.dataset, InfoDataset) else -2}


def test_get_worker_info():
    assert aud.get_worker_info() is None
    got = list(aud.DataLoader(InfoDataset(4), batch_size=None))
    assert [g["id"] for g in got] == [-1] * 4 and {g["pid"] for g in got} == {os.getpid()}
    got = list(aud.DataLoader(InfoDataset(7), batch_size=None, num_workers=3))
    assert [g["i"] for g in got] == list(range(7))
    assert [g["id"] for g in got] == [i % 3 for i in range(7)]  # batch i goes to worker i mod N
    assert {g["num_workers"] for g in got} == {3} and {g["ds"] for g in got} == {7}
    assert len({g["pid"] for g in got}) == 3 and os.getpid() not in {g["pid"] for g in got}
    assert aud.get_worker_info() is None
    assert_clean()


def test_worker_init_fn_runs_once_per_worker(tmp_path):
    log = tmp_path / "init.log"

    def init(worker_id):
        info = aud.get_worker_info()
        with open(log, "a") as f:
            f.write("{} {} {}\n".format(os.getpid(), worker_id, info.id if info is not None else None))

    loader = aud.DataLoader(InfoDataset(12), batch_size=2, num_workers=3, worker_init_fn=init)
    got = list(loader)
    lines = [line.split() for line in log.read_text().splitlines()]
    assert sorted(int(line[1]) for line in lines) == [0, 1, 2]
    assert all(line[1] == line[2] for line in lines)  # get_worker_info() is set inside worker_init_fn
    pids = {int(line[1]): int(line[0]) for line in lines}
    for b in got:
        for wid, pid in zip(b["id"].tolist(), b["pid"].tolist()):
            assert pids[wid] == pid
    assert_clean()


def pids_of(loader):
    return {pid for b in loader for pid in b["pid"].tolist()}


def test_persistent_workers_keep_pids(tmp_path):
    log = tmp_path / "init.log"

    def init(worker_id):
        with open(log, "a") as f:
            f.write("{}\n".format(worker_id))

    loader = aud.DataLoader(InfoDataset(8), batch_size=2, num_workers=2, persistent_workers=True,
                            worker_init_fn=init)
    p0 = pids_of(loader)
    assert len(p0) == 2
    assert pids_of(loader) == p0
    for _ in loader:  # a pass left after one batch keeps the workers too
        break
    assert pids_of(loader) == p0
    assert sorted(log.read_text().split()) == ["0", "1"]
    assert set(children()) == p0
    del loader
    gc.collect()
    assert_clean()

    loader = aud.DataLoader(InfoDataset(8), batch_size=2, num_workers=2)
    q0 = pids_of(loader)
    assert_clean()  # non-persistent: workers stop at the end of each pass
    q1 = pids_of(loader)
    assert len(q0) == len(q1) == 2 and not q0 & q1


def test_shuffle_with_seed():
    def orders(loader, epochs=3):
        return [[i for b in loader for i in b["i"].tolist()] for _ in range(epochs)]

    a = orders(aud.DataLoader(InfoDataset(16), batch_size=4, shuffle=True, seed=11))
    b = orders(aud.DataLoader(InfoDataset(16), batch_size=4, shuffle=True, seed=11, num_workers=2))
    c = orders(aud.DataLoader(InfoDataset(16), batch_size=4, shuffle=True, seed=12))
    assert a == b
    assert all(sorted(o) == list(range(16)) for o in a)
    assert a[0] != a[1] and a[1] != a[2]
    assert a != c
    # without a seed the loader draws one from Adept's default generator
    adept.manual_seed(3)
    d = orders(aud.DataLoader(InfoDataset(16), batch_size=4, shuffle=True), 2)
    adept.manual_seed(3)
    e = orders(aud.DataLoader(InfoDataset(16), batch_size=4, shuffle=True, num_workers=2), 2)
    assert d == e and d[0] != d[1]
    assert_clean()


class MathInWorker:
    def __len__(self):
        return 8

    def __getitem__(self, i):
        x = adept.rand(128, 128)
        return {"s": (x @ x).sum() + adept.rand(300_000).exp().sum()}


def test_workers_compute_after_main_used_threads():
    """Forked after the main process ran OpenMP/BLAS work: the workers' own ops must not deadlock."""
    a = adept.rand(256, 256)
    (a @ a).sum()
    adept.rand(1_000_000).exp().sum()
    got = list(aud.DataLoader(MathInWorker(), batch_size=2, num_workers=2, timeout=20))
    assert len(got) == 4 and all(b["s"].shape == (2,) for b in got)
    assert_clean()


class LoggingDataset:
    def __init__(self, n, log):
        self.n, self.log = n, str(log)

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        fd = os.open(self.log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        os.write(fd, b"x")
        os.close(fd)
        return adept.tensor([i])


@pytest.mark.parametrize("prefetch_factor", [1, 2])
def test_prefetch_factor_bounds_batches_in_flight(tmp_path, prefetch_factor):
    log = tmp_path / "loaded"
    nw = 2
    it = iter(aud.DataLoader(LoggingDataset(50, log), batch_size=1, num_workers=nw, prefetch_factor=prefetch_factor))
    assert next(it).tolist() == [[0]]
    deadline = time.time() + 5
    while (log.stat().st_size if log.exists() else 0) < nw * prefetch_factor and time.time() < deadline:
        time.sleep(0.01)
    time.sleep(0.2)
    # prefetch_factor batches queued per worker, plus the one submitted after batch 0 was taken
    assert nw * prefetch_factor <= log.stat().st_size <= nw * prefetch_factor + 1
    del it
    assert_clean()


# ---------------------------------------------------------------------------------------------
# 3. faults

class Faulty:
    """Misbehaves at sample `at` in a worker process (never in the main process)."""

    def __init__(self, n, at, how, exc=ValueError):
        self.n, self.at, self.how, self.exc = n, at, how, exc

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i == self.at:
            if aud.get_worker_info() is None and self.how in ("kill", "exit", "sleep"):
                raise AssertionError("fault '{}' would hit the test process".format(self.how))
            if self.how == "raise":
                raise self.exc("bad sample {}".format(i))
            if self.how == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            if self.how == "exit":
                os._exit(3)
            if self.how == "sleep":
                time.sleep(30)  # far longer than any bound below: a timeout must cut it short
            if self.how == "unpicklable":
                return {"f": lambda: i}
        return {"x": adept.full((4,), float(i)), "i": i}


@pytest.mark.parametrize("batch_size,worker", [(1, 1), (2, 0), (3, 1)])
def test_worker_exception(batch_size, worker):
    loader = aud.DataLoader(Faulty(12, 5, "raise"), batch_size=batch_size, num_workers=2)
    for _ in range(2):  # a new pass after the error fails the same way (fresh workers)
        with pytest.raises(ValueError) as e:
            list(loader)
        msg = str(e.value)
        assert "worker process {}".format(worker) in msg
        assert "sample 5" in msg
        assert "bad sample 5" in msg and "Traceback" in msg and "__getitem__" in msg
        assert_clean()
    # in-process: the plain exception, as torch raises it (torch cannot collate adept tensors, so
    # its side of this comparison is written out)
    assert error_of(lambda: list(aud.DataLoader(Faulty(12, 5, "raise"), batch_size=batch_size))) == \
        (ValueError, "bad sample 5")


def test_worker_exception_of_local_class():
    class LocalError(Exception):  # not picklable: the main process gets a RuntimeError
        pass

    with pytest.raises(RuntimeError) as e:
        list(aud.DataLoader(Faulty(6, 2, "raise", LocalError), batch_size=1, num_workers=2))
    msg = str(e.value)
    assert "LocalError" in msg and "bad sample 2" in msg and "worker process 0" in msg and "sample 2" in msg
    assert_clean()


def test_exception_in_collate_and_worker_init():
    def collate(samples):
        raise KeyError("collate failed")

    with pytest.raises(KeyError) as e:
        list(aud.DataLoader(Faulty(6, -1, "none"), batch_size=2, num_workers=2, collate_fn=collate))
    assert "collate failed" in str(e.value) and "worker process 0." in str(e.value)
    assert "\nOriginal " in str(e.value)  # KeyError's message is not shown as an escaped repr
    assert_clean()

    def init(worker_id):
        if worker_id == 1:
            raise OSError("init of worker {} failed".format(worker_id))

    with pytest.raises(OSError) as e:
        list(aud.DataLoader(Faulty(6, -1, "none"), batch_size=2, num_workers=2, worker_init_fn=init))
    assert "init of worker 1 failed" in str(e.value) and "worker process 1" in str(e.value)
    assert_clean()


def test_unpicklable_sample():
    with pytest.raises(Exception, match="(?i)pickle") as e:
        list(aud.DataLoader(Faulty(6, 3, "unpicklable"), batch_size=None, num_workers=2))
    assert "worker process 1" in str(e.value)
    assert_clean()


@pytest.mark.parametrize("how,expect", [("kill", r"signal 9|SIGKILL|Killed"), ("exit", "status 3")])
def test_worker_death(how, expect):
    loader = aud.DataLoader(Faulty(40, 3, how), batch_size=1, num_workers=2)
    start = time.monotonic()
    got = []
    with pytest.raises(RuntimeError, match=expect) as e:
        for b in loader:
            got.append(b)
    assert time.monotonic() - start < 15  # bounds are loose for loaded CI machines
    assert "worker 1" in str(e.value)
    assert_clean()
    # batches received before the death stay valid (their segments are unlinked, not unmapped). The
    # death may surface before batch 2 (from the live worker 0): when the next task is sent to worker 1.
    assert [b["i"].item() for b in got] in ([0, 1], [0, 1, 2])
    assert [b["x"].numpy().tolist() for b in got] == [[[float(i)] * 4] for i in range(len(got))]
    del got, b
    gc.collect()
    assert adept_mappings() == {}


def test_cpp_error_type_is_mapped_to_its_python_class():
    from adept.data.dataloader import _reraise
    err = adept._C._data.WorkerError("DataLoader worker 0 (pid 1) raised ...", 0, -1, "adept::OutOfMemoryError",
                                     "DataLoader: /dev/shm is too small", b"")
    with pytest.raises(adept.OutOfMemoryError, match="worker process 0.\nOriginal DataLoader: /dev/shm is too small"):
        _reraise(err)
    err = adept._C._data.WorkerError("m", 2, 7, "std::bad_alloc", "std::bad_alloc", b"")
    with pytest.raises(RuntimeError, match="Caught std::bad_alloc in DataLoader worker process 2 while loading sample 7"):
        _reraise(err)


def test_timeout():
    loader = aud.DataLoader(Faulty(10, 1, "sleep"), batch_size=1, num_workers=2, timeout=0.5)
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"DataLoader timed out after 0\.5 seconds"):
        list(loader)
    assert time.monotonic() - start < 15
    assert_clean()


CTRL_C_SCRIPT = """
import time
import adept
from adept.utils.data import DataLoader

class Slow:
    def __len__(self):
        return 100000

    def __getitem__(self, i):
        time.sleep(0.02)
        return adept.full((256,), float(i))

for k, b in enumerate(DataLoader(Slow(), batch_size=2, num_workers=2)):
    if k == 3:
        print("READY", flush=True)
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["SIGINT", "SIGKILL"])
def test_main_process_interrupted_or_killed(sig):
    """Ctrl-C: KeyboardInterrupt, workers stopped and segments removed by the main process. SIGKILL
    (not required by the issue): the workers notice the closed socket, remove their segments, exit."""
    # A shell's background job (a CI runner) starts with SIGINT ignored, and Python then installs no
    # KeyboardInterrupt handler: give the child the default disposition, as a terminal would.
    proc = subprocess.Popen([sys.executable, "-c", CTRL_C_SCRIPT], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=child_env(), preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        assert ready and proc.stdout.readline().strip() == b"READY", proc.stderr.read1(4096) if ready else ""
        time.sleep(0.1)
        workers = {pid: proc_stat(pid) for pid in children(proc.pid)}
        assert len(workers) == 2
        assert shm_files(proc.pid) == []  # segments are unlinked as soon as both sides mapped them
        start = time.monotonic()
        proc.send_signal(sig)
        # Generous bounds: CI machines can be heavily loaded; a hang still fails.
        _, err = proc.communicate(timeout=60)
        assert time.monotonic() - start < 30
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    if sig == signal.SIGINT:
        assert proc.returncode != 0
        assert b"KeyboardInterrupt" in err and b"Traceback" in err
    else:
        assert proc.returncode == -signal.SIGKILL
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline and (shm_files(proc.pid) or any(proc_stat(p) == st for p, st in workers.items())):
        time.sleep(0.05)
    assert shm_files(proc.pid) == []
    assert children(proc.pid) == []
    for pid, stat in workers.items():
        assert proc_stat(pid) != stat, "worker {} outlived the main process".format(pid)


def test_break_early_then_iterate_again():
    loader = aud.DataLoader(Faulty(30, -1, "none"), batch_size=2, num_workers=2)
    for k, b in enumerate(loader):
        if k == 2:
            break
    assert_clean()
    assert [i for b in loader for i in b["i"].tolist()] == list(range(30))
    assert_clean()
    it = iter(loader)
    next(it)
    del it  # an iterator dropped mid-pass
    assert_clean()


@pytest.mark.parametrize("persistent", [False, True])
def test_exception_in_loop_body(persistent):
    loader = aud.DataLoader(Faulty(30, -1, "none"), batch_size=2, num_workers=2, persistent_workers=persistent)
    with pytest.raises(ZeroDivisionError):
        for k, b in enumerate(loader):
            if k == 3:
                1 / 0
    if persistent:
        assert len(children()) == 2
    else:
        assert_clean()
    assert [i for b in loader for i in b["i"].tolist()] == list(range(30))
    del loader
    gc.collect()
    assert_clean()


def test_two_live_iterators_of_one_loader():
    loader = aud.DataLoader(Faulty(9, -1, "none"), batch_size=2, num_workers=2)
    pairs = [(a["i"].tolist(), b["i"].tolist()) for a, b in zip(loader, loader)]
    assert pairs == [([0, 1], [0, 1]), ([2, 3], [2, 3]), ([4, 5], [4, 5]), ([6, 7], [6, 7]), ([8], [8])]
    assert_clean()


TINY_SHM_SCRIPT = """
import glob, os
import adept
from adept.utils.data import DataLoader

class Big:
    def __len__(self):
        return 3

    def __getitem__(self, i):
        return adept.zeros(1 << 20)  # 4 MiB

try:
    for b in DataLoader(Big(), batch_size=1, num_workers=1):
        pass
except Exception as e:
    print("ERROR", type(e).__name__, " ".join(str(e).split()))
else:
    print("NO ERROR")
print("LEFT", glob.glob("/dev/shm/adept.*"))
try:
    os.waitpid(-1, os.WNOHANG)
    print("CHILDREN LEFT")
except ChildProcessError:
    print("NO CHILDREN")
"""


def test_tiny_dev_shm(tmp_path):
    mount = "mount --make-rprivate / && mount -t tmpfs -o size=256k tmpfs /dev/shm"
    if shutil.which("unshare") is None:
        pytest.skip("unshare is not installed")
    probe = subprocess.run(["unshare", "-m", "sh", "-c", mount + " && echo OK"], capture_output=True, timeout=20)
    if probe.returncode != 0 or probe.stdout.strip() != b"OK":
        pytest.skip("unshare -m / mount not permitted: " + probe.stderr.decode(errors="replace").strip())
    script = tmp_path / "tiny_shm.py"
    script.write_text(TINY_SHM_SCRIPT)
    r = subprocess.run(["unshare", "-m", "sh", "-c", mount + ' && exec "$0" "$1"', sys.executable, str(script)],
                       capture_output=True, timeout=60, env=child_env())
    out = r.stdout.decode()
    assert r.returncode == 0, r.stderr.decode()
    assert "ERROR" in out and "NO ERROR" not in out, out
    assert "ERROR OutOfMemoryError" in out and "N5adept" not in out, out  # a readable C++ type name
    assert "/dev/shm is too small" in out and "shm-size" in out, out
    assert "LEFT []" in out and "NO CHILDREN" in out, out


# ---------------------------------------------------------------------------------------------
# 4. shared memory

def adept_mappings(pid="self"):
    """{segment path: mapped bytes} of this process's adept shared-memory mappings."""
    out = collections.Counter()
    with open("/proc/{}/maps".format(pid)) as f:
        for line in f:
            parts = line.split(None, 5)
            if len(parts) == 6 and parts[5].startswith("/dev/shm/adept."):
                lo, hi = (int(v, 16) for v in parts[0].split("-"))
                out[parts[5].split()[0]] += hi - lo
    return out


class Filled:
    def __init__(self, n, numel):
        self.n, self.numel = n, numel

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"x": adept.full((self.numel,), float(i)), "i": i}


def test_held_batches_are_never_overwritten():
    loader = aud.DataLoader(Filled(60, 1024), batch_size=2, num_workers=2, prefetch_factor=2)
    held = list(loader)  # every batch kept
    for k, b in enumerate(held):
        assert (b["x"].numpy() == np.repeat([2.0 * k, 2.0 * k + 1], 1024).reshape(2, 1024)).all()
    assert_clean()
    # keep some batches, views and arrays of others, drop the rest (their segments get reused)
    kept, views, arrays = {}, {}, {}
    for k, b in enumerate(loader):
        if k % 5 == 0:
            kept[k] = b
        elif k % 5 == 1:
            views[k] = b["x"][1, 100:200]
        elif k % 5 == 2:
            arrays[k] = b["x"].numpy()
        del b
    for k, b in kept.items():
        assert (b["x"].numpy()[:, 0] == [2 * k, 2 * k + 1]).all() and (b["x"].numpy() == b["x"].numpy()[:, :1]).all()
        assert b["i"].tolist() == [2 * k, 2 * k + 1]
    for k, v in views.items():
        assert (v.numpy() == 2 * k + 1).all()
    for k, a in arrays.items():
        assert (a[0] == 2 * k).all() and (a[1] == 2 * k + 1).all()
    assert_clean()
    del kept, views, arrays, held, b, v, a
    gc.collect()
    assert adept_mappings() == {}


def test_released_batches_do_not_grow_shared_memory():
    nw, prefetch = 2, 2
    loader = aud.DataLoader(Filled(200, 64 * 1024), batch_size=2, num_workers=nw, prefetch_factor=prefetch)
    batch_bytes = 2 * 64 * 1024 * 4
    peak_segments, names, usage = 0, set(), []
    for k, b in enumerate(loader):
        assert b["i"].tolist() == [2 * k, 2 * k + 1]
        maps = adept_mappings()
        worker_maps = [adept_mappings(pid) for pid in children()]
        peak_segments = max(peak_segments, len(maps))
        names |= set(maps)
        usage.append(sum(maps.values()) + sum(sum(m.values()) for m in worker_maps))
        # a name lives only until the main process has mapped it: at most the queued batches have one
        assert len(shm_files()) <= nw * prefetch
        del b
    assert k == 99
    # queued (prefetch_factor per worker) + the one being read + the one just released
    assert peak_segments <= nw * (prefetch + 2)
    assert len(names) <= nw * (prefetch + 2)  # segments are reused, not created per batch
    assert max(usage[50:]) <= max(usage[:50])
    assert max(usage) <= 2 * nw * (prefetch + 2) * (batch_bytes + 64 * 1024)
    gc.collect()
    assert adept_mappings() == {}
    assert_clean()


DTYPES = ["uint8", "bool", "float16", "bfloat16", "int32", "int64", "float32", "float64"]


class AllDtypes:
    def __len__(self):
        return 5

    def __getitem__(self, i):
        out = {d: (adept.arange(6).reshape(2, 3) + i).to(getattr(adept, d)) for d in DTYPES}
        out.update(empty=adept.zeros(0, 6), scalar=adept.tensor(i / 2), nc=(adept.arange(12.0).reshape(3, 4) + i).t()[1:])
        return out


def described(b):
    return {k: (str(v.dtype), tuple(v.shape), v.float().tolist()) for k, v in b.items()}


@pytest.mark.parametrize("batch_size", [None, 2])
def test_dtypes_and_shapes_round_trip(batch_size):
    ref = [described(b) for b in aud.DataLoader(AllDtypes(), batch_size=batch_size)]
    got = [described(b) for b in aud.DataLoader(AllDtypes(), batch_size=batch_size, num_workers=2)]
    assert got == ref
    last = ref[-1]
    assert last["empty"][1] == ((0, 6) if batch_size is None else (1, 0, 6))
    assert last["scalar"][1] == (() if batch_size is None else (1,)) and last["nc"][1][-2:] == (3, 3)
    assert all(last[d][0] == "adept." + d for d in DTYPES)
    assert_clean()


class Structured:
    def __len__(self):
        return 6

    def __getitem__(self, i):
        return {"name": "item-{}".format(i), "n": i, "f": i / 4, "flag": i % 2 == 0,
                "meta": {"tags": ["a", "b{}".format(i)], "nested": {"depth": 2, "t": adept.tensor([i, -i])},
                         "pt": Point(i, "y")},
                "tuple": (i, "s", adept.full((2, 2), float(i))), "raw": b"\x00\x01", "none": None}


@pytest.mark.parametrize("batch_size", [None, 3])
def test_non_tensor_structure_round_trips(batch_size):
    ds = Structured()
    if batch_size is not None:  # None does not collate: drop it
        class WithoutNone(Structured):
            def __getitem__(self, i):
                s = super().__getitem__(i)
                del s["none"]
                return s
        ds = WithoutNone()
    ref = batches(aud.DataLoader(ds, batch_size=batch_size))
    got = batches(aud.DataLoader(ds, batch_size=batch_size, num_workers=2))
    assert got == ref
    if batch_size is None:
        assert ref[1][1][0] == ("name", ("str", "item-1"))
        assert dict(ref[2][1])["meta"][1][2] == ("pt", ("Point", [("int", 2), ("str", "y")]))
        assert dict(ref[0][1])["none"] == ("NoneType", None)
    assert_clean()
