"""adept.optim (SGD, Adam, AdamW, LR schedulers, ModelEMA) and adept.nn.utils.clip_grad_* against
live torch 1.13: the same code runs on both libraries from identical seeded parameters.

Run: PYTHONPATH=<build dir>/python OMP_NUM_THREADS=2 /usr/bin/python3 -m pytest -q tests/python/test_optim.py
"""
import itertools
import math

import numpy as np
import pytest
import torch

import adept

TOL = {np.float32: dict(rtol=1e-5, atol=1e-6), np.float64: dict(rtol=1e-10, atol=1e-12)}


# ---------------------------------------------------------------------------------------------
# helpers: a small MLP objective, built identically in both libraries


def _arrays(dtype, seed=0):
    rng = np.random.default_rng(seed)
    shapes = [(4, 6), (6,), (6, 3), (3,)]
    params = [rng.standard_normal(s).astype(dtype) * 0.7 for s in shapes]
    x = rng.standard_normal((10, 4)).astype(dtype)
    y = rng.standard_normal((10, 3)).astype(dtype)
    return params, x, y


def _leaves(lib, arrays):
    return [lib.tensor(a.copy()).requires_grad_() for a in arrays]


def _loss(lib, params, x, y):
    w1, b1, w2, b2 = params
    h = lib.tanh(x @ w1 + b1)
    return ((h @ w2 + b2 - y) ** 2).mean()


def _np(t):
    return np.array(t.detach().numpy()).copy()


def _objective_grad(p, i):
    """Gradient of a separable nonconvex objective, computed in float64 by numpy from the current
    parameter values, so that both libraries get the same grads for the same params and the
    comparison isolates the optimizer arithmetic (the MLP tests below cover autograd end to end)."""
    return (0.5 + 0.2 * i) * p + 0.3 * np.sin(3 * p) - 0.2


class _Run:
    """One library's parameters, data and optimizer."""

    def __init__(self, lib, dtype, make_opt, seed=0):
        arrays, x, y = _arrays(dtype, seed)
        self.lib, self.dtype = lib, dtype
        self.params = _leaves(lib, arrays)
        self.x, self.y = lib.tensor(x), lib.tensor(y)
        self.opt = make_opt(lib, self.params)

    def closure(self):
        """The MLP loss with its autograd gradients."""
        self.opt.zero_grad()
        loss = _loss(self.lib, self.params, self.x, self.y)
        loss.backward()
        return loss

    def step(self):
        self.opt.zero_grad()
        for i, p in enumerate(self.params):
            p.grad = self.lib.tensor(_objective_grad(_np(p).astype(np.float64), i).astype(self.dtype))
        self.opt.step()

    def mlp_step(self):
        self.closure()
        self.opt.step()

    def values(self):
        return [_np(p) for p in self.params]


def _assert_same(ours, ref, dtype, what=""):
    for i, (a, b) in enumerate(zip(ours, ref)):
        np.testing.assert_allclose(a, b, **TOL[dtype], err_msg=f"{what} param {i}")


def _trajectories_match(make_opt, dtype, steps=10):
    ours, ref = _Run(adept, dtype, make_opt), _Run(torch, dtype, make_opt)
    for s in range(steps):
        ours.step()
        ref.step()
        _assert_same(ours.values(), ref.values(), dtype, f"step {s}")
    return ours, ref


# ---------------------------------------------------------------------------------------------
# optimizer trajectories

