"""adept.nn.parallel.DistributedDataParallel against single-process references, run as one job of N
ranks (test_distributed.py starts it with mpirun -np 2). Every rank builds the full batch and takes its
own 1/N of it; the reference model trains on the full batch in the same process, so "N ranks x B/N
equals 1 process x B" is checked on every rank (the losses are means over the local batch, so DDP's
gradient average is the full batch's mean). Prints "rank R: ddp OK" at the end; a failed check raises,
and adept.distributed's excepthook aborts the job.
"""
import datetime
import sys

import numpy as np

import adept
import adept.distributed as dist
import adept.nn as nn
import adept.nn.functional as F
from adept.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=60))
rank, world = dist.get_rank(), dist.get_world_size()
ranks = range(world)
B = 4 * world  # full batch; each rank's share is 4
RTOL, ATOL = 1e-5, 1e-6
only = set(sys.argv[1:])  # run a subset of the sections (debugging)


def section(name, default=True):
    if (only and name not in only) or (not only and not default):
        return False
    print(f"rank {rank}: {name}", flush=True)
    return True


def batch(seed, n=B, d_in=4, d_out=3):
    rng = np.random.default_rng(seed)
    x = adept.tensor(rng.standard_normal((n, d_in)).astype(np.float32).tolist())
    y = adept.tensor(rng.standard_normal((n, d_out)).astype(np.float32).tolist())
    return x, y


def share(t, r=None):
    r = rank if r is None else r
    n = t.shape[0] // world
    return t[r * n:(r + 1) * n]


def gather(t):
    t = t.detach().contiguous()
    outs = [adept.zeros_like(t) for _ in ranks]
    dist.all_gather(outs, t)
    return outs


def flat(tensors):
    return adept.cat([t.detach().reshape(-1) for t in tensors])


CHECKS = [0]


def same_on_every_rank(t, what):
    CHECKS[0] += 1
    outs = gather(t)
    for r in ranks:
        assert adept.equal(outs[r], outs[0]), f"{what}: rank {r} differs from rank 0:\n{outs[r]}\n{outs[0]}"


def close(a, b, what, rtol=RTOL, atol=ATOL):
    CHECKS[0] += 1
    a, b = a.detach(), b.detach()
    assert a.shape == b.shape, f"{what}: shapes {a.shape} and {b.shape}"
    assert adept.allclose(a, b, rtol=rtol, atol=atol), f"{what}: max |diff| {(a - b).abs().max().item()}\n{a}\n{b}"


def close_grads(model, ref, what):
    for (name, p), (_, q) in zip(model.named_parameters(), ref.named_parameters()):
        assert (p.grad is None) == (q.grad is None), f"{what}: {name}.grad is {p.grad} but the reference's {q.grad}"
        if p.grad is not None:
            close(p.grad, q.grad, f"{what}: {name}.grad")


def close_params(model, ref, what):
    for (name, p), (_, q) in zip(model.named_parameters(), ref.named_parameters()):
        close(p, q, f"{what}: {name}")


def mlp(seed, *sizes):
    adept.manual_seed(seed)
    layers = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(a, b), nn.Tanh()]
    return nn.Sequential(*layers[:-1])


def copy_of(model, build):
    ref = build()
    ref.load_state_dict(model.state_dict())
    return ref


