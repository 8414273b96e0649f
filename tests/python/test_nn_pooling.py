"""Parity with PyTorch for adept.nn.functional's pooling and interpolation: max_pool2d (values, indices,
gradients), avg_pool2d, adaptive_avg_pool2d, adaptive_max_pool2d, max_unpool2d and interpolate, over grids of
kernel/stride/padding/dilation/ceil_mode/count_include_pad/divisor_override, scale factors and sizes, on
non-square, odd-sized, unbatched, empty-batch and non-contiguous (channels-last, strided) inputs; errors must
have torch's exception type."""
import contextlib
import itertools

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

TOL = {"float32": (1e-5, 1e-6), "float64": (1e-11, 1e-12)}
_DEVICE = ["cpu"]  # the --device option, which the tests' adept tensors live on (set by _on_device)


@pytest.fixture(autouse=True)
def _on_device(device):
    _DEVICE[0] = device


def _dev(x):
    """An adept tensor moved to the tested device."""
    return x if _DEVICE[0] == "cpu" else x.to(_DEVICE[0])


@contextlib.contextmanager
def _skip_without_kernel():
    """Skips the test where the tested (non-CPU) device has no kernel for an op (NotImplementedError)."""
    try:
        yield
    except NotImplementedError as e:
        if _DEVICE[0] == "cpu" or "vulkan" not in str(e):
            raise
        pytest.skip(f"no {_DEVICE[0]} kernel: {e}")


def _values(shape, seed, kind="normal"):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape, dtype=np.int64))
    if kind == "distinct":  # no ties, so max pooling's argmax is unambiguous
        return ((rng.permutation(n) - n / 2) * 0.25).reshape(shape)
    if kind == "ties":  # many equal values: the first maximum must win, as in torch
        return rng.integers(-2, 3, size=shape).astype(np.float64)
    return rng.standard_normal(shape)


def _layout(a, layout):
    """(base array, view recipe) so that recipe(tensor(base)) holds a's values with the layout."""
    if layout == "contig" or a.ndim != 4:
        return a, lambda t: t
    if layout == "channels_last":
        return np.ascontiguousarray(a.transpose(0, 2, 3, 1)), lambda t: t.permute(0, 3, 1, 2)
    if layout == "strided":
        base = np.zeros(a.shape[:-1] + (2 * a.shape[-1],))
        base[..., ::2] = a
        return base, lambda t: t[..., ::2]
    raise ValueError(layout)


def _pair(m, a, dtype, layout="contig", grad=True):
    """The same values as a torch tensor and an adept tensor (both leaves with the given layout)."""
    base, view = _layout(a, layout)
    t = torch.from_numpy(np.ascontiguousarray(base)).to(getattr(torch, dtype)).requires_grad_(grad)
    x = _dev(m.from_numpy(np.ascontiguousarray(base).astype(dtype)).clone()).requires_grad_(grad)
    return t, x, view


def _np(x):
    return x.detach().numpy() if isinstance(x, torch.Tensor) else np.asarray(x.detach().cpu().numpy())


def _close(got, want, dtype, what, tol=1.0):
    rtol, atol = (tol * v for v in TOL[dtype])
    assert got.shape == want.shape, f"{what}: shape {got.shape} vs torch {want.shape}"
    scale = max(1.0, float(np.nanmax(np.abs(want)))) if want.size and np.isfinite(want).any() else 1.0
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol * scale, equal_nan=True, err_msg=what)


def check(m, fn, a, dtype="float32", layout="contig", grad=True, indices=False, exact=False, tol=1.0):
    """Runs fn(F, x) with torch and adept on values `a`, compares outputs (and indices), then backward.
    tol scales the tolerances (interpolation weights are rounded to float32 before use, and torch's kernels
    contract multiply-adds differently: results differ by a few ulps of the largest value). On a device
    without a kernel for the op (NotImplementedError naming it) the test is skipped."""
    with _skip_without_kernel():
        _check(m, fn, a, dtype, layout, grad, indices, exact, tol)


