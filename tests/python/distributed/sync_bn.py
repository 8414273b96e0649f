"""adept.nn.SyncBatchNorm in 2 ranks against torch.nn.BatchNorm2d over the whole global batch: the output,
the input gradient of this rank's rows, the affine gradients summed over ranks and the running statistics, for
float64 / float32 / float16, uneven and empty per-rank batches, non-contiguous inputs and (when a Vulkan device
is present) on the GPU; the float64 input gradient also against central finite differences of the global loss;
convert_sync_batchnorm shares the module's tensors."""
import numpy as np
import torch

import adept
import adept.distributed as dist
import adept.nn as nn

dist.init_process_group("mpi")
r, w = dist.get_rank(), dist.get_world_size()


def as_np(t):
    return np.asarray(t.detach().cpu().double().tolist(), dtype=np.float64).reshape(tuple(t.shape))


def check(name, rows_per_rank, dtype=adept.float64, tol=1e-9, device="cpu", transposed=False):
    rng = np.random.default_rng(sum(rows_per_rank) + len(name))
    starts = np.cumsum([0] + rows_per_rank)
    xg = rng.standard_normal((starts[-1], 4, 5, 2))
    cg = rng.standard_normal(xg.shape)
    ref = torch.nn.BatchNorm2d(4, momentum=0.2).double()
    xt = torch.tensor(xg, requires_grad=True)
    (ref(xt) * torch.tensor(cg)).sum().backward()

    model = nn.SyncBatchNorm.convert_sync_batchnorm(nn.Sequential(nn.BatchNorm2d(4, momentum=0.2)))
    bn = model[0]
    assert type(bn).__name__ == "SyncBatchNorm", type(bn)
    bn.to(dtype).to(device)
    rows = slice(starts[r], starts[r + 1])
    mine = xg[rows]
    if transposed:  # the same values through a non-contiguous view (N, C, W, H) -> (N, C, H, W)
        x = adept.tensor(np.ascontiguousarray(mine.transpose(0, 1, 3, 2))).to(dtype).to(device).transpose(2, 3)
        assert not x.is_contiguous()
    else:
        x = adept.tensor(mine).to(dtype).to(device)
    x = x.detach().requires_grad_()
    y = bn(x)
    (y * adept.tensor(cg[rows]).to(dtype).to(device)).sum().backward()
    yt = torch.nn.functional.batch_norm(torch.tensor(xg), None, None, ref.weight, ref.bias, True, 0.0, ref.eps)

    def close(a, b, what):
        got, want = as_np(a), b.detach().numpy()
        scale = max(1.0, float(np.abs(want).max()) if want.size else 1.0)
        assert np.allclose(got, want, rtol=tol, atol=tol * scale), f"{name}: {what}: {np.abs(got - want).max()}"

    assert y.dtype == dtype and str(y.device).startswith(device), (name, y.dtype, y.device)
    close(y, yt[rows], "output")
    close(x.grad, xt.grad[rows], "input gradient")
    for p, want in ((bn.weight, ref.weight), (bn.bias, ref.bias)):
        g = p.grad.clone()
        dist.all_reduce(g)
        close(g, want.grad, "affine gradient")
    close(bn.running_mean, ref.running_mean, "running mean")
    close(bn.running_var, ref.running_var, "running var")
    return bn, x


check("float64", [3] * w)
check("float64 uneven", [3, 1] + [2] * (w - 2))
check("float64 empty on the last rank", [3] * (w - 1) + [0])
check("float64 non-contiguous", [2] * w, transposed=True)
check("float32", [3] * w, adept.float32, 1e-5)
check("float16", [3] * w, adept.float16, 2e-2)
if adept.vulkan.is_available():
    check("float32 on vulkan", [3, 1] + [2] * (w - 2), adept.float32, 1e-4, "vulkan")
    check("float32 on vulkan, non-contiguous", [2] * w, adept.float32, 1e-4, "vulkan", transposed=True)

# Central finite differences of the global loss sum_ranks sum(y * c) in float64: each rank in turn perturbs
# one of its elements while every rank runs the (collective) forward.
bn, x = check("float64 for finite differences", [2] * w)
rng = np.random.default_rng(5)
c = adept.tensor(rng.standard_normal(tuple(x.shape)))
x.grad = None
bn.train()
(bn(x) * c).sum().backward()
analytic = as_np(x.grad)
base = as_np(x)
eps = 1e-6
for owner in range(w):
    for flat in (0, 7, 23, 39):
        idx = np.unravel_index(flat, base.shape)
        losses = []
        for sign in (1, -1):
            xs = base.copy()
            if r == owner:
                xs[idx] += sign * eps
            with adept.no_grad():
                loss = (bn(adept.tensor(xs)) * c).sum().reshape(1)
            dist.all_reduce(loss)
            losses.append(float(loss.item()))
        if r == owner:
            numeric = (losses[0] - losses[1]) / (2 * eps)
            assert abs(numeric - analytic[idx]) < 1e-5 * max(1.0, abs(numeric)), (owner, flat, numeric, analytic[idx])
print(f"rank {r}: sync_bn OK")
dist.destroy_process_group()
