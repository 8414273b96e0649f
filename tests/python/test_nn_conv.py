"""conv2d / conv_transpose2d against live torch: forward and input/weight/bias gradients on seeded random
inputs over a grid of shapes, with each CPU algorithm forced through ADEPT_CONV_ALGO; zero-size batch,
non-contiguous inputs, reduced precision and error-type parity.

Run: PYTHONPATH=<build dir>/python OMP_NUM_THREADS=2 /usr/bin/python3 -m pytest -q tests/python/test_nn_conv.py
"""
import itertools

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

ALGOS = ["auto", "reference", "im2col", "winograd", "depthwise"]


def _applies(algo, k, stride, dilation, groups, c_in, c_out):
    if algo == "winograd":
        return k == (3, 3) and stride in (1, (1, 1)) and dilation in (1, (1, 1))
    if algo == "depthwise":
        return groups == c_in and c_out % c_in == 0
    return True


def _grid():
    cases = []
    for k, s, p, d, g in itertools.product([(1, 1), (3, 3), (5, 5), (2, 3)], [1, 2], [0, 1, 2, "same", (2, 1)],
                                           [1, 2], [1, 2, 4]):
        if p == "same" and s != 1:
            continue
        c_out = 8 if g == 4 else 6
        cases.append(dict(n=2, c_in=4, h=10, w=9, c_out=c_out, k=k, stride=s, padding=p, dilation=d, groups=g,
                          bias=(len(cases) % 2 == 0)))
    # Channel counts large enough for the auto rule to pick winograd, odd sizes (partial tiles).
    for p in (0, 1, "same"):
        cases.append(dict(n=2, c_in=16, h=11, w=9, c_out=24, k=(3, 3), stride=1, padding=p, dilation=1, groups=1,
                          bias=True))
    return cases


def _params():
    out = []
    for i, c in enumerate(_grid()):
        for algo in ALGOS:
            if _applies(algo, c["k"], c["stride"], c["dilation"], c["groups"], c["c_in"], c["c_out"]):
                out.append(pytest.param(algo, c, id=f"{algo}-{i}"))
    return out


