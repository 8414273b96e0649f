"""The Python API of adept.distributed's collectives, run as one job of N ranks (test_distributed.py
starts it with mpirun -np 2). Every rank builds every rank's input from its rank number, so each
computes the expected result locally (NumPy) and checks its own. Prints "rank R: collectives OK" at
the end; a failed check raises, and adept.distributed's excepthook then aborts the whole job.
"""
import datetime
import itertools
import os
import time

import numpy as np

import adept
import adept.distributed as dist
import adept.nn.parallel  # noqa: F401  (torch imports torch.nn.parallel with torch.nn; adept does not yet)

TIMEOUT = datetime.timedelta(seconds=60)  # a hang fails the job, well inside the test's own limit


def expect_raises(exc, fn, *args, match=None, **kwargs):
    try:
        fn(*args, **kwargs)
    except exc as e:
        if match is not None and match not in str(e):
            raise AssertionError(f"{fn.__name__}: expected '{match}' in the message, got: {e}") from e
        return e
    raise AssertionError(f"{fn.__name__}{args}: expected {exc.__name__}, nothing raised")


CHECKS = [0]


def check_equal(got, want, what):
    CHECKS[0] += 1
    got_np = got.numpy() if isinstance(got, adept.Tensor) else np.asarray(got)
    want = np.asarray(want)
    assert got_np.shape == want.shape, f"{what}: shape {got_np.shape}, expected {want.shape}"
    if got_np.dtype.kind == "f":
        ok = np.allclose(got_np.astype(np.float64), want.astype(np.float64), rtol=1e-6, atol=0)
    else:
        ok = np.array_equal(got_np, want)
    assert ok, f"{what}: got\n{got_np}\nexpected\n{want}"


# --- before init_process_group: torch's errors ------------------------------------------------------

assert dist.is_available() and dist.is_mpi_available()
assert not dist.is_initialized()
for fn, args in ((dist.get_rank, ()), (dist.get_world_size, ()), (dist.all_reduce, (adept.ones(2),)),
                 (dist.broadcast, (adept.ones(2), 0)), (dist.barrier, ()),
                 (dist.all_gather, ([adept.ones(2)], adept.ones(2))),
                 (dist.all_gather_into_tensor, (adept.ones(2), adept.ones(1))),
                 (dist.reduce_scatter, (adept.ones(1), [adept.ones(1)])),
                 (dist.reduce_scatter_tensor, (adept.ones(1), adept.ones(2)))):
    # torch raises ValueError("Default process group has not been initialized, ...")
    expect_raises(ValueError, fn, *args, match="Default process group has not been initialized")
expect_raises(RuntimeError, adept.utils.data.DistributedSampler, list(range(4)))
expect_raises(ValueError, adept.nn.parallel.DistributedDataParallel, adept.nn.Linear(2, 2))
expect_raises(ValueError, dist.init_process_group, "nccl")
expect_raises(ValueError, dist.init_process_group, "gloo")
expect_raises(TypeError, dist.init_process_group, "mpi", timeout=30)
expect_raises(ValueError, dist.init_process_group, "mpi", init_method="tcp://127.0.0.1:1234")
assert not dist.is_initialized()

world = int(os.environ["OMPI_COMM_WORLD_SIZE"])
rank = int(os.environ["OMPI_COMM_WORLD_RANK"])
dist.init_process_group("mpi", timeout=TIMEOUT, world_size=world, rank=rank)
assert dist.is_initialized()
assert dist.get_rank() == rank and dist.get_world_size() == world
assert dist.get_node_local_rank() == int(os.environ["OMPI_COMM_WORLD_LOCAL_RANK"])
expect_raises(ValueError, dist.init_process_group, "mpi", match="twice")
expect_raises(ValueError, dist.all_reduce, adept.ones(2), group="some group")
ranks = range(world)

# --- all_reduce: every dtype and op against NumPy ---------------------------------------------------

NP = {adept.float32: np.float32, adept.float64: np.float64, adept.float16: np.float16, adept.int64: np.int64,
      adept.bool: np.bool_}