SGD_GRID = [dict(momentum=m, dampening=d, nesterov=n, weight_decay=w, maximize=x)
            for m, d, n, w, x in itertools.product([0.0, 0.9], [0.0, 0.3], [False, True], [0.0, 0.1], [False, True])
            if not n or (m > 0 and d == 0)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("opts", SGD_GRID, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_sgd_trajectory_matches_torch(opts, dtype):
    _trajectories_match(lambda lib, ps: lib.optim.SGD(ps, lr=0.1, **opts), dtype)


ADAM_GRID = [dict(betas=b, eps=e, weight_decay=w, amsgrad=a, maximize=x)
             for b, e, w, a, x in itertools.product([(0.9, 0.999), (0.8, 0.9)], [1e-8, 1e-3], [0.0, 0.1],
                                                    [False, True], [False, True])]


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", ["Adam", "AdamW"])
@pytest.mark.parametrize("opts", ADAM_GRID, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_adam_trajectory_matches_torch(name, opts, dtype):
    _trajectories_match(lambda lib, ps: getattr(lib.optim, name)(ps, lr=0.02, **opts), dtype)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW"])
def test_default_arguments_match_torch(name):
    kw = dict(lr=0.05) if name == "SGD" else {}
    ours, ref = _trajectories_match(lambda lib, ps: getattr(lib.optim, name)(ps, **kw), np.float32, steps=4)
    ref_group = {k: v for k, v in ref.opt.param_groups[0].items() if k != "params"}
    for key, value in ours.opt.param_groups[0].items():
        if key != "params":
            assert ref_group[key] == value, key
    assert ours.opt.defaults["lr"] == ref.opt.defaults["lr"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name,kw", [("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.01)),
                                     ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
                                     ("Adam", dict(lr=0.01, amsgrad=True)), ("AdamW", dict(lr=0.01))])
def test_mlp_training_with_autograd_matches_torch(name, kw, dtype):
    """End to end: MLP loss, backward, step. Forward/backward rounding differs slightly between the
    libraries in float32, hence its looser tolerance."""
    make = lambda lib, ps: getattr(lib.optim, name)(ps, **kw)
    ours, ref = _Run(adept, dtype, make), _Run(torch, dtype, make)
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == np.float32 else TOL[np.float64]
    for s in range(10):
        ours.mlp_step()
        ref.mlp_step()
        for i, (a, b) in enumerate(zip(ours.values(), ref.values())):
            np.testing.assert_allclose(a, b, **tol, err_msg=f"step {s} param {i}")


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW"])
def test_param_groups_with_own_lr_and_weight_decay(name):
    def make(lib, ps):
        groups = [{"params": [ps[0], ps[2]]}, {"params": [ps[1], ps[3]], "weight_decay": 0.0, "lr": 0.03}]
        extra = dict(momentum=0.9) if name == "SGD" else {}
        return getattr(lib.optim, name)(groups, lr=0.01, weight_decay=0.2, **extra)

    ours, ref = _trajectories_match(make, np.float64)
    assert ours.opt.param_groups[1]["weight_decay"] == 0.0 and ours.opt.param_groups[0]["weight_decay"] == 0.2


@pytest.mark.parametrize("name", ["SGD", "Adam"])
def test_param_groups_are_a_live_view(name):
    ours, ref = _Run(adept, np.float32, lambda lib, ps: getattr(lib.optim, name)(ps, lr=0.1)), \
        _Run(torch, np.float32, lambda lib, ps: getattr(lib.optim, name)(ps, lr=0.1))
    for s in range(6):
        if s == 3:
            for run in (ours, ref):
                for g in run.opt.param_groups:
                    g["lr"] = 0.01
                    g.update(weight_decay=0.05)
                    g.setdefault("custom_key", 7)
        ours.step()
        ref.step()
        _assert_same(ours.values(), ref.values(), np.float32, f"step {s}")
    g = ours.opt.param_groups[0]
    assert g["lr"] == 0.01 and g["custom_key"] == 7 and "custom_key" in g and "nope" not in g
    assert dict(g).keys() == {k for k in ref.opt.param_groups[0]} - {"foreach", "differentiable", "capturable",
                                                                      "fused"} | {"custom_key"}
    for p, q in zip(g["params"], ours.params):
        np.testing.assert_array_equal(_np(p), _np(q))
    with pytest.raises(KeyError):
        g["nope"]


def test_add_param_group_later_matches_torch():
    def make(lib, ps):
        opt = lib.optim.SGD(ps[:2], lr=0.1, momentum=0.5)
        opt.add_param_group({"params": ps[2:], "lr": 0.02})
        return opt

    ours, _ = _trajectories_match(make, np.float64)
    assert len(ours.opt.param_groups) == 2 and ours.opt.param_groups[1]["momentum"] == 0.5


