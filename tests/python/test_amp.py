"""adept.autocast / adept.amp.GradScaler (torch.autocast, torch.amp.GradScaler).

Autocast on the CPU (bfloat16) against live torch 1.13's CPU autocast for the matrix products and
convolutions (same dtypes, same values: both round the inputs to bfloat16); the op policy on the
device under test (--device vulkan: float16); GradScaler's scale, unscale_, skip, backoff/growth and
errors; the decorator and nesting.

Run: PYTHONPATH=<build dir>/python OMP_NUM_THREADS=2 /usr/bin/python3 -m pytest -q tests/python/test_amp.py
"""
import math

import numpy as np
import pytest
import torch

import adept


def _pair(shape, seed):
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return adept.tensor(a), torch.tensor(a)


def _np(t):
    return t.detach().cpu().float().numpy()


def test_cpu_autocast_matches_torch():
    """Products in bfloat16 as torch.autocast("cpu"): the dtype from torch's region, the values from
    torch in float32 on the bfloat16-rounded operands (the exact product of what the op sees; torch's own
    bfloat16 convolution can be off by several units in the last place, e.g. oneDNN on CPUs without
    native bfloat16: 0.25 at -13.6 measured)."""
    a, ta = _pair((5, 7), 0)
    b, tb = _pair((7, 4), 1)
    x, tx = _pair((2, 3, 8, 8), 2)
    w, tw = _pair((4, 3, 3, 3), 3)
    ops = [(adept.matmul, torch.matmul, (a, b), (ta, tb), {}), (adept.mm, torch.mm, (a, b), (ta, tb), {}),
           (adept.nn.functional.linear, torch.nn.functional.linear, (a, b.t()), (ta, tb.t()), {}),
           (adept.nn.functional.conv2d, torch.nn.functional.conv2d, (x, w), (tx, tw), {"padding": 1})]
    for op, top, args, targs, kw in ops:
        with adept.autocast("cpu"), torch.autocast("cpu"):
            got, want_dtype = op(*args, **kw), top(*targs, **kw).dtype
        want = top(*[t.bfloat16().float() for t in targs], **kw).bfloat16()
        assert str(got.dtype).split(".")[-1] == str(want_dtype).split(".")[-1] == "bfloat16", op
        np.testing.assert_allclose(_np(got), _np(want), rtol=2e-2, atol=2e-2, err_msg=str(op))
    assert adept.matmul(a, b).dtype == adept.float32  # outside the region


def test_cpu_policy_matches_torch():
    """PyTorch's CPU lists: products in bfloat16; softmax, sum, exp, layer_norm stay bfloat16; the
    losses (binary_cross_entropy included) and prod in float32; training batch norm keeps bfloat16."""
    a, ta = _pair((4, 8), 5)
    x, tx = _pair((2, 3, 4, 4), 6)
    h, th = a.bfloat16(), ta.bfloat16()
    F, TF = adept.nn.functional, torch.nn.functional
    with adept.autocast("cpu"), torch.autocast("cpu"):
        pairs = [(h.softmax(1), th.softmax(1)), (h.sum(), th.sum()), (h.exp(), th.exp()),
                 (F.layer_norm(h, [8]), TF.layer_norm(th, [8])), (F.elu(h), TF.elu(th)),
                 (F.mse_loss(h, h), TF.mse_loss(th, th)), (h.prod(), th.prod()),
                 (F.binary_cross_entropy(h.sigmoid(), adept.zeros_like(h)),
                  TF.binary_cross_entropy(th.sigmoid(), torch.zeros_like(th))),
                 (F.softmax(h, dim=1, dtype=adept.float64), TF.softmax(th, dim=1, dtype=torch.float64)),
                 (F.batch_norm(x.bfloat16(), adept.zeros(3), adept.ones(3), adept.ones(3), adept.zeros(3), training=True),
                  TF.batch_norm(tx.bfloat16(), torch.zeros(3), torch.ones(3), torch.ones(3), torch.zeros(3), training=True))]
    for got, want in pairs:
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], (got.dtype, want.dtype)


def test_policy_on_device(device):
    dev_type = "cpu" if device == "cpu" else "vulkan"
    low = adept.bfloat16 if dev_type == "cpu" else adept.float16
    a = adept.randn(4, 8, device=device)
    assert not adept.is_autocast_enabled(dev_type)
    with adept.autocast(dev_type) as ac:
        assert ac.fast_dtype == low and adept.is_autocast_enabled(dev_type)
        assert adept.get_autocast_dtype(dev_type) == low
        assert (a @ a.t()).dtype == low
        h = a.to(low)
        gpu_f32 = low if dev_type == "cpu" else adept.float32  # PyTorch's CUDA list vs its CPU list
        for y in (h.softmax(1), adept.log_softmax(h, 1), h.sum(), h.exp(), h.pow(2), h.norm()):
            assert y.dtype == gpu_f32
        for y in (adept.nn.functional.mse_loss(h, h),
                  adept.nn.functional.cross_entropy(h, adept.tensor([1, 2, 3, 0], device=device))):
            assert y.dtype == adept.float32
        assert h.mean().dtype == low and (h * 2).dtype == low and adept.relu(h).dtype == low
        assert adept.nn.functional.mish(h).dtype == low
        assert (a.double() @ a.double().t()).dtype == adept.float64
        if dev_type == "vulkan":
            with pytest.raises(Exception, match="unsafe to autocast"):
                adept.nn.functional.binary_cross_entropy(adept.sigmoid(h), adept.zeros_like(h))
            with pytest.raises(adept.DeviceError):
                adept.mm(a, adept.randn(8, 2))
        with adept.autocast(dev_type, enabled=False):
            assert (a @ a.t()).dtype == adept.float32
        assert (a @ a.t()).dtype == low
    assert (a @ a.t()).dtype == adept.float32

    @adept.autocast(dev_type)
    def product(u):
        return u @ u.t()
    assert product(a).dtype == low and not adept.is_autocast_enabled(dev_type)