def values(r, dtype, n=6):
    """Rank r's input: small integers (exact in float16 sums and products), negatives, zeros."""
    if dtype == adept.bool:
        return np.array([(r >> 0) & 1, 1, 0, (r + 1) % 2, 1, r % 3 == 0][:n], dtype=np.bool_)
    base = np.array([1, -2, 3, 0, 5, -1][:n], dtype=np.float64) * (r + 1) + r
    if dtype == adept.int64:
        return (base + (1 << 40) * (r % 2)).astype(np.int64)  # beyond 32 bits
    return base.astype(NP[dtype])


def reduce_np(arrays, op, dtype):
    stack = np.stack(arrays)
    if dtype == adept.bool:  # torch's convention: sum/max are logical or, product/min logical and
        return stack.any(0) if op in ("SUM", "MAX") else stack.all(0)
    wide = stack.astype(np.float64) if dtype != adept.int64 else stack
    out = {"SUM": wide.sum(0), "AVG": wide.sum(0) / len(arrays), "MAX": wide.max(0), "MIN": wide.min(0),
           "PRODUCT": wide.prod(0)}[op]
    return out.astype(NP[dtype])


for dtype, op in itertools.product(NP, ("SUM", "AVG", "MAX", "MIN", "PRODUCT")):
    t = adept.tensor(values(rank, dtype).tolist(), dtype=dtype)
    if op == "AVG" and dtype in (adept.int64, adept.bool):
        # AVG needs a floating-point tensor; raised before anything is queued, so ranks stay in step.
        expect_raises(ValueError, dist.all_reduce, t, op=dist.ReduceOp.AVG, match="floating-point")
        continue
    assert dist.all_reduce(t, op=getattr(dist.ReduceOp, op)) is None
    assert t.dtype == dtype
    check_equal(t, reduce_np([values(r, dtype) for r in ranks], op, dtype), f"all_reduce {op} {dtype}")

# Default op is SUM; a 0-d tensor; an empty one; a 2-d one.
t = adept.tensor(float(rank + 1))
dist.all_reduce(t)
check_equal(t, np.float32(sum(r + 1 for r in ranks)), "all_reduce 0-d")
t = adept.ones(0)
dist.all_reduce(t, op=dist.ReduceOp.MAX)
assert t.shape == (0,)
t = adept.empty(3, 0, dtype=adept.int64)
dist.all_reduce(t)
assert tuple(t.shape) == (3, 0)

# Non-contiguous: a transposed view and a strided slice of a bigger tensor, whose other elements stay.
base = adept.arange(12, dtype=adept.float64).reshape(3, 4) * (rank + 1)
view = base.t()
assert not view.is_contiguous()
dist.all_reduce(view)
want = np.arange(12, dtype=np.float64).reshape(3, 4) * sum(r + 1 for r in ranks)
check_equal(base, want, "all_reduce transposed view (through the base)")
check_equal(view, want.T, "all_reduce transposed view")
big = adept.arange(10, dtype=adept.float32) + 100 * rank
dist.all_reduce(big[::3], op=dist.ReduceOp.MIN)
want = np.arange(10, dtype=np.float32) + 100 * rank
want[::3] = np.arange(10, dtype=np.float32)[::3]  # rank 0 has the smallest
check_equal(big, want, "all_reduce of a strided slice")

# all_reduce of a tensor that requires grad is in-place data, outside autograd (as DDP uses it).
p = adept.full((3,), float(rank), requires_grad=True)
with adept.no_grad():
    dist.all_reduce(p)
check_equal(p.detach(), np.full(3, sum(ranks), np.float32), "all_reduce under no_grad")

# --- broadcast ----------------------------------------------------------------------------------------

for dtype, src in itertools.product(NP, ranks):
    t = adept.tensor(values(rank, dtype).tolist(), dtype=dtype)
    assert dist.broadcast(t, src) is None
    check_equal(t, values(src, dtype), f"broadcast {dtype} from {src}")
base = adept.zeros(4, 3) + rank
dist.broadcast(base.t(), src=world - 1)
check_equal(base, np.full((4, 3), world - 1, np.float32), "broadcast into a transposed view")
dist.broadcast(adept.empty(0), 0)
for bad in (world, -1, 100):
    expect_raises(ValueError, dist.broadcast, adept.ones(2), bad, match="src")

# --- all_gather / all_gather_into_tensor -----------------------------------------------------------------