def _check(m, fn, a, dtype, layout, grad, indices, exact, tol):
    t, x, view = _pair(m, a, dtype, layout, grad)
    tv, xv = view(t), view(x)
    if layout != "contig":
        assert not xv.is_contiguous()
    want = fn(TF, tv)
    got = fn(m.nn.functional, xv)
    if indices:
        want, want_i = want
        got, got_i = got
        assert str(got_i.dtype).endswith("int64")
        np.testing.assert_array_equal(_np(got_i), _np(want_i))
    if exact:
        np.testing.assert_array_equal(_np(got), _np(want))
    else:
        _close(_np(got), _np(want), dtype, "forward", tol)
    assert got.dtype == getattr(m, dtype)
    if not grad or want.numel() == 0 and t.numel() == 0:
        return
    g = np.random.default_rng(99).standard_normal(tuple(want.shape))
    want.backward(torch.from_numpy(g).to(want.dtype))
    got.backward(_dev(m.from_numpy(g.astype(dtype))))
    _close(_np(x.grad), _np(t.grad), dtype, "gradient", tol)


# ---- max_pool2d ---------------------------------------------------------------------------------------------


def _valid_pool(shape, k, s, p, d, ceil):
    k2 = (k, k) if isinstance(k, int) else k
    p2 = (p, p) if isinstance(p, int) else p
    d2 = (d, d) if isinstance(d, int) else d
    s2 = k2 if s is None else ((s, s) if isinstance(s, int) else s)
    if any(pp > kk // 2 for pp, kk in zip(p2, k2)):
        return False
    for i in range(2):
        n = shape[-2 + i] + 2 * p2[i] - d2[i] * (k2[i] - 1) - 1
        if n < 0:
            return False
    return True


MAX_GRID = [c for c in itertools.product([2, 3, (2, 3)], [None, 1, 2, (1, 2)], [0, 1], [1, 2], [False, True])
            if _valid_pool((9, 8), *c)]


@pytest.mark.parametrize("k,s,p,d,ceil", MAX_GRID)
def test_max_pool2d_grid(m, k, s, p, d, ceil):
    a = _values((2, 3, 9, 8), 1, "distinct")
    check(m, lambda F, x: F.max_pool2d(x, k, s, p, d, ceil_mode=ceil, return_indices=True), a, indices=True, exact=True)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["contig", "channels_last", "strided"])
def test_max_pool2d_dtypes_and_layouts(m, dtype, layout):
    a = _values((2, 4, 7, 10), 2, "distinct")
    check(m, lambda F, x: F.max_pool2d(x, (3, 2), stride=(2, 1), padding=1, ceil_mode=True, return_indices=True), a,
          dtype, layout, indices=True, exact=True)


def test_max_pool2d_ties_pick_the_first_maximum(m):
    a = _values((2, 3, 8, 7), 3, "ties")
    check(m, lambda F, x: F.max_pool2d(x, 3, 1, 1, return_indices=True), a, indices=True, exact=True)


def test_max_pool2d_nan_and_inf(m):
    a = _values((1, 2, 6, 6), 4)
    a[0, 0, 1, 1] = np.nan
    a[0, 0, 4, 2] = np.nan
    a[0, 0, 4, 3] = np.nan
    a[0, 1, :3, :3] = -np.inf
    check(m, lambda F, x: F.max_pool2d(x, 3, 2, 1, return_indices=True), a, "float64", indices=True, exact=True,
          grad=False)


def test_max_pool2d_unbatched_and_empty_batch(m):
    check(m, lambda F, x: F.max_pool2d(x, 3, 2, return_indices=True), _values((3, 7, 9), 5, "distinct"),
          indices=True, exact=True)
    check(m, lambda F, x: F.max_pool2d(x, 2), np.zeros((0, 3, 5, 5)))


def test_max_pool2d_default_stride_keywords(m):
    a = _values((1, 2, 6, 7), 6, "distinct")
    check(m, lambda F, x: F.max_pool2d(x, kernel_size=(2, 3), stride=(), padding=(1, 0), dilation=(1, 2)), a,
          exact=True)
    check(m, lambda F, x: F.max_pool2d_with_indices(x, 2), a, indices=True, exact=True)


# ---- avg_pool2d ---------------------------------------------------------------------------------------------

AVG_GRID = [c for c in itertools.product([2, 3, (3, 2)], [None, 1, 2, (2, 1)], [0, 1], [False, True],
                                         [True, False], [None, 3])
            if _valid_pool((9, 8), c[0], c[1], c[2], 1, c[3])]