def _state_dict_close(ours, ref, dtype):
    assert set(ours["state"]) == set(ref["state"])
    for i, st in ref["state"].items():
        keys = {k for k, v in st.items() if v is not None}
        assert set(ours["state"][i]) == keys
        for k in keys:
            np.testing.assert_allclose(_np(ours["state"][i][k]), _np(st[k]), **TOL[dtype], err_msg=f"{i}.{k}")
    assert len(ours["param_groups"]) == len(ref["param_groups"])
    for g, h in zip(ours["param_groups"], ref["param_groups"]):
        for k, v in g.items():
            assert h[k] == v, k


@pytest.mark.parametrize("name,kw", [("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
                                     ("Adam", dict(lr=0.01, amsgrad=True)), ("AdamW", dict(lr=0.01))])
def test_state_dict_layout_and_values_match_torch(name, kw):
    make = lambda lib, ps: getattr(lib.optim, name)([{"params": ps[:3]}, {"params": ps[3:], "lr": 0.05}], **kw)
    ours, ref = _trajectories_match(make, np.float64, steps=3)
    sd, rsd = ours.opt.state_dict(), ref.opt.state_dict()
    _state_dict_close(sd, rsd, np.float64)
    if name != "SGD":
        assert sd["state"][0]["step"].dtype == adept.float32 and float(sd["state"][0]["step"]) == 3.0


@pytest.mark.parametrize("name,kw", [("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1)),
                                     ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.1)),
                                     ("AdamW", dict(lr=0.01))])
def test_state_dict_round_trip_resumes_identically(name, kw):
    make = lambda lib, ps: getattr(lib.optim, name)(ps, **kw)
    a = _Run(adept, np.float32, make)
    for _ in range(3):
        a.step()
    sd = a.opt.state_dict()
    # A fresh optimizer on copies of the current params, loaded from the state dict.
    b = _Run(adept, np.float32, make)
    with adept.no_grad():
        for p, q in zip(b.params, a.params):
            p.copy_(q)
    b.opt.load_state_dict(sd)
    for s in range(4):
        a.step()
        b.step()
        for x, y in zip(a.values(), b.values()):
            np.testing.assert_array_equal(x, y, err_msg=f"resumed step {s}")
    # The loaded state is a copy: writing into the loaded optimizer's state leaves the source alone.
    c = _Run(adept, np.float32, make)
    sd = a.opt.state_dict()
    c.opt.load_state_dict(sd)
    key = sorted(sd["state"][0])[-1]
    before = _np(sd["state"][0][key])
    with adept.no_grad():
        c.opt.state_dict()["state"][0][key].fill_(123.0)
    np.testing.assert_array_equal(_np(sd["state"][0][key]), before)


@pytest.mark.parametrize("name,kw", [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=0.01, amsgrad=True))])
def test_load_torch_state_dict_then_steps_match(name, kw):
    make = lambda lib, ps: getattr(lib.optim, name)(ps, **kw)
    ref = _Run(torch, np.float32, make)
    for _ in range(3):
        ref.step()
    rsd = ref.opt.state_dict()
    converted = {"state": {i: {k: adept.tensor(v.numpy()) for k, v in st.items() if v is not None}
                           for i, st in rsd["state"].items()},
                 "param_groups": [{k: v for k, v in g.items() if k not in ("foreach", "differentiable", "capturable",
                                                                            "fused")}
                                  for g in rsd["param_groups"]]}
    ours = _Run(adept, np.float32, make)
    with adept.no_grad():
        for p, q in zip(ours.params, ref.params):
            p.copy_(adept.tensor(q.detach().numpy()))
    ours.opt.load_state_dict(converted)
    for s in range(4):
        ours.step()
        ref.step()
        _assert_same(ours.values(), ref.values(), np.float32, f"step {s}")


def test_load_state_dict_errors():
    a = _Run(adept, np.float32, lambda lib, ps: lib.optim.SGD(ps, lr=0.1))
    b = _Run(adept, np.float32, lambda lib, ps: lib.optim.SGD([{"params": ps[:2]}, {"params": ps[2:]}], lr=0.1))
    with pytest.raises(ValueError, match="number of parameter groups"):
        a.opt.load_state_dict(b.opt.state_dict())
    c = _Run(adept, np.float32, lambda lib, ps: lib.optim.SGD(ps[:3], lr=0.1))
    with pytest.raises(ValueError, match="doesn't match the size"):
        a.opt.load_state_dict(c.opt.state_dict())


