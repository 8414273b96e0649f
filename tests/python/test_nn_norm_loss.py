"""adept.nn.functional normalization, losses, linear, dropout and activations against live torch:
forward values and input gradients over options, layouts (contiguous, transposed, strided), empty
batches, running-stat updates, and the Python exception type of every error case.

Run: PYTHONPATH=build/<dir>/python /usr/bin/python3 -m pytest -q tests/python/test_nn_norm_loss.py
"""
import contextlib
import re
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

TOL = {"float32": (2e-5, 2e-6), "float64": (1e-10, 1e-12)}


def fn_of(m):
    return TF if m is torch else m.nn.functional


class Maker:
    """Builds the same values as an adept and a torch tensor, in a chosen memory layout."""

    def __init__(self, m, seed, device="cpu"):
        self.m = m
        self.device = device  # where the adept tensors live (torch's stay on the CPU)
        self.rng = np.random.default_rng(seed)
        self.leaves = []  # (adept leaf, torch leaf)

    def make(self, arr, grad=False, layout="c"):
        arr = np.asarray(arr)
        if layout == "t" and arr.ndim >= 2:
            base = np.ascontiguousarray(np.swapaxes(arr, -1, -2))
            view = lambda t: t.transpose(-1, -2)  # noqa: E731
        elif layout == "s" and arr.ndim >= 1:
            base = np.repeat(arr, 2, axis=-1)
            view = lambda t: t[..., ::2]  # noqa: E731
        else:
            base, view = arr, (lambda t: t)
        a = self.m.tensor(base.copy(), requires_grad=grad, device=self.device)
        t = torch.tensor(base.copy(), requires_grad=grad)
        if grad:
            self.leaves.append((a, t))
        return view(a), view(t)

    def randn(self, shape, dtype="float64", scale=1.0, shift=0.0, **kw):
        return self.make((self.rng.standard_normal(shape) * scale + shift).astype(dtype), **kw)

    def uniform(self, shape, lo, hi, dtype="float64", **kw):
        return self.make(self.rng.uniform(lo, hi, shape).astype(dtype), **kw)

    def ints(self, shape, lo, hi, **kw):
        return self.make(self.rng.integers(lo, hi, shape).astype("int64"), **kw)


def np_of(t):
    return t.detach().cpu().numpy()


def assert_close(a, t, dtype="float64", scale=1.0, what=""):
    rtol, atol = TOL[dtype]
    ta = np_of(t)
    assert tuple(a.shape) == tuple(ta.shape), f"{what}: shape {tuple(a.shape)} vs torch {tuple(ta.shape)}"
    ref_scale = max(1.0, float(np.nanmax(np.abs(ta)))) if ta.size and np.isfinite(ta).any() else 1.0
    np.testing.assert_allclose(np_of(a), ta, rtol=rtol * scale, atol=atol * scale * ref_scale, err_msg=what)


def check(mk, fa, ft, dtype="float64", grad_scale=5.0):
    """Compares forward outputs, then the leaves' gradients for one random upstream gradient."""
    ya, yt = fa(), ft()
    assert_close(ya, yt, dtype, what="forward")
    if not yt.requires_grad:
        return ya, yt
    g = mk.rng.uniform(0.5, 1.5, tuple(yt.shape)).astype(str(yt.dtype).rsplit(".", 1)[-1])
    ya.backward(mk.m.tensor(g, device=mk.device))
    yt.backward(torch.tensor(g))
    for i, (a, t) in enumerate(mk.leaves):
        if t.grad is None:
            assert a.grad is None or not np.any(np_of(a.grad)), f"leaf {i}: torch has no gradient"
            continue
        assert a.grad is not None, f"leaf {i}: adept has no gradient"
        assert_close(a.grad, t.grad, dtype, scale=grad_scale, what=f"grad of leaf {i}")
    return ya, yt


def raises_like(m, fa, ft):
    """torch raises some exception type E: adept must raise an instance of E too."""
    with pytest.raises(Exception) as te:
        ft()
    with pytest.raises(type(te.value)):
        fa()


def bn_silu(m):
    """adept's fused batch_norm_silu, or its definition in torch: silu(batch_norm(...))."""
    if m is torch:
        return lambda *a, **k: TF.silu(TF.batch_norm(*a, **k))
    return m.nn.functional.batch_norm_silu


# ------------------------------------------------------------------------------ batch norm