def test_autocast_arguments():
    with pytest.raises(RuntimeError):
        adept.autocast("tpu")
    with pytest.warns(UserWarning, match="Disabling autocast"):
        region = adept.autocast("cpu", dtype=adept.float32)
    a = adept.randn(3, 3)
    with region:
        assert (a @ a).dtype == adept.float32 and not adept.is_autocast_enabled("cpu")
    with adept.autocast("cpu", cache_enabled=False):
        assert (a @ a).dtype == adept.bfloat16


def test_gradients_through_autocast(device):
    dev_type = "cpu" if device == "cpu" else "vulkan"
    adept.manual_seed(0)
    w = adept.randn(6, 3, device=device).requires_grad_()
    x = adept.randn(5, 6, device=device)
    with adept.autocast(dev_type):
        loss = adept.nn.functional.mse_loss(x @ w, adept.zeros(5, 3, device=device))
    loss.backward()
    assert loss.dtype == adept.float32 and w.grad.dtype == adept.float32
    ref = (2 * x.t() @ (x @ w.detach()) / 15).cpu().numpy()
    np.testing.assert_allclose(w.grad.cpu().numpy(), ref, rtol=3e-2, atol=3e-2 * np.abs(ref).max())


def _param(values, grad, device):
    p = adept.tensor(values, device=device).requires_grad_()
    p.grad = adept.tensor(grad, device=device)
    return p


def test_grad_scaler_cycle(device):
    s = adept.amp.GradScaler(device, init_scale=8.0, growth_interval=2)
    assert s.get_scale() == 8.0 and s.is_enabled()
    assert s.scale(adept.tensor([1.5], device=device)).item() == 12.0
    scaled = s.scale([adept.tensor(1.0), (adept.tensor(2.0),)])
    assert isinstance(scaled, list) and isinstance(scaled[1], tuple) and scaled[1][0].item() == 16.0
    p = _param([1.0, 2.0], [16.0, 8.0], device)
    opt = adept.optim.SGD([p], lr=0.5)
    s.unscale_(opt)
    assert p.grad.cpu().tolist() == [2.0, 1.0]
    with pytest.raises(Exception, match="already been called"):
        s.unscale_(opt)
    assert s.step(opt) is None
    assert p.detach().cpu().tolist() == [0.0, 1.5]
    with pytest.raises(Exception, match="already been called"):
        s.step(opt)
    s.update()
    assert s.get_scale() == 8.0 and s.state_dict()["_growth_tracker"] == 1
    q = _param([1.0], [8.0], device)
    s.step(adept.optim.SGD([q], lr=0.5))
    s.update()
    assert s.get_scale() == 16.0
    for bad in (math.inf, -math.inf, math.nan):
        r = _param([1.0, 1.0], [2.0, bad], device)
        s.step(adept.optim.SGD([r], lr=0.5))
        assert r.detach().cpu().tolist() == [1.0, 1.0]  # skipped
        before = s.get_scale()
        s.update()
        assert s.get_scale() == before / 2
    with pytest.raises(Exception, match="no inf checks"):
        s.update()
    s.update(new_scale=adept.tensor(2.0))
    assert s.get_scale() == 2.0
    sd = s.state_dict()
    assert set(sd) == {"scale", "growth_factor", "backoff_factor", "growth_interval", "_growth_tracker"}
    t = adept.amp.GradScaler(device)
    t.load_state_dict(sd)
    assert t.get_scale() == 2.0 and t.get_growth_interval() == 2


def test_grad_scaler_disabled_and_errors():
    s = adept.amp.GradScaler("cpu", enabled=False)
    loss = adept.tensor(3.0)
    assert s.scale(loss) is loss or adept.equal(s.scale(loss), loss)
    assert s.get_scale() == 1.0 and s.state_dict() == {}
    p = _param([1.0], [2.0], "cpu")
    s.step(adept.optim.SGD([p], lr=0.5))
    assert p.detach().tolist() == [0.0]
    for kw in (dict(growth_factor=1.0), dict(backoff_factor=1.0), dict(growth_interval=0)):
        with pytest.raises(ValueError):
            adept.amp.GradScaler("cpu", **kw)
    on = adept.amp.GradScaler("cpu")
    with pytest.raises(RuntimeError, match="closure"):
        on.step(adept.optim.SGD([p], lr=0.1), closure=lambda: None)
    with pytest.raises(RuntimeError):
        on.load_state_dict({})
    h = adept.tensor([1.0], dtype=adept.float16).requires_grad_()
    h.grad = adept.tensor([1.0], dtype=adept.float16)
    with pytest.raises(ValueError, match="float16"):
        on.unscale_(adept.optim.SGD([h], lr=0.1))


def test_grad_scaler_step_calls_the_python_step():
    """step() runs the optimizer's own (overridden) step and returns its value; skipped steps return None."""
    calls = []

    class Counting(adept.optim.SGD):
        def step(self, closure=None):
            calls.append(1)
            super().step(closure)
            return "stepped"

    p = _param([1.0], [2.0], "cpu")
    opt = Counting([p], lr=1.0)
    s = adept.amp.GradScaler("cpu", init_scale=2.0)
    assert s.step(opt) == "stepped" and calls == [1] and p.detach().tolist() == [0.0]
    s.update()
    p.grad = adept.tensor([math.inf])
    assert s.step(opt) is None and calls == [1]
    s.update()
    assert s.get_scale() == 1.0 and s._get_growth_tracker() == 0
    with pytest.raises(TypeError):
        s.step(object())