def test_load_state_dict_rejects_malformed_state():
    make = lambda lib, ps: lib.optim.Adam(ps, lr=0.01)
    src = _Run(adept, np.float32, make)
    src.step()
    good = src.opt.state_dict()
    dst = _Run(adept, np.float32, make)
    no_step = {"state": {0: {k: v for k, v in good["state"][0].items() if k != "step"}},
               "param_groups": good["param_groups"]}
    with pytest.raises(ValueError, match=r"Adam.load_state_dict: the state of param 0 lacks 'step'"):
        dst.opt.load_state_dict(no_step)
    bad_shape = {"state": {0: dict(good["state"][0], exp_avg=adept.zeros(7))}, "param_groups": good["param_groups"]}
    with pytest.raises(ValueError, match="state 'exp_avg' of param 0 has shape"):
        dst.opt.load_state_dict(bad_shape)
    with pytest.raises(TypeError, match="state 'exp_avg' of param 0 is a str"):
        dst.opt.load_state_dict({"state": {0: dict(good["state"][0], exp_avg="x")},
                                 "param_groups": good["param_groups"]})
    dst.step()  # a rejected load leaves the optimizer usable


def test_load_state_dict_accepts_step_as_number_like_old_torch():
    """torch <= 1.11 saved Adam's step as a Python int; loading it must resume the same trajectory."""
    make = lambda lib, ps: lib.optim.Adam(ps, lr=0.01)
    ref = _Run(adept, np.float32, make)
    for _ in range(2):
        ref.step()
    sd = ref.opt.state_dict()
    old = {"state": {i: dict(st, step=int(st["step"].item())) for i, st in sd["state"].items()},
           "param_groups": sd["param_groups"]}
    ours = _Run(adept, np.float32, make)
    with adept.no_grad():
        for p, q in zip(ours.params, ref.params):
            p.copy_(q)
    ours.opt.load_state_dict(old)
    assert float(ours.opt.state_dict()["state"][0]["step"].item()) == 2.0
    ours.step()
    ref.step()
    _assert_same(ours.values(), ref.values(), np.float32)


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none):
    run = _Run(adept, np.float32, lambda lib, ps: lib.optim.Adam(ps))
    run.closure()
    assert all(p.grad is not None for p in run.params)
    run.opt.zero_grad(set_to_none=set_to_none)
    for p in run.params:
        if set_to_none:
            assert p.grad is None
        else:
            assert p.grad is not None and not np.any(_np(p.grad))
    run.opt.zero_grad()  # default: set_to_none=True
    assert all(p.grad is None for p in run.params)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW"])
def test_params_without_grad_are_skipped(name):
    def make(lib, ps):
        extra = lib.tensor([1.0, -2.0]).requires_grad_()
        return getattr(lib.optim, name)(ps + [extra], lr=0.1, weight_decay=0.5)

    ours, ref = _trajectories_match(make, np.float32, steps=3)
    extra = ours.opt.param_groups[0]["params"][-1]
    np.testing.assert_array_equal(_np(extra), [1.0, -2.0])
    assert 4 not in ours.opt.state_dict()["state"]


def test_step_with_closure_returns_its_loss():
    run = _Run(adept, np.float64, lambda lib, ps: lib.optim.SGD(ps, lr=0.1))
    ref = _Run(torch, np.float64, lambda lib, ps: lib.optim.SGD(ps, lr=0.1))
    for _ in range(3):
        with adept.no_grad():  # the closure runs with grad enabled regardless
            loss = run.opt.step(run.closure)
        rloss = ref.opt.step(ref.closure)
        assert float(loss) == pytest.approx(float(rloss), rel=1e-12)
    _assert_same(run.values(), ref.values(), np.float64)
    assert run.opt.step() is None


def test_optimizer_state_view():
    run = _Run(adept, np.float32, lambda lib, ps: lib.optim.Adam(ps))
    run.step()
    st = run.opt.state[run.params[0]]
    assert set(st) == {"step", "exp_avg", "exp_avg_sq"}