# (a) + (b): different initial parameters on every rank, equal after DDP's broadcast and after every step;
# N ranks x B/N equal one process x B (SGD with momentum, 3 steps); the gradients are the average of the
# ranks' local gradients (torch's semantics).
if section("train"):
    model = mlp(100 + rank, 4, 8, 3)
    before = gather(flat(model.parameters()))
    assert not adept.equal(before[0], before[1]), "the ranks' initial parameters should differ"
    ddp = DDP(model)
    assert ddp.module is model
    same_on_every_rank(flat(model.parameters()), "parameters after DDP's construction")
    assert adept.equal(flat(model.parameters()), before[0]), "DDP must broadcast rank 0's parameters"
    ref = copy_of(model, lambda: mlp(0, 4, 8, 3))
    opt = adept.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
    ref_opt = adept.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    for step in range(3):
        x, y = batch(step)
        local = copy_of(model, lambda: mlp(0, 4, 8, 3))  # this rank's gradients, without DDP
        F.mse_loss(local(share(x)), share(y)).backward()
        opt.zero_grad()
        loss = F.mse_loss(ddp(share(x)), share(y))
        loss.backward()
        for p, q in zip(model.parameters(), local.parameters()):
            avg = q.grad.clone()
            dist.all_reduce(avg, op=dist.ReduceOp.AVG)
            close(p.grad, avg, f"step {step}: DDP's gradient vs the average of the local ones")
            same_on_every_rank(p.grad, f"step {step}: gradients")
        ref_opt.zero_grad()
        F.mse_loss(ref(x), y).backward()
        close_grads(model, ref, f"step {step}: gradients vs one process on the full batch")
        opt.step()
        ref_opt.step()
        close_params(model, ref, f"step {step}: parameters vs one process on the full batch")
        same_on_every_rank(flat(model.parameters()), f"step {step}: parameters")
    # The mean loss over the ranks equals the full batch's loss.
    full_loss = F.mse_loss(ref(x), y)
    with adept.no_grad():
        l = F.mse_loss(ddp(share(x)), share(y)).reshape(1)
    dist.all_reduce(l, op=dist.ReduceOp.AVG)
    close(l[0], full_loss, "loss averaged over the ranks vs the full batch's")

# (c) no_sync: two micro-batches, the first accumulated locally under no_sync, the second synced, equal the
# full batch.
if section("no_sync"):
    model = mlp(200 + rank, 4, 6, 3)
    ddp = DDP(model)
    ref = copy_of(model, lambda: mlp(0, 4, 6, 3))
    x, y = batch(10)
    xl, yl = share(x), share(y)
    half = xl.shape[0] // 2
    assert ddp.require_backward_grad_sync
    with ddp.no_sync():
        assert not ddp.require_backward_grad_sync
        (F.mse_loss(ddp(xl[:half]), yl[:half]) * 0.5).backward()
    assert ddp.require_backward_grad_sync
    local = copy_of(model, lambda: mlp(0, 4, 6, 3))
    (F.mse_loss(local(xl[:half]), yl[:half]) * 0.5).backward()
    close_grads(model, local, "after the no_sync backward: this rank's own gradients")
    g = gather(model[0].weight.grad)
    assert not adept.allclose(g[0], g[1]), "no_sync must not average the gradients"
    (F.mse_loss(ddp(xl[half:]), yl[half:]) * 0.5).backward()
    F.mse_loss(ref(x), y).backward()
    close_grads(model, ref, "no_sync micro-batch + synced micro-batch vs the full batch")
    # The context restores what was there: nested no_sync, and an exception inside it.
    with ddp.no_sync():
        with ddp.no_sync():
            pass
        assert not ddp.require_backward_grad_sync
    try:
        with ddp.no_sync():
            raise KeyError("inside no_sync")
    except KeyError:
        pass
    assert ddp.require_backward_grad_sync
    # A second backward through a forward whose gradients were reduced would leave them unsynchronised: an error
    # on every rank (torch: "Expected to mark a variable ready only once").
    out = F.mse_loss(ddp(xl), yl)
    out.backward(retain_graph=True)
    try:
        out.backward()
        raise AssertionError("a second backward through the same forward was accepted")
    except RuntimeError as e:
        assert "received a gradient in a second backward through the same forward" in str(e), e


# (d) find_unused_parameters: `unused` takes part on no rank, `sometimes` only on the rank chosen by the step.
class Branchy(nn.Module):
    def __init__(self, seed):
        super().__init__()
        adept.manual_seed(seed)
        self.trunk = nn.Linear(4, 5)
        self.unused = nn.Linear(5, 5)
        self.sometimes = nn.Linear(5, 5)
        self.head = nn.Linear(5, 3)

    def forward(self, x, use_sometimes=False):
        h = adept.tanh(self.trunk(x))
        if use_sometimes:
            h = h + self.sometimes(h)
        return self.head(h)


