"""Faulty jobs for test_distributed.py: each mode makes one rank misbehave while the others wait in a
collective; the test checks that the whole job ends quickly, with a nonzero exit status and a message
naming the rank. Usage: mpirun -np 2 python3 faults.py MODE

Every rank prints "rank R pid P ready" once the process group is up (the SIGTERM test reads it). A line
"UNREACHABLE" in the output means a collective returned although a rank never took part.
"""
import datetime
import os
import signal
import sys
import time

import adept
import adept.distributed as dist

mode = sys.argv[1]
# Only the `timeout` modes rely on the process group's timeout; the others must end through the
# exception hook or mpirun long before this one.
timeout = datetime.timedelta(seconds=3 if mode.startswith("timeout") else 120)
dist.init_process_group("mpi", timeout=timeout)
rank, world = dist.get_rank(), dist.get_world_size()
print(f"rank {rank} pid {os.getpid()} ready", flush=True)
t = adept.ones(4)
dist.all_reduce(t)  # collective #0
dist.barrier()      # collective #1
assert t.tolist() == [float(world)] * 4

if mode == "raise":
    # Rank 1 fails while rank 0 waits for it in all_reduce #2.
    if rank == 1:
        raise RuntimeError("injected failure on rank 1")
    dist.all_reduce(t)
elif mode == "raise_async":
    # Rank 0 has an async all_reduce in flight and computes; rank 1 fails before starting it.
    if rank == 1:
        time.sleep(0.2)
        raise ValueError("injected failure on rank 1")
    w = dist.all_reduce(t, async_op=True)
    w.wait()
elif mode == "kill":
    # Rank 1 dies (SIGKILL: no exception hook, no atexit) while rank 0 waits in all_reduce #2.
    if rank == 1:
        time.sleep(0.2)
        os.kill(os.getpid(), signal.SIGKILL)
    dist.all_reduce(t)
elif mode == "timeout_exit":
    # Rank 1 leaves early with sys.exit(3): no exception hook runs, but the exit's destroy_process_group meets
    # rank 0's all_reduce, which ends the job at once (not at rank 0's timeout).
    if rank == 1:
        sys.exit(3)
    dist.all_reduce(t)
elif mode == "timeout":
    # Rank 1 is stuck (sleeps) instead of calling all_reduce #2: rank 0's timeout names it.
    if rank == 1:
        time.sleep(60)
    dist.all_reduce(t)
elif mode == "timeout_async":
    # The same with async_op: the timeout runs on the communication thread, not in wait().
    if rank == 1:
        time.sleep(60)
    w = dist.all_reduce(t, async_op=True)
    time.sleep(60)
    w.wait()
elif mode == "mismatch_op":
    # Collective #2 is all_reduce on rank 0 and broadcast on rank 1 (same size and dtype).
    if rank == 0:
        dist.all_reduce(t)
    else:
        dist.broadcast(t, 0)
elif mode == "mismatch_size":
    # Collective #2 is all_reduce on both ranks, of 4 elements on rank 0 and 6 on rank 1.
    dist.all_reduce(adept.ones(4 + 2 * rank))
elif mode == "mismatch_dtype":
    dist.all_reduce(adept.ones(4, dtype=adept.float64 if rank else adept.float32))
elif mode == "mismatch_src":
    # broadcast with src 0 on rank 0 and src 1 on rank 1: each would send its own data (a hang for large ones).
    dist.broadcast(adept.ones(1 << 20), rank)
elif mode == "ddp_unused_on_some_ranks":
    # DDP without find_unused_parameters, where rank 1 does not use a layer that rank 0 uses: rank 1's
    # backward raises (naming the parameter), which ends the job; rank 0 waits in that layer's bucket.
    import adept.nn as nn
    from adept.nn.parallel import DistributedDataParallel as DDP

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(3, 3)
            self.sometimes = nn.Linear(3, 3)

        def forward(self, x, use):
            h = self.a(x)
            return (self.sometimes(h) if use else h).sum()

    ddp = DDP(Net())
    ddp(adept.ones(2, 3), rank == 0).backward()
elif mode == "ddp_different_models":
    # Rank 1 wraps a model with another layer width: DDP's construction says so on every rank.
    import adept.nn as nn
    from adept.nn.parallel import DistributedDataParallel as DDP

    DDP(nn.Sequential(nn.Linear(3, 4 + rank), nn.Linear(4 + rank, 2)))
elif mode == "loop":
    # Both ranks loop in collectives until mpirun is signalled (the test sends SIGTERM or SIGINT).
    while True:
        dist.all_reduce(t)
        dist.barrier()
        time.sleep(0.001)
else:
    raise SystemExit(f"unknown mode {mode}")
print("UNREACHABLE", flush=True)