def test_constructor_errors_match_torch():
    p = [adept.zeros(3).requires_grad_()]
    with pytest.raises(ValueError, match="Invalid learning rate"):
        adept.optim.SGD(p, lr=-0.1)
    with pytest.raises(ValueError, match="Invalid momentum"):
        adept.optim.SGD(p, lr=0.1, momentum=-1)
    with pytest.raises(ValueError, match="Invalid weight_decay"):
        adept.optim.SGD(p, lr=0.1, weight_decay=-1)
    with pytest.raises(ValueError, match="Nesterov"):
        adept.optim.SGD(p, lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="Nesterov"):
        adept.optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.1, nesterov=True)
    with pytest.raises(ValueError, match="required optimization parameter lr"):
        adept.optim.SGD(p)
    for name in ("Adam", "AdamW"):
        cls = getattr(adept.optim, name)
        with pytest.raises(ValueError, match="Invalid learning rate"):
            cls(p, lr=-1)
        with pytest.raises(ValueError, match="Invalid epsilon"):
            cls(p, eps=-1)
        with pytest.raises(ValueError, match="beta parameter at index 0"):
            cls(p, betas=(1.0, 0.9))
        with pytest.raises(ValueError, match="beta parameter at index 1"):
            cls(p, betas=(0.9, -0.1))
        with pytest.raises(ValueError, match="Invalid weight_decay"):
            cls(p, weight_decay=-1)
    with pytest.raises(ValueError, match="empty parameter list"):
        adept.optim.Adam([])
    with pytest.raises(TypeError, match="iterable of Tensors"):
        adept.optim.Adam(p[0])
    with pytest.raises(ValueError, match="more than one parameter group"):
        adept.optim.SGD([{"params": p}, {"params": p}], lr=0.1)
    non_leaf = adept.zeros(3).requires_grad_() * 2
    with pytest.raises(ValueError, match="non-leaf"):
        adept.optim.SGD([non_leaf], lr=0.1)
    opt = adept.optim.SGD(p, lr=0.1)
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": p})
    with pytest.raises(TypeError, match="sets"):
        opt.add_param_group({"params": {adept.zeros(2).requires_grad_()}})


def test_repr_lists_groups():
    opt = adept.optim.SGD([adept.zeros(2).requires_grad_()], lr=0.1, momentum=0.9)
    r = repr(opt)
    assert r.startswith("SGD (") and "Parameter Group 0" in r and "momentum: 0.9" in r


# ---------------------------------------------------------------------------------------------
# LR schedulers


def _two_group_opt(lib):
    ps = [lib.zeros(2).requires_grad_(), lib.zeros(3).requires_grad_()]
    return lib.optim.SGD([{"params": ps[:1]}, {"params": ps[1:], "lr": 0.5}], lr=0.1, momentum=0.9)


SCHEDULERS = {
    "StepLR": lambda S, o: S.StepLR(o, step_size=4, gamma=0.5),
    "MultiStepLR": lambda S, o: S.MultiStepLR(o, milestones=[3, 8, 8, 20], gamma=0.3),
    "ExponentialLR": lambda S, o: S.ExponentialLR(o, gamma=0.9),
    "CosineAnnealingLR": lambda S, o: S.CosineAnnealingLR(o, T_max=10, eta_min=0.001),
    "LinearLR": lambda S, o: S.LinearLR(o, start_factor=0.25, end_factor=0.9, total_iters=7),
    "LinearLR-defaults": lambda S, o: S.LinearLR(o),
    "ConstantLR": lambda S, o: S.ConstantLR(o, factor=0.5, total_iters=4),
    "LambdaLR": lambda S, o: S.LambdaLR(o, lr_lambda=lambda e: 0.95 ** e),
    "LambdaLR-per-group": lambda S, o: S.LambdaLR(o, lr_lambda=[lambda e: 1 / (e + 1), lambda e: 0.9 ** e]),
    "SequentialLR-warmup-cosine": lambda S, o: S.SequentialLR(
        o, [S.LinearLR(o, start_factor=0.1, total_iters=5), S.CosineAnnealingLR(o, T_max=25, eta_min=1e-4)],
        milestones=[5]),
    "SequentialLR-three": lambda S, o: S.SequentialLR(
        o, [S.ConstantLR(o, factor=0.2, total_iters=3), S.ExponentialLR(o, gamma=0.8), S.StepLR(o, 3, 0.5)],
        milestones=[4, 12]),
}


