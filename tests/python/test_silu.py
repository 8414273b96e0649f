"""SiLU forward and backward against torch: float32/float64, contiguous and strided inputs, zero-size,
|x| up to 100 (no NaN/inf from exp overflow), finite differences in float64, and second derivatives
(create_graph, where the backward is the composed formula instead of the fused kernel)."""
import numpy as np
import pytest
import torch

SHAPES = [(3, 5), (0, 7), (17, 33), (64, 301)]
LAYOUTS = ["contig", "transposed", "sliced"]
TOL = {"float32": dict(rtol=2e-6, atol=1e-6), "float64": dict(rtol=1e-13, atol=1e-14)}


def _values(shape, seed):
    rng = np.random.default_rng(seed)
    v = rng.standard_normal(shape) * 30
    v.flat[: min(v.size, 4)] = [100.0, -100.0, 99.5, -99.5][: min(v.size, 4)]
    return np.clip(v, -100, 100)


def _layout(lib, base, layout):
    """A view of `base` with the given layout (transposed and sliced ones are not contiguous)."""
    if layout == "transposed":
        return base.t()
    if layout == "sliced":
        return base[:, ::2]
    return base


def _run(lib, xv, gv, layout, dtype, create_graph=False):
    x = lib.tensor(xv, dtype=getattr(lib, dtype), requires_grad=True)
    xi = _layout(lib, x, layout)
    y = lib.nn.functional.silu(xi)
    g = lib.tensor(gv, dtype=getattr(lib, dtype))
    (gx,) = lib.autograd.grad(y, x, g, create_graph=create_graph)
    return xi, y.detach().numpy(), gx.detach().numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", SHAPES)
def test_silu_matches_torch(m, dtype, layout, shape):
    base = shape if layout != "transposed" else shape[::-1]
    xv = _values(base, 1)
    out_shape = tuple(_layout(torch, torch.zeros(base), layout).shape)
    gv = np.random.default_rng(2).standard_normal(out_shape)
    xi, y, gx = _run(m, xv, gv, layout, dtype)
    if layout != "contig" and xi.numel() > 1:
        assert not xi.is_contiguous()
    _, ty, tgx = _run(torch, xv, gv, layout, dtype)
    assert y.dtype == ty.dtype and y.shape == ty.shape and gx.shape == tgx.shape
    assert np.isfinite(y).all() and np.isfinite(gx).all()
    np.testing.assert_allclose(y, ty, **TOL[dtype])
    np.testing.assert_allclose(gx, tgx, **TOL[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_fused_backward_matches_composed_formula(m, dtype, layout):
    """The fused kernel (grad mode off during backward) against the formula (create_graph=True)."""
    xv = _values((40, 50), 3)
    gv = np.random.default_rng(4).standard_normal(tuple(_layout(torch, torch.zeros(40, 50), layout).shape))
    _, _, fused = _run(m, xv, gv, layout, dtype)
    _, _, composed = _run(m, xv, gv, layout, dtype, create_graph=True)
    np.testing.assert_allclose(fused, composed, **TOL[dtype])


def test_silu_finite_differences_float64(m):
    rng = np.random.default_rng(6)
    xv, wv = rng.standard_normal((3, 4)) * 4, rng.standard_normal((3, 4))
    x = m.tensor(xv, requires_grad=True)
    (m.nn.functional.silu(x.t()) * m.tensor(wv.T)).sum().backward()

    def f(v):
        return float((m.nn.functional.silu(m.tensor(v)).numpy() * wv).sum())

    eps, num = 1e-6, np.zeros_like(xv)
    for i in np.ndindex(xv.shape):
        d = np.zeros_like(xv)
        d[i] = eps
        num[i] = (f(xv + d) - f(xv - d)) / (2 * eps)
    np.testing.assert_allclose(x.grad.numpy(), num, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_silu_double_backward_matches_torch(m, layout):
    def second(lib):
        rng = np.random.default_rng(8)
        x = lib.tensor(rng.standard_normal((6, 8)) * 3, requires_grad=True)
        xi = _layout(lib, x, layout)
        r = lib.tensor(rng.standard_normal(tuple(xi.shape)))
        (h,) = lib.autograd.grad((lib.nn.functional.silu(xi) * r).sum(), x, create_graph=True)
        assert h.requires_grad
        (h * h).sum().backward()
        return h.detach().numpy(), x.grad.numpy()

    got, want = second(m), second(torch)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-10, atol=1e-12)