@pytest.mark.parametrize("k,s,p,ceil,include,div", AVG_GRID)
def test_avg_pool2d_grid(m, k, s, p, ceil, include, div):
    a = _values((2, 3, 9, 8), 7)
    check(m, lambda F, x: F.avg_pool2d(x, k, s, p, ceil_mode=ceil, count_include_pad=include, divisor_override=div), a)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["contig", "channels_last", "strided"])
def test_avg_pool2d_dtypes_and_layouts(m, dtype, layout):
    a = _values((2, 4, 7, 10), 8)
    check(m, lambda F, x: F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False), a,
          dtype, layout)


def test_avg_pool2d_unbatched_and_empty_batch(m):
    check(m, lambda F, x: F.avg_pool2d(x, (2, 3), padding=1), _values((3, 7, 9), 9))
    check(m, lambda F, x: F.avg_pool2d(x, 2), np.zeros((0, 3, 5, 5)))


# ---- adaptive pooling ---------------------------------------------------------------------------------------

ADAPTIVE_SIZES = [1, (1, 1), (3, 2), (4, 4), (7, 8), (10, 11), (None, 3), (5, None), (2, 9)]


@pytest.mark.parametrize("size", ADAPTIVE_SIZES, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_adaptive_avg_pool2d(m, size, dtype):
    check(m, lambda F, x: F.adaptive_avg_pool2d(x, size), _values((2, 3, 7, 8), 10), dtype)


@pytest.mark.parametrize("size", ADAPTIVE_SIZES, ids=str)
def test_adaptive_max_pool2d(m, size):
    check(m, lambda F, x: F.adaptive_max_pool2d(x, size, return_indices=True), _values((2, 3, 7, 8), 11, "distinct"),
          indices=True, exact=True)


@pytest.mark.parametrize("layout", ["channels_last", "strided"])
def test_adaptive_pools_non_contiguous_unbatched_empty(m, layout):
    check(m, lambda F, x: F.adaptive_avg_pool2d(x, (3, 4)), _values((2, 3, 7, 9), 12), layout=layout)
    check(m, lambda F, x: F.adaptive_max_pool2d(x, (3, 4)), _values((2, 3, 7, 9), 13, "distinct"), layout=layout,
          exact=True)
    check(m, lambda F, x: F.adaptive_avg_pool2d(x, 2), _values((3, 5, 6), 14))
    check(m, lambda F, x: F.adaptive_avg_pool2d(x, 2), np.zeros((0, 3, 5, 5)))
    # torch cannot differentiate an empty output (adept's zero gradient is tested in C++)
    check(m, lambda F, x: F.adaptive_avg_pool2d(x, (0, 3)), _values((2, 3, 5, 5), 15), grad=False)


# ---- max_unpool2d -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("k,s,p,out", [(2, None, 0, None), (3, 2, 1, (9, 8)), ((2, 3), (2, 1), (1, 1), (9, 8)),
                                       (2, None, 0, (9, 9)), (2, None, 0, (2, 3, 9, 8)), (3, 3, 0, (10, 8))], ids=str)
def test_max_unpool2d(m, k, s, p, out):
    a = _values((2, 3, 9, 8), 16, "distinct")
    t = torch.from_numpy(a)
    _, t_idx = TF.max_pool2d(t, k, s, p, return_indices=True)
    y = _values(tuple(t_idx.shape), 17)
    x_idx = _dev(m.from_numpy(t_idx.numpy()).clone())

    def fn(F, v):
        idx = t_idx if F is TF else x_idx
        return F.max_unpool2d(v, idx, k, s, p, output_size=out)
    check(m, fn, y, "float64")


def test_max_unpool2d_unbatched_and_empty_batch(m):
    t_idx = TF.max_pool2d(torch.from_numpy(_values((3, 6, 6), 18, "distinct")), 2, return_indices=True)[1]
    x_idx = _dev(m.from_numpy(t_idx.numpy()).clone())
    check(m, lambda F, v: F.max_unpool2d(v, t_idx if F is TF else x_idx, 2), _values((3, 3, 3), 19))
    e_idx = torch.zeros((0, 3, 3, 3), dtype=torch.int64)
    xe_idx = _dev(m.from_numpy(e_idx.numpy()).clone())
    check(m, lambda F, v: F.max_unpool2d(v, e_idx if F is TF else xe_idx, 2), np.zeros((0, 3, 3, 3)))