def _lr_sequence(lib, make, steps=30):
    opt = _two_group_opt(lib)
    sched = make(lib.optim.lr_scheduler, opt)
    seq = [sched.get_last_lr()]
    for _ in range(steps):
        opt.step()
        sched.step()
        seq.append(sched.get_last_lr())
        assert [g["lr"] for g in opt.param_groups] == pytest.approx(seq[-1], rel=1e-15)
    return seq, opt, sched


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_scheduler_lr_sequence_matches_torch(name):
    ours, _, _ = _lr_sequence(adept, SCHEDULERS[name])
    ref, _, _ = _lr_sequence(torch, SCHEDULERS[name])
    np.testing.assert_allclose(np.array(ours), np.array(ref), rtol=1e-12, atol=0)


@pytest.mark.parametrize("name", [n for n in SCHEDULERS if not n.startswith("LambdaLR")])
def test_scheduler_state_dict_matches_torch_and_resumes(name):
    _, opt, sched = _lr_sequence(adept, SCHEDULERS[name], steps=7)
    _, ropt, rsched = _lr_sequence(torch, SCHEDULERS[name], steps=7)
    sd, rsd = sched.state_dict(), rsched.state_dict()

    def compare(a, b):
        for k, v in a.items():
            if k == "_schedulers":
                for x, y in zip(v, b[k]):
                    compare(x, y)
            elif k == "milestones":
                assert sorted(b[k].elements()) == v
            else:
                assert b[k] == pytest.approx(v, rel=1e-12), k

    compare(sd, rsd)
    # A new scheduler on a new optimizer, loaded with both states, continues identically.
    opt2 = _two_group_opt(adept)
    opt2.load_state_dict(opt.state_dict())
    sched2 = SCHEDULERS[name](adept.optim.lr_scheduler, opt2)
    sched2.load_state_dict(sd)
    opt2.load_state_dict(opt.state_dict())
    for _ in range(10):
        sched.step()
        sched2.step()
        rsched.step()
        assert sched2.get_last_lr() == sched.get_last_lr()
        np.testing.assert_allclose(sched.get_last_lr(), rsched.get_last_lr(), rtol=1e-12)


@pytest.mark.parametrize("name", ["StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "LinearLR",
                                  "ConstantLR"])
def test_scheduler_step_with_epoch_uses_closed_form(name):
    seqs = []
    for lib in (adept, torch):
        opt = _two_group_opt(lib)
        sched = SCHEDULERS[name](lib.optim.lr_scheduler, opt)
        seq = []
        for epoch in [3, 7, 2, 12, 0]:
            with pytest.warns(UserWarning) if lib is torch else _nullcontext():
                sched.step(epoch)
            seq.append(sched.get_last_lr())
        seqs.append(seq)
    np.testing.assert_allclose(np.array(seqs[0]), np.array(seqs[1]), rtol=1e-12)


class _nullcontext:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def test_scheduler_sets_initial_lr_and_base_lrs():
    opt = _two_group_opt(adept)
    sched = adept.optim.lr_scheduler.StepLR(opt, 2)
    assert [g["initial_lr"] for g in opt.param_groups] == [0.1, 0.5]
    assert sched.base_lrs == [0.1, 0.5] and sched.last_epoch == 0 and sched.optimizer is opt


def test_scheduler_follows_lr_changed_by_user_like_torch():
    seqs = []
    for lib in (adept, torch):
        opt = _two_group_opt(lib)
        sched = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=12)
        seq = []
        for s in range(15):
            if s == 5:
                opt.param_groups[0]["lr"] = 0.02
            opt.step()
            sched.step()
            seq.append(sched.get_last_lr())
        seqs.append(seq)
    np.testing.assert_allclose(np.array(seqs[0]), np.array(seqs[1]), rtol=1e-12)