if section("unused"):
    model = Branchy(300 + rank)
    ddp = DDP(model, find_unused_parameters=True)
    opt = adept.optim.SGD(ddp.parameters(), lr=0.1)
    # step 0: rank 0 uses `sometimes`, step 1: rank 1 does, step 2: no rank does.
    for step, user in enumerate([0, 1 % world, None]):
        x, y = batch(20 + step)
        use = rank == user
        local = copy_of(model, lambda: Branchy(0))
        F.mse_loss(local(share(x), use), share(y)).backward()
        opt.zero_grad()
        F.mse_loss(ddp(share(x), use_sometimes=use), share(y)).backward()
        for (name, p), q in zip(model.named_parameters(), local.parameters()):
            if name.startswith("unused") or (name.startswith("sometimes") and user is None):
                # No rank used it: its gradient stays as it was (None after zero_grad), as in torch.
                assert p.grad is None, f"step {step}: {name} was used on no rank but got a gradient"
                continue
            # A rank that did not use it contributes zeros to the average.
            mine = q.grad.clone() if q.grad is not None else adept.zeros_like(p)
            dist.all_reduce(mine, op=dist.ReduceOp.AVG)
            assert p.grad is not None, f"step {step}: {name} has no gradient on rank {rank}"
            close(p.grad, mine, f"step {step}: {name}.grad")
            same_on_every_rank(p.grad, f"step {step}: {name}.grad")
        opt.step()
        same_on_every_rank(flat(model.parameters()), f"find_unused step {step}: parameters")
    # Without find_unused_parameters, a parameter no rank uses is a clear error at the end of backward (on
    # every rank, so the job goes on).
    model = Branchy(400)
    ddp = DDP(model)
    x, y = batch(30)
    try:
        F.mse_loss(ddp(share(x)), share(y)).backward()
    except RuntimeError as e:
        msg = str(e)
        for part in ("unused.weight", "unused.bias", "sometimes.weight", "find_unused_parameters", f"rank {rank}"):
            assert part in msg, f"the error should name {part!r}: {msg}"
        assert "trunk" not in msg and "head" not in msg, msg
    else:
        raise AssertionError("DDP without find_unused_parameters: an unused parameter should raise in backward")
    # Every rank raised at the same point, so the ranks' collectives are still in step.
    check = adept.full((1,), float(rank))
    dist.all_reduce(check)
    assert check.item() == sum(ranks)
    del ddp

# (e) small buckets: bucket_cap_mb of ~200 bytes puts the parameters into several buckets, in reverse
# registration order; a float64 layer gets buckets of its own. Gradients still equal the full batch's.


class Mixed(nn.Module):
    def __init__(self, seed):
        super().__init__()
        adept.manual_seed(seed)
        self.a = nn.Linear(4, 6)
        self.b = nn.Linear(6, 6).double()
        self.c = nn.Linear(6, 5)
        self.d = nn.Linear(5, 3)

    def forward(self, x):
        h = adept.tanh(self.a(x))
        h = adept.tanh(self.b(h.double())).float()
        return self.d(adept.tanh(self.c(h)))


if section("buckets"):
    model = Mixed(500 + rank)
    n_params = len(list(model.parameters()))
    ddp = DDP(model, bucket_cap_mb=200 / 2 ** 20)
    buckets = ddp.reducer.bucket_indices()
    assert len(buckets) >= 4, f"expected several buckets, got {buckets}"
    assert sorted(i for b in buckets for i in b) == list(range(n_params)), buckets
    assert buckets[0][0] == n_params - 1, f"the first bucket should start with the last parameter: {buckets}"
    dtypes = [p.dtype for p in model.parameters()]
    for b in buckets:
        assert len({dtypes[i] for i in b}) == 1, f"a bucket mixes dtypes: {buckets}"
    assert len(DDP(Mixed(0)).reducer.bucket_indices()) == 2, "default caps: one bucket per dtype for a tiny model"
    ref = copy_of(model, lambda: Mixed(0))
    opt = adept.optim.SGD(ddp.parameters(), lr=0.05)
    ref_opt = adept.optim.SGD(ref.parameters(), lr=0.05)
    for step in range(2):
        x, y = batch(40 + step)
        opt.zero_grad()
        ref_opt.zero_grad()
        F.mse_loss(ddp(share(x)), share(y)).backward()
        F.mse_loss(ref(x), y).backward()
        close_grads(model, ref, f"small buckets, step {step}")
        opt.step()
        ref_opt.step()
        same_on_every_rank(flat([p.float() for p in model.parameters()]), f"small buckets, step {step}: parameters")
    for bad in (0, -1):
        try:
            DDP(Mixed(0), bucket_cap_mb=bad)
        except ValueError:
            pass
        else:
            raise AssertionError(f"bucket_cap_mb={bad} should raise ValueError")