@pytest.mark.parametrize("shape", [(8, 3), (4, 3, 5), (2, 3, 4, 5), (2, 3, 2, 2, 3), (3, 2, 7000)])  # last: split sums
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("layout", ["c", "t"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("silu", [False, True])
def test_batch_norm_training(m, device, shape, affine, layout, dtype, silu):
    """batch_norm, and the fused batch_norm_silu against torch's silu(batch_norm(...)), in training."""
    mk = Maker(m, 1, device)
    C = shape[1]
    x = mk.randn(shape, dtype, scale=2.0, shift=3.0, grad=True, layout=layout)
    # with SiLU, weights of both signs and large shifts reach its saturated ends and its minimum
    w = mk.uniform((C,), -4 if silu else 0.5, 4 if silu else 1.5, dtype, grad=True) if affine else (None, None)
    b = mk.randn((C,), dtype, scale=3.0 if silu else 1.0, grad=True) if affine else (None, None)
    rm = mk.randn((C,), dtype)
    rv = mk.uniform((C,), 0.5, 2, dtype)
    fa, ft = (bn_silu(m), bn_silu(torch)) if silu else (fn_of(m).batch_norm, TF.batch_norm)
    ya, _ = check(mk, lambda: fa(x[0], rm[0], rv[0], w[0], b[0], True, 0.2, 1e-3),
                  lambda: ft(x[1], rm[1], rv[1], w[1], b[1], True, 0.2, 1e-3), dtype)
    assert_close(rm[0], rm[1], dtype, what="running_mean")
    assert_close(rv[0], rv[1], dtype, what="running_var")
    if silu and m is not torch:  # the fused node, not silu of a batch norm
        assert ya.grad_fn.name() == "BatchNormSiluBackward0"


@pytest.mark.parametrize("shape", [(16, 2, 9), (3, 2, 7000)])  # the second: a long channel (split sums)
def test_batch_norm_large_mean_float32(m, device, shape):
    """A mean far from zero must not cancel the variance or the normalised values in float32 (torch's float32
    kernel loses about 1e-3 here, so the reference is torch in float64 on the same values)."""
    mk = Maker(m, 30, device)
    x = mk.randn(shape, "float32", scale=0.5, shift=1e4, grad=True)
    w, b = mk.uniform((2,), 0.5, 1.5, "float32", grad=True), mk.randn((2,), "float32", grad=True)
    check(mk, lambda: fn_of(m).batch_norm(x[0], None, None, w[0], b[0], True),
          lambda: TF.batch_norm(x[1].double(), None, None, w[1].double(), b[1].double(), True).float(), "float32")


def test_batch_norm_running_stats_after_several_calls_then_eval(m, device):
    mk = Maker(m, 2, device)
    rm, rv = mk.make(np.zeros(4)), mk.make(np.ones(4))
    for step in range(4):
        x = mk.randn((6, 4, 3, 3), scale=1 + step, shift=step)
        fn_of(m).batch_norm(x[0], rm[0], rv[0], training=True)
        TF.batch_norm(x[1], rm[1], rv[1], training=True)
        assert_close(rm[0], rm[1], what=f"running_mean step {step}")
        assert_close(rv[0], rv[1], what=f"running_var step {step}")
    x = mk.randn((3, 4, 2, 2), grad=True, layout="t")
    w, b = mk.randn((4,), grad=True), mk.randn((4,), grad=True)
    check(mk, lambda: fn_of(m).batch_norm(x[0], rm[0], rv[0], w[0], b[0]),
          lambda: TF.batch_norm(x[1], rm[1], rv[1], w[1], b[1]))


def test_batch_norm_without_running_stats_and_module_style_cumulative_average(m, device):
    mk = Maker(m, 3, device)
    x = mk.randn((5, 3, 4), grad=True)
    check(mk, lambda: fn_of(m).batch_norm(x[0], None, None, training=True),
          lambda: TF.batch_norm(x[1], None, None, training=True))
    # momentum=None: torch's module passes 1 / num_batches_tracked as the momentum.
    rm, rv = mk.randn((3,)), mk.uniform((3,), 0.5, 2)
    nbt = m.tensor(3)
    fn_of(m).batch_norm(x[0].detach(), rm[0], rv[0], training=True, momentum=None, num_batches_tracked=nbt)
    TF.batch_norm(x[1].detach(), rm[1], rv[1], training=True, momentum=1 / 3)
    assert_close(rm[0], rm[1])
    assert_close(rv[0], rv[1])


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("silu", [False, True])
def test_batch_norm_empty_batch(m, device, training, silu):
    """batch_norm and the fused batch_norm_silu on an empty batch: empty output, running stats unchanged."""
    mk = Maker(m, 4, device)
    x = mk.randn((0, 3, 2), grad=True)
    w, b = mk.randn((3,), grad=True), mk.randn((3,), grad=True)
    rm, rv = mk.randn((3,)), mk.uniform((3,), 0.5, 2)
    fa, ft = (bn_silu(m), bn_silu(torch)) if silu else (fn_of(m).batch_norm, TF.batch_norm)
    check(mk, lambda: fa(x[0], rm[0], rv[0], w[0], b[0], training), lambda: ft(x[1], rm[1], rv[1], w[1], b[1], training))
    assert_close(rm[0], rm[1])


def test_batch_norm_errors(m, device):
    mk = Maker(m, 5, device)
    rm, rv = mk.make(np.zeros(3)), mk.make(np.ones(3))
    cases = [
        ((1, 3), dict(training=True)), ((1, 3, 1), dict(training=True)),
        ((4, 3), dict(weight=4)), ((4, 3), dict(running=4)), ((4, 3), dict(no_stats=True)),
    ]
    for shape, kw in cases:
        x = mk.randn(shape)
        w = mk.make(np.ones(kw["weight"])) if "weight" in kw else (None, None)
        r = (mk.make(np.zeros(kw["running"])), rv) if "running" in kw else (rm, rv)
        if kw.get("no_stats"):
            r = ((None, None), (None, None))
        tr = kw.get("training", False)
        raises_like(m, lambda: fn_of(m).batch_norm(x[0], r[0][0], r[1][0], w[0], training=tr),
                    lambda: TF.batch_norm(x[1], r[0][1], r[1][1], w[1], training=tr))


# ------------------------------------------------------------------------------ batch norm + SiLU (fused)

@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_batch_norm_silu_training_half(m, device, dtype):
    """A half-precision input with float32 parameters (as under autocast): computed in float32 from the
    rounded input, the output (and the input's gradient) rounded to the input's dtype."""
    rng = np.random.default_rng(12)
    x32 = torch.tensor(rng.standard_normal((4, 3, 6, 5)) * 2 + 1, dtype=getattr(torch, dtype)).float()
    w = rng.uniform(-2, 2, 3).astype("float32")
    bias = rng.standard_normal(3).astype("float32")
    g = rng.uniform(0.5, 1.5, (4, 3, 6, 5)).astype("float32")
    xa = m.tensor(x32.numpy(), device=device).to(getattr(m, dtype)).detach().requires_grad_(True)
    wa = m.tensor(w, requires_grad=True, device=device)
    ba = m.tensor(bias, requires_grad=True, device=device)
    ya = bn_silu(m)(xa, None, None, wa, ba, True)
    assert ya.dtype == getattr(m, dtype)
    ya.backward(m.tensor(g, device=device).to(getattr(m, dtype)))
    xt, wt, bt = x32.clone().requires_grad_(True), torch.tensor(w, requires_grad=True), torch.tensor(bias, requires_grad=True)
    yt = TF.silu(TF.batch_norm(xt, None, None, wt, bt, True))
    yt.backward(torch.tensor(g).to(getattr(torch, dtype)).float())
    tol = dict(rtol=2e-2, atol=2e-2)
    np.testing.assert_allclose(np_of(ya.float()), np_of(yt), **tol)
    np.testing.assert_allclose(np_of(xa.grad.float()), np_of(xt.grad), **tol)
    np.testing.assert_allclose(np_of(wa.grad), np_of(wt.grad), rtol=2e-2, atol=5e-2)
    np.testing.assert_allclose(np_of(ba.grad), np_of(bt.grad), rtol=2e-2, atol=5e-2)


def test_batch_norm_silu_eval_and_module_style(m, device):
    mk = Maker(m, 13, device)
    rm, rv = mk.randn((4,)), mk.uniform((4,), 0.5, 2)
    x = mk.randn((3, 4, 2, 2), scale=3, grad=True, layout="t")
    w, b = mk.randn((4,), grad=True), mk.randn((4,), grad=True)
    check(mk, lambda: bn_silu(m)(x[0], rm[0], rv[0], w[0], b[0]), lambda: bn_silu(torch)(x[1], rm[1], rv[1], w[1], b[1]))
    # momentum=None reads num_batches_tracked, as batch_norm
    x = mk.randn((5, 4, 3))
    bn_silu(m)(x[0], rm[0], rv[0], training=True, momentum=None, num_batches_tracked=m.tensor(4))
    TF.batch_norm(x[1], rm[1], rv[1], training=True, momentum=1 / 4)
    assert_close(rm[0], rm[1])
    assert_close(rv[0], rv[1])


def test_batch_norm_silu_large_mean_float32(m, device):
    mk = Maker(m, 15, device)
    x = mk.randn((3, 2, 7000), "float32", scale=0.5, shift=1e4, grad=True)
    w, b = mk.uniform((2,), 0.5, 1.5, "float32", grad=True), mk.randn((2,), "float32", grad=True)
    check(mk, lambda: bn_silu(m)(x[0], None, None, w[0], b[0], True),
          lambda: bn_silu(torch)(x[1].double(), None, None, w[1].double(), b[1].double(), True).float(), "float32")


def test_batch_norm_silu_errors_name_the_op(m, device):
    if m is torch:
        pytest.skip("adept's message names batch_norm_silu")
    mk = Maker(m, 16, device)
    cases = [((1, 3), {}, ValueError, "more than 1 value per channel"),
             ((4, 3), dict(weight=m.ones(4, device=device)), RuntimeError, "batch_norm_silu: weight should contain 3"),
             ((4,), {}, RuntimeError, "batch_norm_silu: expected an input of shape (N, C, *)")]
    for shape, kw, err, text in cases:
        with pytest.raises(err, match=re.escape(text)):
            bn_silu(m)(mk.randn(shape)[0], None, None, training=True, **kw)
    with pytest.raises(TypeError, match="batch_norm_silu: expected a floating-point input"):
        bn_silu(m)(m.ones((4, 3), dtype=m.int64, device=device), None, None, training=True)


# ------------------------------------------------------------------------------ layer / group norm

@pytest.mark.parametrize("shape,norm", [((4, 6), (6,)), ((2, 3, 4, 5), (4, 5)), ((3, 5), (3, 5)), ((0, 4), (4,))])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("layout", ["c", "t", "s"])
def test_layer_norm(m, shape, norm, affine, layout):
    mk = Maker(m, 6)
    x = mk.randn(shape, scale=3, shift=1, grad=True, layout=layout)
    w = mk.randn(norm, grad=True) if affine else (None, None)
    b = mk.randn(norm, grad=True) if affine else (None, None)
    check(mk, lambda: fn_of(m).layer_norm(x[0], norm, w[0], b[0], 1e-4),
          lambda: TF.layer_norm(x[1], norm, w[1], b[1], 1e-4))


def test_layer_norm_errors(m):
    mk = Maker(m, 7)
    x = mk.randn((2, 3), "float32")
    for norm, wshape in [((4,), None), ((3,), (4,)), ((2, 3, 1), None), (3, None)]:
        w = mk.randn(wshape) if wshape else (None, None)
        raises_like(m, lambda: fn_of(m).layer_norm(x[0], norm, w[0]), lambda: TF.layer_norm(x[1], norm, w[1]))


@pytest.mark.parametrize("shape,groups", [((2, 6, 5), 3), ((3, 4, 2, 3), 2), ((2, 4), 4), ((2, 6, 3), 1), ((0, 4, 3), 2)])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("layout", ["c", "t"])
def test_group_norm(m, shape, groups, affine, layout):
    mk = Maker(m, 8)
    x = mk.randn(shape, scale=2, grad=True, layout=layout)
    C = shape[1]
    w = mk.randn((C,), grad=True) if affine else (None, None)
    b = mk.randn((C,), grad=True) if affine else (None, None)
    check(mk, lambda: fn_of(m).group_norm(x[0], groups, w[0], b[0]), lambda: TF.group_norm(x[1], groups, w[1], b[1]))


def test_group_norm_errors(m):
    mk = Maker(m, 9)
    for shape, groups, wshape in [((2, 3, 4), 2, None), ((3,), 1, None), ((2, 4, 4), 2, (3,))]:
        x = mk.randn(shape)
        w = mk.randn(wshape) if wshape else (None, None)
        raises_like(m, lambda: fn_of(m).group_norm(x[0], groups, w[0]), lambda: TF.group_norm(x[1], groups, w[1]))


# ------------------------------------------------------------------------------ cross entropy / nll

REDUCTIONS = ["mean", "sum", "none"]


@pytest.mark.parametrize("shape", [(6, 4), (3, 4, 2, 3), (5,)])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore_index", [-100, 1])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.25])
def test_cross_entropy_index_targets(m, shape, reduction, weighted, ignore_index, label_smoothing):
    mk = Maker(m, 10)
    C = shape[1] if len(shape) > 1 else shape[0]
    x = mk.randn(shape, scale=2, grad=True, layout="t" if len(shape) > 1 else "c")
    tshape = (shape[0],) + shape[2:] if len(shape) > 1 else ()
    tv = mk.rng.integers(0, C, tshape)
    if len(shape) > 1:
        tv.flat[::3] = ignore_index  # some targets ignored
    t = mk.make(tv.astype("int64"))
    w = mk.uniform((C,), 0.3, 2) if weighted else (None, None)
    kw = dict(ignore_index=ignore_index, reduction=reduction, label_smoothing=label_smoothing)
    check(mk, lambda: fn_of(m).cross_entropy(x[0], t[0], w[0], **kw), lambda: TF.cross_entropy(x[1], t[1], w[1], **kw))


@pytest.mark.parametrize("shape", [(6, 4), (2, 3, 4), (4,)])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.3])
def test_cross_entropy_probability_targets(m, shape, reduction, weighted, label_smoothing):
    mk = Maker(m, 11)
    C = shape[1] if len(shape) > 1 else shape[0]
    x = mk.randn(shape, scale=2, grad=True)
    p = mk.rng.random(shape)
    p = p / p.sum(axis=1 if len(shape) > 1 else 0, keepdims=True)
    t = mk.make(p, grad=True)
    w = mk.uniform((C,), 0.3, 2) if weighted else (None, None)
    check(mk, lambda: fn_of(m).cross_entropy(x[0], t[0], w[0], reduction=reduction, label_smoothing=label_smoothing),
          lambda: TF.cross_entropy(x[1], t[1], w[1], reduction=reduction, label_smoothing=label_smoothing))