def test_scheduler_errors():
    S = adept.optim.lr_scheduler
    opt = _two_group_opt(adept)
    with pytest.raises(ValueError, match="Starting multiplicative factor"):
        S.LinearLR(opt, start_factor=0)
    with pytest.raises(ValueError, match="Ending multiplicative factor"):
        S.LinearLR(opt, end_factor=1.5)
    with pytest.raises(ValueError, match="between 0 and 1"):
        S.ConstantLR(opt, factor=2)
    with pytest.raises(ValueError, match="lr_lambdas"):
        S.LambdaLR(opt, lr_lambda=[lambda e: 1.0])
    with pytest.raises(ValueError, match="number of milestone"):
        S.SequentialLR(opt, [S.StepLR(opt, 2), S.StepLR(opt, 3)], milestones=[])
    other = _two_group_opt(adept)
    with pytest.raises(ValueError, match="same optimizer"):
        S.SequentialLR(opt, [S.StepLR(opt, 2), S.StepLR(other, 3)], milestones=[2])
    with pytest.raises(TypeError, match="not an Optimizer"):
        S.StepLR("sgd", 2)
    fresh = _two_group_opt(adept)
    with pytest.raises(ValueError, match="initial_lr"):
        S.StepLR(fresh, 2, last_epoch=4)


# ---------------------------------------------------------------------------------------------
# gradient clipping


def _grads_pair(dtype, seed, scale=1.0):
    rng = np.random.default_rng(seed)
    shapes = [(3, 4), (5,), (2, 2, 2)]
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    grads = [(rng.standard_normal(s) * scale).astype(dtype) for s in shapes]
    out = []
    for lib in (adept, torch):
        ps = [lib.tensor(a.copy()).requires_grad_() for a in arrays]
        for p, g in zip(ps, grads):
            p.grad = lib.tensor(g.copy())
        out.append(ps)
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.5, float("inf"), "inf"])
@pytest.mark.parametrize("max_norm", [0.5, 1e3])
def test_clip_grad_norm_matches_torch(norm_type, max_norm, dtype):
    ours, ref = _grads_pair(dtype, seed=3)
    total = adept.nn.utils.clip_grad_norm_(ours, max_norm, norm_type)
    rtotal = torch.nn.utils.clip_grad_norm_(ref, max_norm, norm_type)
    np.testing.assert_allclose(_np(total), rtotal.numpy(), **TOL[dtype])
    assert tuple(total.shape) == ()
    for p, q in zip(ours, ref):
        np.testing.assert_allclose(_np(p.grad), q.grad.numpy(), **TOL[dtype])


def test_clip_grad_norm_single_tensor_generator_and_missing_grads():
    ours, ref = _grads_pair(np.float32, seed=4)
    ours.append(adept.zeros(2).requires_grad_())  # no grad: skipped
    total = adept.nn.utils.clip_grad_norm_((p for p in ours), 0.1)
    rtotal = torch.nn.utils.clip_grad_norm_(ref, 0.1)
    np.testing.assert_allclose(_np(total), rtotal.numpy(), rtol=1e-6)
    single = adept.nn.utils.clip_grad_norm_(ours[0], 1.0)
    np.testing.assert_allclose(_np(single), torch.nn.utils.clip_grad_norm_(ref[0], 1.0).numpy(), rtol=1e-6)
    assert float(adept.nn.utils.clip_grad_norm_([adept.zeros(2).requires_grad_()], 1.0)) == 0.0


def test_clip_grad_norm_nonfinite():
    ours, ref = _grads_pair(np.float32, seed=5)
    with adept.no_grad():
        ours[1].grad[0] = float("nan")
    with pytest.raises(RuntimeError, match="non-finite"):
        adept.nn.utils.clip_grad_norm_(ours, 1.0, error_if_nonfinite=True)
    total = adept.nn.utils.clip_grad_norm_(ours, 1.0)
    assert math.isnan(float(total))


@pytest.mark.parametrize("clip", [0.3, 10.0])
def test_clip_grad_value_matches_torch(clip):
    ours, ref = _grads_pair(np.float32, seed=6, scale=2.0)
    assert adept.nn.utils.clip_grad_value_(ours, clip) is None
    torch.nn.utils.clip_grad_value_(ref, clip)
    for p, q in zip(ours, ref):
        np.testing.assert_array_equal(_np(p.grad), q.grad.numpy())