# ---- interpolate ----------------------------------------------------------------------------------------------

MODES = [("nearest", None), ("nearest-exact", None), ("bilinear", False), ("bilinear", True), ("bicubic", False),
         ("bicubic", True), ("area", None)]
SIZES = [(5, 7), (3, 4), 11, (8, 3), (6, 5), (1, 1), (12, 2)]
SCALES = [2, 3, 1.5, 0.7, 2.3, (1.5, 0.7), (0.5, 2)]


@pytest.mark.parametrize("mode,corners", MODES, ids=str)
@pytest.mark.parametrize("size", SIZES, ids=str)
def test_interpolate_size(m, mode, corners, size):
    check(m, lambda F, x: F.interpolate(x, size=size, mode=mode, align_corners=corners), _values((2, 3, 6, 5), 20),
          tol=4)


@pytest.mark.parametrize("mode,corners", MODES, ids=str)
@pytest.mark.parametrize("scale", SCALES, ids=str)
@pytest.mark.parametrize("recompute", [None, True])
def test_interpolate_scale_factor(m, mode, corners, scale, recompute):
    check(m, lambda F, x: F.interpolate(x, scale_factor=scale, mode=mode, align_corners=corners,
                                        recompute_scale_factor=recompute), _values((2, 3, 6, 5), 21), tol=4)


@pytest.mark.parametrize("mode,corners", MODES, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["contig", "channels_last", "strided"])
def test_interpolate_dtypes_and_layouts(m, mode, corners, dtype, layout):
    check(m, lambda F, x: F.interpolate(x, size=(9, 4), mode=mode, align_corners=corners), _values((2, 3, 5, 7), 22),
          dtype, layout, tol=4)
    check(m, lambda F, x: F.interpolate(x, scale_factor=1.7, mode=mode, align_corners=corners),
          _values((2, 3, 5, 7), 23), dtype, layout, tol=4)


@pytest.mark.parametrize("mode,corners", [("nearest", None), ("nearest-exact", None), ("linear", False),
                                          ("linear", True), ("area", None)], ids=str)
@pytest.mark.parametrize("arg", [{"size": 11}, {"size": (4,)}, {"scale_factor": 1.5}, {"scale_factor": 0.7},
                                 {"scale_factor": 2.3, "recompute_scale_factor": True}], ids=str)
def test_interpolate_1d(m, mode, corners, arg):
    check(m, lambda F, x: F.interpolate(x, mode=mode, align_corners=corners, **arg), _values((2, 3, 7), 24), tol=4)


@pytest.mark.parametrize("mode,corners", MODES, ids=str)
def test_interpolate_empty_batch(m, mode, corners):
    check(m, lambda F, x: F.interpolate(x, size=(3, 4), mode=mode, align_corners=corners), np.zeros((0, 3, 5, 5)))


# ---- errors ------------------------------------------------------------------------------------------------------

_IDX = np.arange(4).reshape(1, 1, 2, 2)