for dtype in NP:
    outs = [adept.zeros(6, dtype=dtype) for _ in ranks]
    inp = adept.tensor(values(rank, dtype).tolist(), dtype=dtype)
    assert dist.all_gather(outs, inp) is None
    for r in ranks:
        check_equal(outs[r], values(r, dtype), f"all_gather {dtype}[{r}]")
    out = adept.zeros(world * 6, dtype=dtype)
    dist.all_gather_into_tensor(out, inp)
    check_equal(out, np.concatenate([values(r, dtype) for r in ranks]), f"all_gather_into_tensor {dtype}")
# 2-d input, stacked output ([world, 2, 3]) and concatenated output ([world * 2, 3]); non-contiguous
# input and outputs.
inp = (adept.arange(6, dtype=adept.float32).reshape(3, 2) + 10 * rank).t()
want = np.stack([(np.arange(6, dtype=np.float32).reshape(3, 2) + 10 * r).T for r in ranks])
out = adept.zeros(world, 2, 3)
dist.all_gather_into_tensor(out, inp)
check_equal(out, want, "all_gather_into_tensor stacked")
out = adept.zeros(world * 2, 3)
dist.all_gather_into_tensor(out, inp)
check_equal(out, want.reshape(world * 2, 3), "all_gather_into_tensor concatenated")
out = adept.zeros(3, world * 2).t()  # a non-contiguous output
dist.all_gather_into_tensor(out, inp)
check_equal(out, want.reshape(world * 2, 3), "all_gather_into_tensor into a non-contiguous output")
outs = [adept.zeros(3, 2).t() for _ in ranks]
dist.all_gather(outs, inp)
for r in ranks:
    check_equal(outs[r], want[r], f"all_gather non-contiguous [{r}]")
outs = [adept.zeros(0) for _ in ranks]
dist.all_gather(outs, adept.zeros(0))
dist.all_gather_into_tensor(adept.zeros(0), adept.zeros(0))
# Errors, raised before anything is queued.
expect_raises(ValueError, dist.all_gather, [adept.zeros(6)] * (world + 1), adept.zeros(6))
expect_raises(ValueError, dist.all_gather, [adept.zeros(6)] * (world - 1), adept.zeros(6))
expect_raises(ValueError, dist.all_gather, [adept.zeros(5)] * world, adept.zeros(6))
expect_raises(ValueError, dist.all_gather, [adept.zeros(6, dtype=adept.float64)] * world, adept.zeros(6))
expect_raises(ValueError, dist.all_gather_into_tensor, adept.zeros(world * 6 + 1), adept.zeros(6))
expect_raises(ValueError, dist.all_gather_into_tensor, adept.zeros(world * 6, dtype=adept.int64), adept.zeros(6))

# --- reduce_scatter / reduce_scatter_tensor --------------------------------------------------------------

for dtype, op in itertools.product(NP, ("SUM", "AVG", "MAX", "MIN", "PRODUCT")):
    # Rank r's input for destination d: values(r * world + d).
    inputs = [adept.tensor(values(rank * world + d, dtype).tolist(), dtype=dtype) for d in ranks]
    out = adept.zeros(6, dtype=dtype)
    reduce_op = getattr(dist.ReduceOp, op)
    if op == "AVG" and dtype in (adept.int64, adept.bool):
        expect_raises(ValueError, dist.reduce_scatter, out, inputs, op=reduce_op)
        expect_raises(ValueError, dist.reduce_scatter_tensor, out, adept.cat(inputs), op=reduce_op)
        continue
    want = reduce_np([values(r * world + rank, dtype) for r in ranks], op, dtype)
    assert dist.reduce_scatter(out, inputs, op=reduce_op) is None
    check_equal(out, want, f"reduce_scatter {op} {dtype}")
    out = adept.zeros(6, dtype=dtype)
    dist.reduce_scatter_tensor(out, adept.cat(inputs), op=reduce_op)
    check_equal(out, want, f"reduce_scatter_tensor {op} {dtype}")
# Default SUM, 2-d chunks of a [world * 2, 3] input, a non-contiguous output.
inp = adept.arange(world * 6, dtype=adept.float32).reshape(world * 2, 3) * (rank + 1)
out = adept.zeros(3, 2).t()
dist.reduce_scatter_tensor(out, inp)
total = sum(r + 1 for r in ranks)
check_equal(out, np.arange(world * 6, dtype=np.float32).reshape(world, 2, 3)[rank] * total,
            "reduce_scatter_tensor 2-d")