@pytest.mark.parametrize("scale", [100.0, 1e4])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cross_entropy_large_logits(m, scale, dtype):
    mk = Maker(m, 12)
    x = mk.make((np.sign(mk.rng.standard_normal((5, 3))) * scale).astype(dtype), grad=True)
    t = mk.ints((5,), 0, 3)
    check(mk, lambda: fn_of(m).cross_entropy(x[0], t[0], label_smoothing=0.1),
          lambda: TF.cross_entropy(x[1], t[1], label_smoothing=0.1), dtype)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_all_ignored_and_empty(m, reduction):
    mk = Maker(m, 13)
    x = mk.randn((3, 4), grad=True)
    t = mk.make(np.full(3, -100, dtype="int64"))
    for ls in (0.0, 0.2):
        check(mk, lambda: fn_of(m).cross_entropy(x[0], t[0], reduction=reduction, label_smoothing=ls),
              lambda: TF.cross_entropy(x[1], t[1], reduction=reduction, label_smoothing=ls))
    xe = mk.randn((0, 4), grad=True)
    te, pe = mk.make(np.zeros(0, dtype="int64")), mk.make(np.zeros((0, 4)))
    check(mk, lambda: fn_of(m).cross_entropy(xe[0], te[0], reduction=reduction),
          lambda: TF.cross_entropy(xe[1], te[1], reduction=reduction))
    check(mk, lambda: fn_of(m).cross_entropy(xe[0], pe[0], reduction=reduction),
          lambda: TF.cross_entropy(xe[1], pe[1], reduction=reduction))
    check(mk, lambda: fn_of(m).nll_loss(xe[0], te[0], reduction=reduction),
          lambda: TF.nll_loss(xe[1], te[1], reduction=reduction))


