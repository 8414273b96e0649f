"""A process group of one, started without mpirun (an MPI singleton): every collective is the identity
(AVG divides by 1), DDP trains as the plain module and DistributedSampler takes every index."""
import datetime

import adept
import adept.distributed as dist
import adept.nn as nn
import adept.nn.functional as F
from adept.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=30))
assert (dist.get_rank(), dist.get_world_size(), dist.get_node_local_rank()) == (0, 1, 0)
t = adept.tensor([1.5, -2.0, 3.0])
for op in ("SUM", "AVG", "MAX", "MIN", "PRODUCT"):
    dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
    assert t.tolist() == [1.5, -2.0, 3.0], (op, t)
dist.broadcast(t, 0)
out = [adept.zeros(3)]
dist.all_gather(out, t)
assert adept.equal(out[0], t)
dist.barrier(async_op=True).wait()

adept.manual_seed(0)
model = nn.Linear(3, 2)
ref = nn.Linear(3, 2)
ref.load_state_dict(model.state_dict())
ddp = DDP(model)
x, y = adept.randn(5, 3), adept.randn(5, 2)
F.mse_loss(ddp(x), y).backward()
F.mse_loss(ref(x), y).backward()
assert adept.allclose(model.weight.grad, ref.weight.grad) and adept.allclose(model.bias.grad, ref.bias.grad)
assert list(adept.utils.data.DistributedSampler(range(5), shuffle=False)) == [0, 1, 2, 3, 4]
dist.destroy_process_group()
print("singleton OK", flush=True)