# (f) state_dict keys are the module's with "module." in front, as torch's DDP; loading goes both ways.
if section("state_dict"):
    model = mlp(600, 3, 4, 2)
    ddp = DDP(model)
    inner = list(model.state_dict().keys())
    keys = list(ddp.state_dict().keys())
    assert keys == ["module." + k for k in inner], keys
    assert [n for n, _ in ddp.named_parameters()] == ["module." + n for n, _ in model.named_parameters()]
    other = mlp(601, 3, 4, 2)
    ddp.load_state_dict({"module." + k: v for k, v in other.state_dict().items()})
    assert adept.equal(flat(model.parameters()), flat(other.parameters()))

# (g) BatchNorm: buffers come from rank 0 at construction and before every training forward, whose batch
# statistics are then local (not synchronised: that is SyncBatchNorm); in eval mode nothing is broadcast.


def bn_net(seed):
    adept.manual_seed(seed)
    return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Tanh(), nn.Linear(4, 2))


if section("batchnorm"):
    model = bn_net(700 + rank)
    bn = model[1]
    with adept.no_grad():
        bn.running_mean.fill_(rank + 1.0)
        bn.running_var.fill_(rank + 2.0)
        bn.num_batches_tracked.fill_(10 * rank)
    ddp = DDP(model)
    assert adept.equal(bn.running_mean, adept.full((4,), 1.0)) and adept.equal(bn.running_var, adept.full((4,), 2.0))
    assert bn.num_batches_tracked.item() == 0
    opt = adept.optim.SGD(ddp.parameters(), lr=0.1)
    for step in range(3):
        x, y = batch(50 + step, d_in=3, d_out=2)
        # The reference: this rank's parameters with rank 0's buffers, on this rank's batch.
        ref = copy_of(model, lambda: bn_net(0))
        rank0 = [gather(b)[0] for b in model.buffers()]
        with adept.no_grad():
            for b, b0 in zip(ref.buffers(), rank0):
                b.copy_(b0)
        out = ddp(share(x))
        close(out, ref(share(x)), f"BatchNorm step {step}: output")
        for (name, b), r in zip(model.named_buffers(), ref.buffers()):
            close(b, r, f"BatchNorm step {step}: {name} after the forward")
        assert bn.num_batches_tracked.item() == step + 1
        rm = gather(bn.running_mean)
        assert not adept.allclose(rm[0], rm[1]), "the running means after a forward come from local batches"
        opt.zero_grad()
        F.mse_loss(out, share(y)).backward()
        opt.step()
        same_on_every_rank(flat(model.parameters()), f"BatchNorm step {step}: parameters")
    # broadcast_buffers=False: training forwards leave each rank's buffers alone.
    model = bn_net(800 + rank)
    with adept.no_grad():
        model[1].running_mean.fill_(float(rank))
    ddp = DDP(model, broadcast_buffers=False)  # construction still broadcasts
    assert adept.equal(model[1].running_mean, adept.zeros(4))
    with adept.no_grad():
        model[1].running_mean.fill_(float(rank))
    ddp(share(x))
    expect = 0.9 * float(rank) + 0.1 * model[0](share(x)).mean(0)
    close(model[1].running_mean, expect, "broadcast_buffers=False: local running mean")

# Training in eval mode (frozen BatchNorm statistics, common when fine-tuning detectors) with grad enabled:
# torch's DDP arms its reducer whenever grad mode is on and averages the gradients (it never looks at
# .training). Not run by default: adept's DDP arms only in training mode (test_distributed.py runs it as an
# expected failure).
if section("eval_grad", default=False):
    model = bn_net(900 + rank)
    ddp = DDP(model)
    ddp.eval()
    x, y = batch(60, d_in=3, d_out=2)
    local = copy_of(model, lambda: bn_net(0))
    local.eval()
    F.mse_loss(local(share(x)), share(y)).backward()
    F.mse_loss(ddp(share(x)), share(y)).backward()
    for (name, p), q in zip(model.named_parameters(), local.parameters()):
        avg = q.grad.clone()
        dist.all_reduce(avg, op=dist.ReduceOp.AVG)
        close(p.grad, avg, f"eval-mode backward: {name}.grad vs the average of the local ones")

dist.barrier()
print(f"rank {rank}: ddp OK ({CHECKS[0]} checks)", flush=True)