@pytest.mark.parametrize("shape", [(6, 4), (2, 3, 5), (4,)])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss(m, shape, reduction, weighted):
    mk = Maker(m, 14)
    C = shape[1] if len(shape) > 1 else shape[0]
    x = mk.randn(shape, grad=True, layout="s")
    tshape = (shape[0],) + shape[2:] if len(shape) > 1 else ()
    tv = mk.rng.integers(0, C, tshape)
    if len(shape) > 1:
        tv.flat[1] = -100
    t = mk.make(tv.astype("int64"))
    w = mk.uniform((C,), 0.3, 2) if weighted else (None, None)
    check(mk, lambda: fn_of(m).nll_loss(x[0], t[0], w[0], reduction=reduction),
          lambda: TF.nll_loss(x[1], t[1], w[1], reduction=reduction))


def test_cross_entropy_nll_errors(m):
    mk = Maker(m, 15)
    x = mk.randn((2, 3))
    cases = [
        (mk.make(np.array([3, 0])), {}), (mk.make(np.array([-1, 0])), {}),
        (mk.make(np.array([1, 0], dtype="int32")), {}), (mk.make(np.array([1, 0, 1])), {}),
        (mk.make(np.ones((2, 4)) / 4), {}), (mk.make(np.array([1, 0])), {"weight": 4}),
        (mk.make(np.array([1, 0])), {"reduction": "avg"}), (mk.make(np.array([1, 0])), {"label_smoothing": 1.5}),
    ]
    for t, kw in cases:
        w = mk.make(np.ones(kw.pop("weight"))) if "weight" in kw else (None, None)
        raises_like(m, lambda: fn_of(m).cross_entropy(x[0], t[0], w[0], **kw), lambda: TF.cross_entropy(x[1], t[1], w[1], **kw))
    x3, t3 = mk.randn((2, 3, 4)), mk.make(np.zeros((2, 5), dtype="int64"))
    raises_like(m, lambda: fn_of(m).cross_entropy(x3[0], t3[0]), lambda: TF.cross_entropy(x3[1], t3[1]))
    x0, t0 = mk.make(np.array(1.0)), mk.make(np.array(0))
    raises_like(m, lambda: fn_of(m).nll_loss(x0[0], t0[0]), lambda: TF.nll_loss(x0[1], t0[1]))