# ---------------------------------------------------------------------------------------------
# ModelEMA


def _ema_reference(states, decay, tau):
    """numpy reference of Ultralytics' ModelEMA: v = d v + (1 - d) m, d = decay (1 - exp(-n / tau))."""
    avg = {k: v.copy() for k, v in states[0].items()}
    for n, st in enumerate(states[1:], start=1):
        d = decay * (1 - math.exp(-n / tau))
        for k, v in st.items():
            if np.issubdtype(v.dtype, np.floating):
                avg[k] = d * avg[k] + (1 - d) * v
            else:
                avg[k] = v.copy()
    return avg


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_model_ema_matches_reference_formula(dtype):
    rng = np.random.default_rng(7)
    states = [{"w": rng.standard_normal((3, 4)).astype(dtype), "b": rng.standard_normal(4).astype(dtype),
               "count": np.array(i, dtype=np.int64)} for i in range(8)]
    model = {k: adept.tensor(v.copy()) for k, v in states[0].items()}
    ema = adept.optim.ModelEMA(model, decay=0.99, tau=3)
    for st in states[1:]:
        for k, v in st.items():
            with adept.no_grad():
                model[k].copy_(adept.tensor(v))
        ema.update(model)
    ref = _ema_reference(states, 0.99, 3)
    got = ema.state_dict()
    assert list(got) == ["w", "b", "count"] and ema.updates == 7
    for k in ref:
        np.testing.assert_allclose(_np(got[k]), ref[k], **TOL[dtype] if k != "count" else {})
    assert ema.decay_at(7) == pytest.approx(0.99 * (1 - math.exp(-7 / 3)), rel=1e-15)
    # The average is a copy: changing the model does not move it.
    with adept.no_grad():
        model["w"].fill_(100.0)
    np.testing.assert_allclose(_np(ema.state_dict()["w"]), ref["w"], **TOL[dtype])


def test_model_ema_defaults_and_resume():
    model = {"w": adept.ones(3)}
    ema = adept.optim.ModelEMA(model)
    assert ema.decay == 0.9999 and ema.tau == 2000 and ema.updates == 0
    ema.load_state_dict({"w": adept.full((3,), 2.0)}, updates=10)
    ema.update(model)
    d = 0.9999 * (1 - math.exp(-11 / 2000))
    np.testing.assert_allclose(_np(ema.state_dict()["w"]), d * 2 + (1 - d) * 1, rtol=1e-6)
    with pytest.raises(ValueError, match="no entry 'w'"):
        ema.update({"v": adept.ones(3)})
    with pytest.raises(ValueError, match="shape"):
        ema.update({"w": adept.ones(4)})


@pytest.mark.skipif(not hasattr(adept.nn, "Linear") or not hasattr(adept.nn, "BatchNorm1d"),
                    reason="needs adept.nn.Linear/BatchNorm1d (nn modules)")
def test_model_ema_with_module_and_copy_to():
    adept.manual_seed(0)
    model = adept.nn.Sequential(adept.nn.Linear(4, 3), adept.nn.BatchNorm1d(3))
    ema = adept.optim.ModelEMA(model, decay=0.9, tau=2)
    states = [{k: _np(v) for k, v in model.state_dict().items()}]
    opt = adept.optim.SGD(model.parameters(), lr=0.1)
    x = adept.randn(8, 4)
    for _ in range(4):
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        opt.step()
        ema.update(model)
        states.append({k: _np(v) for k, v in model.state_dict().items()})
    ref = _ema_reference(states, 0.9, 2)
    got = ema.state_dict()
    assert list(got) == list(model.state_dict())
    for k in ref:
        np.testing.assert_allclose(_np(got[k]), ref[k], rtol=1e-5, atol=1e-6, err_msg=k)
    assert int(got["1.num_batches_tracked"]) == 4
    twin = adept.nn.Sequential(adept.nn.Linear(4, 3), adept.nn.BatchNorm1d(3))
    ema.copy_to(twin)
    for k, v in twin.state_dict().items():
        np.testing.assert_array_equal(_np(v), _np(got[k]))