ERRORS = {
    "max_pool2d_too_small": lambda F, x: F.max_pool2d(x, 6),
    "max_pool2d_pad_gt_half_kernel": lambda F, x: F.max_pool2d(x, 2, padding=2),
    "max_pool2d_pad_dilated": lambda F, x: F.max_pool2d(x, 3, dilation=2, padding=2),
    "max_pool2d_zero_stride": lambda F, x: F.max_pool2d(x, 2, stride=0),
    "max_pool2d_zero_dilation": lambda F, x: F.max_pool2d(x, 2, dilation=0),
    "max_pool2d_negative_pad": lambda F, x: F.max_pool2d(x, 2, padding=-1),
    "max_pool2d_kernel_3": lambda F, x: F.max_pool2d(x, (1, 2, 3)),
    "max_pool2d_2d_input": lambda F, x: F.max_pool2d(x[0, 0], 2),
    "max_pool2d_empty_channels": lambda F, x: F.max_pool2d(x[:, :0], 2),
    "max_pool2d_int": lambda F, x: F.max_pool2d(x.long(), 2),
    "avg_pool2d_divisor_zero": lambda F, x: F.avg_pool2d(x, 2, divisor_override=0),
    "avg_pool2d_too_small": lambda F, x: F.avg_pool2d(x, 6),
    "avg_pool2d_pad": lambda F, x: F.avg_pool2d(x, 3, padding=2),
    "adaptive_avg_negative": lambda F, x: F.adaptive_avg_pool2d(x, -1),
    "adaptive_avg_three_sizes": lambda F, x: F.adaptive_avg_pool2d(x, (1, 2, 3)),
    "adaptive_avg_empty_height": lambda F, x: F.adaptive_avg_pool2d(x[:, :, :0], 2),
    "adaptive_avg_2d": lambda F, x: F.adaptive_avg_pool2d(x[0, 0], 2),
    "adaptive_max_empty_channels": lambda F, x: F.adaptive_max_pool2d(x[:, :0], 2),
    "interp_both": lambda F, x: F.interpolate(x, size=3, scale_factor=2),
    "interp_neither": lambda F, x: F.interpolate(x),
    "interp_align_nearest": lambda F, x: F.interpolate(x, size=3, align_corners=True),
    "interp_align_area": lambda F, x: F.interpolate(x, size=3, mode="area", align_corners=False),
    "interp_size_len": lambda F, x: F.interpolate(x, size=(3, 4, 5)),
    "interp_scale_len": lambda F, x: F.interpolate(x, scale_factor=(2, 3, 4)),
    "interp_recompute_with_size": lambda F, x: F.interpolate(x, size=3, recompute_scale_factor=True),
    "interp_bilinear_3d": lambda F, x: F.interpolate(x[0], size=3, mode="bilinear"),
    "interp_linear_4d": lambda F, x: F.interpolate(x, size=3, mode="linear"),
    "interp_trilinear_4d": lambda F, x: F.interpolate(x, size=3, mode="trilinear"),
    "interp_unknown_mode": lambda F, x: F.interpolate(x, size=3, mode="foo"),
    "interp_2d_input": lambda F, x: F.interpolate(x[0, 0], size=3),
    "interp_zero_size": lambda F, x: F.interpolate(x, size=0),
    "interp_negative_size": lambda F, x: F.interpolate(x, size=(3, -1)),
    "interp_tiny_scale": lambda F, x: F.interpolate(x, scale_factor=0.1),
    "interp_negative_scale": lambda F, x: F.interpolate(x, scale_factor=-2.0, mode="bilinear"),
    "interp_empty_channels": lambda F, x: F.interpolate(x[:, :0], size=3, mode="bilinear"),
    "interp_int": lambda F, x: F.interpolate(x.long(), size=3),
    "unpool_bad_index": lambda F, x, i: F.max_unpool2d(x[:1, :1, :2, :2], i + 100, 2),
    "unpool_int32_index": lambda F, x, i: F.max_unpool2d(x[:1, :1, :2, :2], i.int(), 2),
    "unpool_shape_mismatch": lambda F, x, i: F.max_unpool2d(x[:1, :1, :2, :3], i, 2),
    "unpool_output_size_range": lambda F, x, i: F.max_unpool2d(x[:1, :1, :2, :2], i, 2, output_size=(9, 9)),
    "unpool_output_size_len": lambda F, x, i: F.max_unpool2d(x[:1, :1, :2, :2], i, 2, output_size=(1, 4, 4)),
    "unpool_2d": lambda F, x, i: F.max_unpool2d(x[0, 0, :2, :2], i[0, 0], 2),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_error_types_match_torch(m, name):
    fn = ERRORS[name]
    a = _values((2, 3, 5, 5), 30)
    args_t = [torch.from_numpy(a).float()]
    args_a = [m.from_numpy(a.astype("float32"))]
    if name.startswith("unpool"):
        args_t.append(torch.from_numpy(_IDX).long())
        args_a.append(m.from_numpy(_IDX.astype("int64")))
    with pytest.raises(Exception) as te:
        fn(TF, *args_t)
    with pytest.raises(Exception) as ae:
        fn(m.nn.functional, *args_a)
    want = type(te.value)
    assert isinstance(ae.value, want), f"torch raised {want.__name__}: {te.value}; adept {type(ae.value)}: {ae.value}"
    if want is RuntimeError:  # torch's generic error: adept's must not claim a more specific Python kind
        assert not isinstance(ae.value, (ValueError, NotImplementedError, IndexError)), repr(ae.value)


# ---- threaded path, 16-bit floats --------------------------------------------------------------------------------


@pytest.mark.parametrize("name,fn", [
    ("max_pool2d", lambda F, x: F.max_pool2d(x, 3, 2, 1, return_indices=True)),
    ("avg_pool2d", lambda F, x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False)),
    ("adaptive_avg_pool2d", lambda F, x: F.adaptive_avg_pool2d(x, (7, 5))),
    ("nearest", lambda F, x: F.interpolate(x, scale_factor=2)),
    ("bilinear", lambda F, x: F.interpolate(x, scale_factor=1.5, mode="bilinear")),
    ("bicubic", lambda F, x: F.interpolate(x, size=(40, 50), mode="bicubic", align_corners=True)),
], ids=lambda v: v if isinstance(v, str) else "")
def test_large_inputs_run_threaded(m, name, fn):
    """Enough planes and work that the kernels split planes across OpenMP threads (OMP_NUM_THREADS >= 2)."""
    distinct = name == "max_pool2d"
    a = _values((4, 16, 32, 30), 40, "distinct" if distinct else "normal")
    check(m, fn, a, indices=distinct, exact=distinct, tol=4)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name,fn", [
    ("max_pool2d", lambda F, x: F.max_pool2d(x, 3, 2, 1)),
    ("avg_pool2d", lambda F, x: F.avg_pool2d(x, 3, 2, 1)),
    ("adaptive_avg_pool2d", lambda F, x: F.adaptive_avg_pool2d(x, (3, 2))),
    ("bilinear", lambda F, x: F.interpolate(x, scale_factor=1.5, mode="bilinear")),
], ids=lambda v: v if isinstance(v, str) else "")
def test_16bit_floats_match_torch_float32_rounded(m, dtype, name, fn):
    """torch 1.13 lacks most 16-bit CPU kernels here: compare with torch in float32, rounded once."""
    a = torch.from_numpy(_values((2, 3, 7, 6), 41)).to(getattr(torch, dtype)).float()
    want = fn(TF, a).to(getattr(torch, dtype)).float().numpy()
    with _skip_without_kernel():
        got = fn(m.nn.functional, _dev(m.from_numpy(a.numpy()).to(getattr(m, dtype))))
    assert got.dtype == getattr(m, dtype)
    np.testing.assert_allclose(_np(got.to(m.float32)), want, rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("name,fn", [
    ("max_pool2d", lambda F, x: F.max_pool2d(x, 3, 2, 1)),
    ("avg_pool2d", lambda F, x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True)),
    ("adaptive_avg_pool2d", lambda F, x: F.adaptive_avg_pool2d(x, (3, 4))),
    ("adaptive_max_pool2d", lambda F, x: F.adaptive_max_pool2d(x, (3, 4))),
    ("nearest", lambda F, x: F.interpolate(x, scale_factor=1.5)),
    ("bilinear", lambda F, x: F.interpolate(x, size=(9, 4), mode="bilinear")),
    ("bicubic", lambda F, x: F.interpolate(x, size=(9, 4), mode="bicubic", align_corners=True)),
], ids=lambda v: v if isinstance(v, str) else "")
def test_double_backward_matches_torch(m, name, fn):
    """Gradient of (d out / d x)^T g . w with respect to the output gradient g (create_graph)."""
    a = _values((2, 3, 7, 6), 50, "distinct")
    grads = []
    for mod, F, mk in ((torch, TF, torch.from_numpy), (m, m.nn.functional, lambda v: _dev(m.from_numpy(v)))):
        x = mk(a.copy()).requires_grad_()
        with _skip_without_kernel():
            y = fn(F, x)
            g = mk(_values(tuple(y.shape), 51)).requires_grad_()
            (gx,) = mod.autograd.grad(y, x, g, create_graph=True)
            (gx * mk(_values(tuple(x.shape), 52))).sum().backward()
        grads.append(_np(g.grad))
    _close(grads[1], grads[0], "float64", "double backward")