# ------------------------------------------------------------------------------ binary cross entropy

@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weight", [None, "full", "per_class"])
@pytest.mark.parametrize("pos_weight", [None, "per_class", "full"])
@pytest.mark.parametrize("layout", ["c", "t"])
def test_bce_with_logits(m, reduction, weight, pos_weight, layout):
    mk = Maker(m, 16)
    x = mk.randn((4, 5), scale=3, grad=True, layout=layout)
    t = mk.uniform((4, 5), 0, 1, grad=True, layout=layout)
    shapes = {"full": (4, 5), "per_class": (5,)}
    w = mk.uniform(shapes[weight], 0.3, 2) if weight else (None, None)  # torch: no gradient for these
    pw = mk.uniform(shapes[pos_weight], 0.3, 3) if pos_weight else (None, None)
    check(mk, lambda: fn_of(m).binary_cross_entropy_with_logits(x[0], t[0], w[0], reduction=reduction, pos_weight=pw[0]),
          lambda: TF.binary_cross_entropy_with_logits(x[1], t[1], w[1], reduction=reduction, pos_weight=pw[1]))


@pytest.mark.parametrize("scale", [100.0, 1e4])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("pos_weight", [False, True])
def test_bce_with_logits_large_logits(m, scale, dtype, pos_weight):
    mk = Maker(m, 17)
    x = mk.make((np.array([1, -1, 1, -1, 0.5, -0.5]) * scale).astype(dtype), grad=True)
    t = mk.make(np.array([1, 0, 0, 1, 0.3, 0.7]).astype(dtype))
    pw = mk.make(np.full(6, 2.5).astype(dtype)) if pos_weight else (None, None)
    ya, _ = check(mk, lambda: fn_of(m).binary_cross_entropy_with_logits(x[0], t[0], reduction="none", pos_weight=pw[0]),
                  lambda: TF.binary_cross_entropy_with_logits(x[1], t[1], reduction="none", pos_weight=pw[1]), dtype)
    assert np.isfinite(np_of(ya)).all()


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weight", [None, "full", "per_class"])
def test_bce(m, reduction, weight):
    mk = Maker(m, 18)
    x = mk.uniform((4, 5), 0.02, 0.98, grad=True, layout="t")
    t = mk.uniform((4, 5), 0, 1, grad=True)
    shapes = {"full": (4, 5), "per_class": (5,)}
    w = mk.uniform(shapes[weight], 0.3, 2) if weight else (None, None)
    check(mk, lambda: fn_of(m).binary_cross_entropy(x[0], t[0], w[0], reduction=reduction),
          lambda: TF.binary_cross_entropy(x[1], t[1], w[1], reduction=reduction))