def _inputs(c, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, (c["n"], c["c_in"], c["h"], c["w"])).astype(dtype)
    w = rng.uniform(-1, 1, (c["c_out"], c["c_in"] // c["groups"], *c["k"])).astype(dtype)
    b = rng.uniform(-1, 1, (c["c_out"],)).astype(dtype) if c["bias"] else None
    return x, w, b


def _run(lib, fn, arrays, kwargs, gy, transform=None):
    """Forward + backward of fn(lib tensors...) with upstream gradient gy; returns numpy results."""
    ts = [None if a is None else lib.from_numpy(a.copy()) for a in arrays]
    if transform is not None:
        ts[0] = transform(ts[0])
    leaves = []
    for t in ts:
        if t is not None:
            t.requires_grad_(True)
            leaves.append(t)
    y = fn(*ts, **kwargs)
    y.backward(lib.from_numpy(gy.copy()) if gy is not None else None)
    return [y.detach().numpy()] + [t.grad.numpy() for t in leaves]


def _compare(m, c, algo, dtype, monkeypatch, transform=None, tol=None):
    monkeypatch.setenv("ADEPT_CONV_ALGO", algo)
    x, w, b = _inputs(c, dtype)
    kw = dict(stride=c["stride"], padding=c["padding"], dilation=c["dilation"], groups=c["groups"])
    ty = TF.conv2d(torch.from_numpy(x), torch.from_numpy(w), None if b is None else torch.from_numpy(b), **kw)
    gy = np.random.default_rng(1).uniform(-1, 1, ty.shape).astype(dtype)
    want = _run(torch, TF.conv2d, [x, w, b], kw, gy, transform)
    got = _run(m, m.nn.functional.conv2d, [x, w, b], kw, gy, transform)
    tol = tol or (1e-10 if dtype == np.float64 else 2e-4)
    for name, g, t in zip(["out", "grad_input", "grad_weight", "grad_bias"], got, want):
        np.testing.assert_allclose(g, t, rtol=tol, atol=tol, err_msg=f"{name} ({algo}, {c})")


@pytest.mark.parametrize("algo,case", _params())
def test_conv2d_matches_torch_float32(m, algo, case, monkeypatch):
    _compare(m, case, algo, np.float32, monkeypatch)


@pytest.mark.parametrize("algo,case", _params()[::7])
def test_conv2d_matches_torch_float64(m, algo, case, monkeypatch):
    _compare(m, case, algo, np.float64, monkeypatch)


@pytest.mark.parametrize("algo", ALGOS)
def test_conv2d_non_contiguous_input(m, algo, monkeypatch):
    c = dict(n=3, c_in=6, h=9, w=8, c_out=6, k=(3, 3), stride=1, padding=1, dilation=1, groups=6, bias=True)
    if algo not in ("depthwise", "auto"):
        c.update(groups=1, c_out=16, c_in=16)
    # input laid out channels-last: a permuted view
    def channels_last(t):
        return t.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
    _compare(m, c, algo, np.float32, monkeypatch, transform=channels_last)


TRANSPOSED = [
    dict(c_in=4, c_out_g=3, k=3, stride=1, padding=0, output_padding=0, groups=1, dilation=1),
    dict(c_in=4, c_out_g=3, k=3, stride=2, padding=1, output_padding=1, groups=1, dilation=1),
    dict(c_in=4, c_out_g=2, k=(3, 2), stride=(2, 1), padding=(1, 0), output_padding=(1, 0), groups=2, dilation=1),
    dict(c_in=6, c_out_g=1, k=3, stride=2, padding=1, output_padding=0, groups=6, dilation=2),
    dict(c_in=4, c_out_g=3, k=5, stride=1, padding=2, output_padding=1, groups=1, dilation=2),
    dict(c_in=16, c_out_g=16, k=3, stride=1, padding=1, output_padding=0, groups=1, dilation=1),
    dict(c_in=4, c_out_g=4, k=2, stride=2, padding=0, output_padding=0, groups=2, dilation=1),
]


def _tparams():
    out = []
    for i, c in enumerate(TRANSPOSED):
        k = c["k"] if isinstance(c["k"], tuple) else (c["k"], c["k"])
        for algo in ALGOS:
            if _applies(algo, k, c["stride"], c["dilation"], c["groups"], c["c_out_g"] * c["groups"], c["c_in"]):
                out.append(pytest.param(algo, c, id=f"{algo}-{i}"))
    return out


@pytest.mark.parametrize("algo,c", _tparams())
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_conv_transpose2d_matches_torch(m, algo, c, dtype, monkeypatch):
    monkeypatch.setenv("ADEPT_CONV_ALGO", algo)
    rng = np.random.default_rng(3)
    k = c["k"] if isinstance(c["k"], tuple) else (c["k"], c["k"])
    x = rng.uniform(-1, 1, (2, c["c_in"], 5, 6)).astype(dtype)
    w = rng.uniform(-1, 1, (c["c_in"], c["c_out_g"], *k)).astype(dtype)
    b = rng.uniform(-1, 1, (c["c_out_g"] * c["groups"],)).astype(dtype)
    kw = {n: c[n] for n in ("stride", "padding", "output_padding", "groups", "dilation")}
    ty = TF.conv_transpose2d(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b), **kw)
    gy = rng.uniform(-1, 1, ty.shape).astype(dtype)
    want = _run(torch, TF.conv_transpose2d, [x, w, b], kw, gy)
    got = _run(m, m.nn.functional.conv_transpose2d, [x, w, b], kw, gy)
    tol = 1e-10 if dtype == np.float64 else 2e-4
    for name, g, t in zip(["out", "grad_input", "grad_weight", "grad_bias"], got, want):
        np.testing.assert_allclose(g, t, rtol=tol, atol=tol, err_msg=f"{name} ({algo})")


@pytest.mark.parametrize("algo", ["auto", "im2col", "reference"])
def test_zero_size_batch(m, algo, monkeypatch):
    monkeypatch.setenv("ADEPT_CONV_ALGO", algo)
    x = np.zeros((0, 4, 5, 5), np.float32)
    w = np.random.default_rng(0).uniform(-1, 1, (6, 4, 3, 3)).astype(np.float32)
    b = np.ones(6, np.float32)
    got = _run(m, m.nn.functional.conv2d, [x, w, b], dict(padding=1), np.zeros((0, 6, 5, 5), np.float32))
    want = _run(torch, TF.conv2d, [x, w, b], dict(padding=1), np.zeros((0, 6, 5, 5), np.float32))
    for g, t in zip(got, want):
        assert g.shape == t.shape
        np.testing.assert_array_equal(g, t)
    wt = np.random.default_rng(0).uniform(-1, 1, (4, 3, 3, 3)).astype(np.float32)
    assert m.nn.functional.conv_transpose2d(m.from_numpy(x), m.from_numpy(wt), stride=2).shape == \
        TF.conv_transpose2d(torch.from_numpy(x), torch.from_numpy(wt), stride=2).shape


def test_unbatched_input(m):
    rng = np.random.default_rng(0)
    x, w = rng.uniform(-1, 1, (4, 7, 6)).astype(np.float32), rng.uniform(-1, 1, (6, 4, 3, 3)).astype(np.float32)
    got = m.nn.functional.conv2d(m.from_numpy(x), m.from_numpy(w), stride=2, padding=1).numpy()
    want = TF.conv2d(torch.from_numpy(x), torch.from_numpy(w), stride=2, padding=1).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    wt = rng.uniform(-1, 1, (4, 3, 3, 3)).astype(np.float32)
    got = m.nn.functional.conv_transpose2d(m.from_numpy(x), m.from_numpy(wt), stride=2).numpy()
    want = TF.conv_transpose2d(torch.from_numpy(x), torch.from_numpy(wt), stride=2).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_bfloat16_computes_like_torch(m):
    rng = np.random.default_rng(0)
    x, w = rng.uniform(-1, 1, (1, 3, 6, 6)).astype(np.float32), rng.uniform(-1, 1, (4, 3, 3, 3)).astype(np.float32)
    got = m.nn.functional.conv2d(m.from_numpy(x).to(m.bfloat16), m.from_numpy(w).to(m.bfloat16), padding=1)
    want = TF.conv2d(torch.from_numpy(x).bfloat16(), torch.from_numpy(w).bfloat16(), padding=1)
    assert got.dtype == m.bfloat16
    np.testing.assert_allclose(got.float().numpy(), want.float().numpy(), rtol=2e-2, atol=2e-2)


def _error_cases():
    x = lambda *s: np.random.default_rng(0).uniform(-1, 1, s).astype(np.float32)  # noqa: E731
    return {
        "input_5d": (lambda F, T: F.conv2d(T(x(1, 2, 4, 5, 5)), T(x(6, 4, 3, 3)))),
        "channels": (lambda F, T: F.conv2d(T(x(2, 4, 5, 5)), T(x(6, 3, 3, 3)))),
        "groups_in": (lambda F, T: F.conv2d(T(x(2, 5, 5, 5)), T(x(6, 2, 3, 3)), groups=2)),
        "groups_out": (lambda F, T: F.conv2d(T(x(2, 4, 5, 5)), T(x(5, 2, 3, 3)), groups=2)),
        "groups_zero": (lambda F, T: F.conv2d(T(x(2, 4, 5, 5)), T(x(6, 4, 3, 3)), groups=0)),
        "kernel_too_big": (lambda F, T: F.conv2d(T(x(2, 4, 5, 5)), T(x(6, 4, 7, 7)))),
        "stride_zero": (lambda F, T: F.conv2d(T(x(2, 4, 5, 5)), T(x(6, 4, 3, 3)), stride=0)),
        "negative_padding": (lambda F, T: F.conv2d(T(x(2, 4, 5, 5)), T(x(6, 4, 3, 3)), padding=-1)),
        "dilation_zero": (lambda F, T: F.conv2d(T(x(2, 4, 5, 5)), T(x(6, 4, 3, 3)), dilation=0)),
        "same_strided": (lambda F, T: F.conv2d(T(x(2, 4, 5, 5)), T(x(6, 4, 3, 3)), padding="same", stride=2)),
        "bad_padding_string": (lambda F, T: F.conv2d(T(x(2, 4, 5, 5)), T(x(6, 4, 3, 3)), padding="full")),
        "dtype_mismatch": (lambda F, T: F.conv2d(T(x(2, 4, 5, 5)), T(x(6, 4, 3, 3)).double())),
        "bias_dtype": (lambda F, T: F.conv2d(T(x(2, 4, 5, 5)), T(x(6, 4, 3, 3)), T(x(6)).double())),
        "bias_size": (lambda F, T: F.conv2d(T(x(2, 4, 5, 5)), T(x(6, 4, 3, 3)), T(x(5)))),
        "empty_spatial": (lambda F, T: F.conv2d(T(x(2, 4, 0, 5)), T(x(6, 4, 3, 3)), padding=2)),
        "no_out_channels": (lambda F, T: F.conv2d(T(x(2, 4, 5, 5)), T(x(0, 4, 3, 3)))),
        "stride_3_values": (lambda F, T: F.conv2d(T(x(2, 4, 5, 5)), T(x(6, 4, 3, 3)), stride=(1, 2, 3))),
        "t_output_padding": (lambda F, T: F.conv_transpose2d(T(x(2, 4, 5, 5)), T(x(4, 3, 3, 3)), stride=2,
                                                             output_padding=2)),
        "t_channels": (lambda F, T: F.conv_transpose2d(T(x(2, 4, 5, 5)), T(x(3, 3, 3, 3)))),
        "t_groups": (lambda F, T: F.conv_transpose2d(T(x(2, 4, 5, 5)), T(x(4, 3, 3, 3)), groups=3)),
        "t_too_small": (lambda F, T: F.conv_transpose2d(T(x(1, 4, 1, 1)), T(x(4, 3, 1, 1)), padding=2)),
        "t_bias": (lambda F, T: F.conv_transpose2d(T(x(2, 4, 5, 5)), T(x(4, 3, 3, 3)), T(x(6)))),
        "t_padding_string": (lambda F, T: F.conv_transpose2d(T(x(2, 4, 5, 5)), T(x(4, 3, 3, 3)), padding="same")),
        "t_input_2d": (lambda F, T: F.conv_transpose2d(T(x(4, 5)), T(x(4, 3, 3, 3)))),
    }


@pytest.mark.parametrize("name", list(_error_cases()))
def test_errors_match_torch_types(m, name):
    fn = _error_cases()[name]
    with pytest.raises(Exception) as te:
        fn(TF, torch.from_numpy)
    with pytest.raises(Exception) as ae:
        fn(m.nn.functional, m.from_numpy)
    assert isinstance(ae.value, type(te.value)), f"adept raised {ae.type.__name__}({ae.value}); torch {te.type.__name__}"
    assert "conv" in str(ae.value).lower() or "stride" in str(ae.value), str(ae.value)


def test_forced_algorithm_that_cannot_run_raises(m, monkeypatch):
    monkeypatch.setenv("ADEPT_CONV_ALGO", "winograd")
    x, w = m.randn(1, 4, 6, 6), m.randn(4, 4, 5, 5)
    with pytest.raises(ValueError, match="conv2d"):
        m.nn.functional.conv2d(x, w)
    monkeypatch.setenv("ADEPT_CONV_ALGO", "im2col")
    assert m.nn.functional.conv2d(x, w).shape == (1, 4, 2, 2)


@pytest.mark.parametrize("groups,c_out,stride", [(1, 3, 1), (2, 4, 2)])  # dense; depthwise, multiplier 2
def test_vulkan_conv2d_matches_the_cpu(m, groups, c_out, stride):
    if not m.vulkan.is_available():
        pytest.skip("no Vulkan device")
    x, w, b = m.randn(2, 2, 7, 6), m.randn(c_out, 2 // groups, 3, 3), m.randn(c_out)
    results = []
    for dev in ("cpu", "vulkan"):
        xd, wd, bd = (t.to(dev).detach().requires_grad_() for t in (x, w, b))
        y = m.nn.functional.conv2d(xd, wd, bd, stride, 1, 1, groups)
        (y * y).sum().backward()
        results.append([t.detach().cpu().numpy() for t in (y, xd.grad, wd.grad, bd.grad)])
    for got, want in zip(results[1], results[0]):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_vulkan_forced_algorithm_that_cannot_run_raises(m, monkeypatch):
    if not m.vulkan.is_available():
        pytest.skip("no Vulkan device")
    monkeypatch.setenv("ADEPT_CONV_ALGO", "depthwise")
    x, w = m.randn(1, 2, 5, 5).to("vulkan"), m.randn(3, 2, 3, 3).to("vulkan")
    with pytest.raises(ValueError, match="conv2d"):
        m.nn.functional.conv2d(x, w)
