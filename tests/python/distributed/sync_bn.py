"""adept.nn.SyncBatchNorm in 2 ranks against torch.nn.BatchNorm2d over the whole global batch: the output,
the input gradient of this rank's rows, the affine gradients summed over ranks and the running statistics;
convert_sync_batchnorm shares the module's tensors."""
import numpy as np
import torch

import adept
import adept.distributed as dist
import adept.nn as nn

dist.init_process_group("mpi")
r, w = dist.get_rank(), dist.get_world_size()
rng = np.random.default_rng(0)
xg = rng.standard_normal((3 * w, 4, 5, 2))
cg = rng.standard_normal(xg.shape)
ref = torch.nn.BatchNorm2d(4, momentum=0.2).double()
xt = torch.tensor(xg, requires_grad=True)
(ref(xt) * torch.tensor(cg)).sum().backward()

model = nn.SyncBatchNorm.convert_sync_batchnorm(nn.Sequential(nn.BatchNorm2d(4, momentum=0.2)))
bn = model[0]
assert type(bn).__name__ == "SyncBatchNorm", type(bn)
bn.to(adept.float64)
rows = slice(3 * r, 3 * r + 3)
x = adept.tensor(xg[rows]).requires_grad_()
y = bn(x)
(y * adept.tensor(cg[rows])).sum().backward()
close = lambda a, b: np.allclose(np.asarray(a.detach().tolist()), b.detach().numpy(), rtol=1e-9, atol=1e-9)
yt = torch.nn.functional.batch_norm(torch.tensor(xg), None, None, ref.weight, ref.bias, True, 0.0, ref.eps)
assert close(y, yt[rows])
assert close(x.grad, xt.grad[rows])
gw = bn.weight.grad.clone()
dist.all_reduce(gw)
assert close(gw, ref.weight.grad)
assert close(bn.running_var, ref.running_var)
print(f"rank {r}: sync_bn OK")
dist.destroy_process_group()