def test_bce_at_zero_and_one_clamps_logs_and_gradients(m):
    mk = Maker(m, 19)
    x = mk.make(np.array([0.0, 1.0, 0.0, 1.0, 0.5]), grad=True)
    t = mk.make(np.array([1.0, 0.0, 0.0, 1.0, 0.2]))
    check(mk, lambda: fn_of(m).binary_cross_entropy(x[0], t[0], reduction="sum"),
          lambda: TF.binary_cross_entropy(x[1], t[1], reduction="sum"))


def test_bce_errors(m):
    mk = Maker(m, 20)
    cases = [(np.array([1.5]), np.array([1.0]), None), (np.array([0.5, 0.5]), np.array([1.0]), None),
             (np.array([0.5, 0.5]), np.array([1.0, 0.0]), np.ones(3))]
    for xv, tv, wv in cases:
        x, t = mk.make(xv), mk.make(tv)
        w = mk.make(wv) if wv is not None else (None, None)
        raises_like(m, lambda: fn_of(m).binary_cross_entropy(x[0], t[0], w[0]), lambda: TF.binary_cross_entropy(x[1], t[1], w[1]))
    x, t, pw = mk.randn((2, 3)), mk.uniform((2, 3), 0, 1), mk.make(np.ones(4))
    raises_like(m, lambda: fn_of(m).binary_cross_entropy_with_logits(x[0], t[0], pos_weight=pw[0]),
                lambda: TF.binary_cross_entropy_with_logits(x[1], t[1], pos_weight=pw[1]))
    t1 = mk.uniform((3,), 0, 1)
    raises_like(m, lambda: fn_of(m).binary_cross_entropy_with_logits(x[0], t1[0]),
                lambda: TF.binary_cross_entropy_with_logits(x[1], t1[1]))