dist.reduce_scatter(adept.zeros(0), [adept.zeros(0) for _ in ranks])
expect_raises(ValueError, dist.reduce_scatter, adept.zeros(2), [adept.zeros(2)] * (world + 1))
expect_raises(ValueError, dist.reduce_scatter, adept.zeros(2), [adept.zeros(3)] * world)
expect_raises(ValueError, dist.reduce_scatter_tensor, adept.zeros(2), adept.zeros(2 * world + 1))

# --- async_op: Work ---------------------------------------------------------------------------------------

a = adept.full((4,), float(rank + 1))
b = adept.full((2,), float(rank)) if rank == 0 else adept.zeros(2)
gathered = [adept.zeros(1, dtype=adept.int64) for _ in ranks]
works = [dist.all_reduce(a, op=dist.ReduceOp.AVG, async_op=True),
         dist.broadcast(b, 0, async_op=True),
         dist.all_gather(gathered, adept.tensor([rank], dtype=adept.int64), async_op=True),
         dist.barrier(async_op=True)]
assert all(isinstance(w, dist.Work) for w in works)
for w in reversed(works):  # any waiting order
    assert w.wait() is True
    assert w.is_completed()
    w.wait()  # a second wait is a no-op
check_equal(a, np.full(4, sum(r + 1 for r in ranks) / world, np.float32), "async all_reduce AVG")
check_equal(b, np.zeros(2, np.float32), "async broadcast")
check_equal(adept.cat(gathered), np.arange(world), "async all_gather")
# Many in flight at once, waited in order: each result lands in its own tensor.
ts = [adept.full((3,), float(i * (rank + 1))) for i in range(8)]
works = [dist.all_reduce(t, async_op=True) for t in ts]
for i, (t, w) in enumerate(zip(ts, works)):
    w.wait()
    check_equal(t, np.full(3, i * sum(r + 1 for r in ranks), np.float32), f"async all_reduce #{i}")
assert dist.barrier() is None
# wait(timeout): on rank 1 an all_reduce that rank 0 joins only a second later raises TimeoutError after 50 ms
# (and goes on running), then completes; the other ranks just take part.
t = adept.ones(2)
dist.barrier()
if rank == 1:
    w = dist.all_reduce(t, async_op=True)
    try:
        w.wait(timeout=datetime.timedelta(milliseconds=50))
        raise AssertionError("wait(timeout) returned while rank 0 had not joined")
    except TimeoutError as e:
        assert "did not finish within 50 ms" in str(e), e
    assert w.wait(timeout=datetime.timedelta(seconds=30)) is True
else:
    if rank == 0:
        time.sleep(1.0)
    dist.all_reduce(t)
check_equal(t, np.full(2, world, np.float32), "all_reduce waited with a timeout")

# --- DistributedSampler: num_replicas and rank from the group ---------------------------------------------

dataset = list(range(11))
sampler = adept.utils.data.DistributedSampler(dataset, shuffle=True, seed=3)
assert sampler.num_replicas == world and sampler.rank == rank
explicit = adept.utils.data.DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle=True, seed=3)
assert list(sampler) == list(explicit) and len(sampler) == -(-len(dataset) // world)
for epoch in (0, 1):
    sampler.set_epoch(epoch)
    mine = adept.tensor(list(sampler), dtype=adept.int64)
    everyone = [adept.zeros(len(sampler), dtype=adept.int64) for _ in ranks]
    dist.all_gather(everyone, mine)
    allidx = adept.cat(everyone).tolist()
    assert sorted(set(allidx)) == dataset, f"epoch {epoch}: the ranks' shares {allidx} miss samples"
    assert len(allidx) == world * len(sampler)
sampler = adept.utils.data.DistributedSampler(dataset, shuffle=False, drop_last=True)
assert list(sampler) == dataset[rank:len(dataset) // world * world:world]
expect_raises(ValueError, adept.utils.data.DistributedSampler, dataset, rank=world)

# --- destroy_process_group ------------------------------------------------------------------------------------

dist.destroy_process_group()
assert not dist.is_initialized()
expect_raises(ValueError, dist.all_reduce, adept.ones(2))
expect_raises(ValueError, dist.init_process_group, "mpi")  # MPI cannot start twice in a process
dist.destroy_process_group()  # a no-op now
print(f"rank {rank}: collectives OK ({CHECKS[0]} checks)", flush=True)