# ------------------------------------------------------------------------------ regression losses

@contextlib.contextmanager
def _nowarn():
    """torch warns when loss input and target shapes differ (and broadcasts); adept just broadcasts."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.mark.parametrize("name,kw", [("mse_loss", {}), ("l1_loss", {}), ("smooth_l1_loss", {}),
                                     ("smooth_l1_loss", {"beta": 0.5}), ("smooth_l1_loss", {"beta": 0.0}),
                                     ("huber_loss", {}), ("huber_loss", {"delta": 0.4})])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 4), (4,)), ((1, 4), (3, 1)), ((0, 3), (0, 3))])
@pytest.mark.parametrize("layout", ["c", "t"])
def test_regression_losses(m, name, kw, reduction, shapes, layout):
    mk = Maker(m, 21)
    x = mk.randn(shapes[0], scale=2, grad=True, layout=layout)
    y = mk.randn(shapes[1], scale=2, grad=True)
    with _nowarn():
        check(mk, lambda: getattr(fn_of(m), name)(x[0], y[0], reduction=reduction, **kw),
              lambda: getattr(TF, name)(x[1], y[1], reduction=reduction, **kw))


def test_regression_errors_and_legacy_reduction_args(m):
    mk = Maker(m, 22)
    x, y, y5 = mk.randn((2, 3)), mk.randn((2, 3)), mk.randn((5,))
    with _nowarn():
        raises_like(m, lambda: fn_of(m).mse_loss(x[0], y5[0]), lambda: TF.mse_loss(x[1], y5[1]))
    raises_like(m, lambda: fn_of(m).smooth_l1_loss(x[0], y[0], beta=-1), lambda: TF.smooth_l1_loss(x[1], y[1], beta=-1))
    raises_like(m, lambda: fn_of(m).huber_loss(x[0], y[0], delta=0), lambda: TF.huber_loss(x[1], y[1], delta=0))
    raises_like(m, lambda: fn_of(m).l1_loss(x[0], y[0], reduction="avg"), lambda: TF.l1_loss(x[1], y[1], reduction="avg"))
    with _nowarn():
        for sa, rd in [(False, None), (None, False), (True, True)]:
            assert_close(fn_of(m).mse_loss(x[0], y[0], size_average=sa, reduce=rd),
                         TF.mse_loss(x[1], y[1], size_average=sa, reduce=rd))


# ------------------------------------------------------------------------------ linear

@pytest.mark.parametrize("xshape,wshape,bias", [((4, 3), (5, 3), True), ((4, 3), (5, 3), False), ((2, 4, 3), (5, 3), True),
                                                ((3,), (5, 3), True), ((4, 3), (3,), False), ((0, 3), (5, 3), True)])
@pytest.mark.parametrize("layout", ["c", "t"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linear(m, xshape, wshape, bias, layout, dtype):
    mk = Maker(m, 23)
    x = mk.randn(xshape, dtype, grad=True, layout=layout)
    w = mk.randn(wshape, dtype, grad=True, layout=layout)
    b = mk.randn((wshape[0],), dtype, grad=True) if bias else (None, None)
    check(mk, lambda: fn_of(m).linear(x[0], w[0], b[0]), lambda: TF.linear(x[1], w[1], b[1]), dtype)


def test_linear_errors(m):
    mk = Maker(m, 24)
    x, w, w5, b5 = mk.randn((2, 3)), mk.randn((4, 3)), mk.randn((4, 5)), mk.randn((5,))
    raises_like(m, lambda: fn_of(m).linear(x[0], w5[0]), lambda: TF.linear(x[1], w5[1]))
    raises_like(m, lambda: fn_of(m).linear(x[0], w[0], b5[0]), lambda: TF.linear(x[1], w[1], b5[1]))


# ------------------------------------------------------------------------------ activations

ACTS = [("hardswish", {}), ("hardsigmoid", {}), ("relu6", {}), ("hardtanh", {}), ("hardtanh", {"min_val": -0.5, "max_val": 2.0}),
        ("elu", {}), ("elu", {"alpha": 0.4}), ("mish", {}), ("relu", {}), ("silu", {}), ("gelu", {}), ("sigmoid", {}),
        ("tanh", {}), ("softplus", {}), ("leaky_relu", {})]


@pytest.mark.parametrize("name,kw", ACTS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_activation(m, name, kw, dtype):
    mk = Maker(m, 25)
    vals = np.concatenate([mk.rng.uniform(-8, 8, 40), [-3.0, 3.0, 0.0, 6.0, -1.0, 1.0, -0.5, 2.0, 30.0, -30.0]])
    x = mk.make(vals.reshape(5, 10).astype(dtype), grad=True, layout="t")
    check(mk, lambda: getattr(fn_of(m), name)(x[0], **kw), lambda: getattr(TF, name)(x[1], **kw), dtype)


@pytest.mark.parametrize("name", ["hardswish", "hardsigmoid", "relu6", "hardtanh", "elu", "mish"])
def test_activation_inplace_and_int_error(m, name):
    mk = Maker(m, 26)
    x = mk.randn((3, 4))
    ra = getattr(fn_of(m), name)(x[0], inplace=True)
    rt = getattr(TF, name)(x[1], inplace=True)
    assert ra is x[0]
    assert_close(x[0], rt)
    xi = mk.make(np.arange(4, dtype="int64"))
    if name not in ("hardtanh", "relu6"):  # torch clamps ints with these
        raises_like(m, lambda: getattr(fn_of(m), name)(xi[0]), lambda: getattr(TF, name)(xi[1]))


# ------------------------------------------------------------------------------ dropout

def test_dropout_statistics_and_scaling(m):
    m.manual_seed(0)
    for p in (0.1, 0.5, 0.8):
        y = fn_of(m).dropout(m.ones(100000), p=p).numpy()
        assert abs((y == 0).mean() - p) < 0.01
        np.testing.assert_allclose(y[y != 0], 1 / (1 - p), rtol=1e-6)


def test_dropout_reproducible_and_gradient_mask(m):
    x = m.randn(40, 50, requires_grad=True)
    m.manual_seed(7)
    y1 = fn_of(m).dropout(x, 0.4)
    m.manual_seed(7)
    y2 = fn_of(m).dropout(x, 0.4)
    np.testing.assert_array_equal(y1.detach().numpy(), y2.detach().numpy())
    y3 = fn_of(m).dropout(x, 0.4)
    assert not np.array_equal(y1.detach().numpy(), y3.detach().numpy())
    y1.sum().backward()
    mask = (y1.detach().numpy() != 0) / 0.6
    np.testing.assert_allclose(x.grad.numpy(), mask, rtol=1e-6)


def test_dropout_identity_cases_p1_and_errors(m):
    x = m.randn(3, 4)
    assert fn_of(m).dropout(x, 0.5, training=False) is x
    assert fn_of(m).dropout(x, 0.0) is x
    np.testing.assert_array_equal(fn_of(m).dropout(x, 1.0).numpy(), np.zeros((3, 4), dtype="float32"))
    assert np.isnan(fn_of(m).dropout(m.tensor([float("nan")]), 1.0).numpy()[0])
    assert fn_of(m).dropout(m.ones(0, 3), 0.5).shape == (0, 3)
    for p in (1.5, -0.1):
        raises_like(m, lambda: fn_of(m).dropout(x, p), lambda: TF.dropout(torch.randn(3), p))
    xi = m.ones(1000)
    m.manual_seed(1)
    out = fn_of(m).dropout(xi, 0.5, inplace=True)
    assert out is xi and 0.4 < (xi.numpy() == 0).mean() < 0.6


@pytest.mark.parametrize("name", ["relu", "silu", "leaky_relu", "relu6", "hardswish", "hardtanh", "elu", "mish",
                                  "hardsigmoid"])
def test_inplace_activation_backward_matches_torch(m, name):
    """inplace=True on a non-leaf that autograd needs: same values and gradients as torch (no version error)."""
    v = np.random.default_rng(3).standard_normal(7).astype(np.float32)
    x = m.tensor(v, requires_grad=True)
    y = x * 2
    z = getattr(m.nn.functional, name)(y, inplace=True)
    (z * z).sum().backward()
    tx = torch.tensor(v, requires_grad=True)
    ty = tx * 2
    tz = getattr(torch.nn.functional, name)(ty, inplace=True)
    (tz * tz).sum().backward()
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(RuntimeError):  # a leaf that requires grad cannot be written in place (torch's error)
        getattr(m.nn.functional, name)(m.tensor(v, requires_grad=True), inplace=True)
