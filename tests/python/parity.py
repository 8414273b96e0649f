"""PyTorch parity harness: one table of op cases, each run identically on torch and adept.

Model: tinygrad's `helper_test_op` and ggml's test-backend-ops. A `Case` names an op, a function
`fn(m, *inputs)` applied to both modules (`m` is `torch` or `adept`; the APIs are the same), the
input shapes (one or more shape sets), an `Arg` per input (value generator, fixed dtype) and the
dtypes it supports. For every case the harness builds seeded random inputs with numpy, makes torch
and adept tensors with the same values and the same layout (contiguous, transposed, sliced with a
step, expanded), runs forward, compares structure/dtype/shape/values, then runs backward with the
same random upstream gradient and compares the input gradients. Where torch raises, adept must
raise the same broad Python exception type.

float16/bfloat16: Debian's torch 1.13 lacks many CPU kernels for them, so the reference values are
torch computed in float32 from the same (exactly representable) inputs and rounded to the 16-bit
dtype once; torch's native 16-bit run only decides the expected dtype (when it runs at all).
"""
from __future__ import annotations

import dataclasses
import re
import sys
import zlib
from typing import Any, Callable, Optional, Sequence

import numpy as np
import pytest
import torch

# ---- dtypes ----------------------------------------------------------------------------------

FLOAT = ("float32", "float64", "float16", "bfloat16")
LOWP = ("float16", "bfloat16")
SIGNED = ("int32", "int64")
INT = ("int32", "int64", "uint8")
NUM = FLOAT + INT
ALL = NUM + ("bool",)
INTB = INT + ("bool",)
F32_64 = ("float32", "float64")

# (rtol, atol) per dtype for values; atol is scaled by max(1, max|reference|).
TOL = {
    "float64": (1e-10, 1e-12),
    "float32": (1e-5, 1e-6),
    "float16": (5e-3, 5e-3),
    "bfloat16": (4e-2, 4e-2),
}
GRAD_TOL_SCALE = 5.0  # gradients go through more roundings than forward values


def _c(a) -> np.ndarray:
    """C-contiguous copy that keeps 0-d arrays 0-d (np.ascontiguousarray makes them 1-d)."""
    return np.array(a, copy=True, order="C")


def tdtype(name: str) -> torch.dtype:
    return getattr(torch, name)


def dtype_name(d: Any) -> str:
    """'float32' for torch.float32, adept.float32, 'float32' or numpy's float32."""
    if isinstance(d, np.dtype):
        return {"bool": "bool"}.get(d.name, d.name)
    return str(d).rsplit(".", 1)[-1]


def functional(m):
    """torch.nn.functional for torch; adept.nn.functional where adept has it, else adept itself."""
    nn = getattr(m, "nn", None)
    f = getattr(nn, "functional", None) if nn is not None else None
    return f if f is not None else m


# ---- input generators: gen(rng, shape, dtype, shapes) -> numpy array ---------------------------


def _float_or_int(rng, shape, dtype, fl, signed, unsigned):
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype in FLOAT:
        return fl(rng, shape)
    lo, hi = unsigned if dtype == "uint8" else signed
    return rng.integers(lo, hi, size=shape, endpoint=True).astype(dtype)


def _gen(fl, signed=(-5, 5), unsigned=(0, 10)):
    return lambda rng, shape, dtype, shapes: _float_or_int(rng, shape, dtype, fl, signed, unsigned)


def _nonzero_float(rng, shape):
    return rng.choice([-1.0, 1.0], size=shape) * rng.uniform(0.5, 2.0, size=shape)


def _special_float(rng, shape):
    a = rng.standard_normal(shape)
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0])
    pick = rng.random(shape) < 0.4
    a[pick] = rng.choice(specials, size=int(pick.sum()))
    return a


def _nonzero_int(rng, shape, dtype):
    if dtype == "uint8":
        return rng.integers(1, 6, size=shape, endpoint=True).astype(dtype)
    return (rng.choice([-1, 1], size=shape) * rng.integers(1, 5, size=shape, endpoint=True)).astype(dtype)


def _distinct(rng, shape, dtype, shapes):
    n = int(np.prod(shape, dtype=np.int64))
    if dtype == "bool":
        return rng.random(shape) < 0.5
    perm = rng.permutation(n)
    if dtype in FLOAT:
        return ((perm - n / 2) * 0.25).reshape(shape)  # exact in every float dtype for small n
    if dtype == "uint8":
        return (perm % 256).astype(dtype).reshape(shape)
    return (perm - n // 2).astype(dtype).reshape(shape)


def _dups(rng, shape, dtype, shapes):
    """Values with many repeats (for unique and stable sorting)."""
    if dtype == "bool":
        return rng.random(shape) < 0.5
    v = rng.integers(0 if dtype == "uint8" else -3, 4, size=shape)
    return v * 0.5 if dtype in FLOAT else v.astype(dtype)


def dup_rows(rng, shape, dtype, shapes):
    """2-d values whose rows repeat (for unique along dim 0)."""
    rows = _dups(rng, (3,) + tuple(shape[1:]), dtype, shapes)
    return rows[rng.integers(0, 3, size=shape[0])]


GENS: dict = {
    "dups": _dups,
    "normal": _gen(lambda r, s: r.standard_normal(s)),
    "positive": _gen(lambda r, s: r.uniform(0.5, 3.0, s), signed=(1, 6), unsigned=(1, 6)),
    "unit": _gen(lambda r, s: r.uniform(-0.95, 0.95, s), signed=(-1, 1), unsigned=(0, 1)),
    "small": _gen(lambda r, s: r.uniform(-2.0, 2.0, s), signed=(0, 3), unsigned=(0, 3)),
    "large": _gen(lambda r, s: r.standard_normal(s) * 30.0, signed=(-100, 100), unsigned=(0, 255)),
    "nonneg_large": _gen(lambda r, s: r.uniform(0.0, 250.0, s), signed=(0, 100), unsigned=(0, 255)),
    "special": _gen(_special_float),
    "distinct": _distinct,
    "nonzero": lambda rng, shape, dtype, shapes: (
        _nonzero_float(rng, shape) if dtype in FLOAT else
        np.ones(shape, bool) if dtype == "bool" else _nonzero_int(rng, shape, dtype)),
    "mask": lambda rng, shape, dtype, shapes: rng.random(shape) < 0.5,
}


def idx(of: int = 0, dim: int = 0, low: int = 0):
    """Integer indices in [low, shapes[of][dim]) (negative `low` exercises negative indices)."""
    def gen(rng, shape, dtype, shapes):
        high = shapes[of][dim] if shapes[of] else 1
        if high == 0:
            return np.zeros(shape, dtype)
        return rng.integers(max(low, -high), high, size=shape).astype(dtype)
    return gen


def unique_idx(of: int = 0, dim: int = 0):
    """Indices distinct along `dim` (for scatter/index_put, whose duplicates are order dependent)."""
    def gen(rng, shape, dtype, shapes):
        high = shapes[of][dim]
        k = shape[dim]
        moved = (int(np.prod(shape, dtype=np.int64)) // max(k, 1), k)
        rows = [rng.permutation(high)[:k] for _ in range(moved[0])] if k else []
        a = np.array(rows, dtype=np.int64).reshape(moved) if rows else np.zeros(moved, np.int64)
        other = [s for i, s in enumerate(shape) if i != dim]
        a = a.reshape(other + [k])
        return np.moveaxis(a, -1, dim).astype(dtype)
    return gen


@dataclasses.dataclass(frozen=True)
class Arg:
    """One tensor input: value generator, fixed dtype (None = the case's dtype), whether layout
    variants apply and whether it gets requires_grad when the case is differentiated."""
    gen: Any = "normal"
    dtype: Optional[str] = None
    layouts: bool = True
    grad: bool = True


def Idx(of=0, dim=0, dtype="int64", low=0, layouts=True):
    return Arg(gen=idx(of, dim, low), dtype=dtype, layouts=layouts, grad=False)


def UIdx(of=0, dim=0, dtype="int64"):
    return Arg(gen=unique_idx(of, dim), dtype=dtype, layouts=False, grad=False)


MASK = Arg(gen="mask", dtype="bool", grad=False)
INT64 = Arg(dtype="int64", grad=False)

# ---- cases -----------------------------------------------------------------------------------

LAYOUTS = ("contig", "transposed", "stepped", "expanded")


@dataclasses.dataclass
class Case:
    """One row of the op table.

    fn(m, *inputs) runs the op with module m (torch or adept). shapes: list of shape sets (a tuple
    of shapes, one per input); the first set runs for every dtype and every layout, the others
    (broadcast, zero-size, 0-d ...) run for the first dtype. tol: multiplier of TOL. grad: run
    backward when torch's output requires grad. compare: "values" or "meta" (shape/dtype only, for
    uninitialised results). xfail: {dtype, "layout:<layout>" or "*": reason} for documented, known
    divergences.
    lowp_ref: "float32" (16-bit results are checked against torch in float32, rounded once) or
    "native" (torch's own 16-bit result, for ops whose result depends on the dtype's range).
    known: {adept exception class name: reason}: a known, unimplemented feature; when adept raises
    exactly that type the test is an xfail naming the gap (any other failure still fails).
    """
    name: str
    fn: Callable
    shapes: Sequence
    args: Optional[Sequence[Arg]] = None
    dtypes: Sequence[str] = FLOAT
    tol: float = 1.0
    grad: bool = True
    layouts: bool = True
    compare: str = "values"
    device_kw: bool = False
    xfail: Optional[dict] = None
    lowp_ref: str = "float32"
    known: Optional[dict] = None

    def __post_init__(self):
        self.shapes = [tuple(tuple(s) for s in ss) for ss in self.shapes] or [()]
        n = len(self.shapes[0])
        if self.args is None:
            self.args = (Arg(),) * n
        assert len(self.args) == n, f"{self.name}: {len(self.args)} args for {n} shapes"
        assert all(len(ss) == n for ss in self.shapes), f"{self.name}: shape sets differ in arity"


@dataclasses.dataclass
class ErrCase:
    """A call that torch rejects; adept must raise the same broad exception type."""
    name: str
    fn: Callable
    shapes: Sequence = ()
    args: Optional[Sequence[Arg]] = None
    dtype: str = "float32"
    device_kw: bool = False

    def __post_init__(self):
        self.shapes = tuple(tuple(s) for s in self.shapes)
        if self.args is None:
            self.args = (Arg(),) * len(self.shapes)


@dataclasses.dataclass(frozen=True)
class Variant:
    case: Case
    dtype: str
    shape_idx: int
    layout: str

    @property
    def id(self):
        return f"{self.case.name}-{self.dtype}-s{self.shape_idx}-{self.layout}"


def _layout_applies(layout: str, shape: tuple) -> bool:
    if layout == "contig":
        return True
    if layout == "transposed":
        return len(shape) >= 2 and shape[-1] != 1 and shape[-2] != 1
    if layout == "stepped":
        return len(shape) >= 1
    if layout == "expanded":
        return len(shape) >= 1 and shape[0] > 1
    raise ValueError(layout)


def variants(case: Case):
    """(dtype x first shape set, contiguous) + (first dtype x other shape sets) + (first dtype x
    non-contiguous layouts of the first shape set)."""
    out = [Variant(case, d, 0, "contig") for d in case.dtypes]
    out += [Variant(case, case.dtypes[0], i, "contig") for i in range(1, len(case.shapes))]
    if case.layouts:
        distinct = any(a.gen == "distinct" for a in case.args)  # expanding would repeat values
        for lay in LAYOUTS[1:]:
            if lay == "expanded" and distinct:
                continue
            if any(a.layouts and _layout_applies(lay, s) for a, s in zip(case.args, case.shapes[0])):
                out.append(Variant(case, case.dtypes[0], 0, lay))
    return out


def params(cases):
    """pytest params for a list of Case, one per variant, with readable ids."""
    ps = []
    seen = set()
    for c in cases:
        for v in variants(c):
            assert v.id not in seen, f"duplicate case id {v.id}"
            seen.add(v.id)
            marks = []
            layout_key = f"layout:{v.layout}"
            if c.xfail and (v.dtype in c.xfail or "*" in c.xfail or layout_key in c.xfail):
                reason = c.xfail.get(v.dtype, c.xfail.get(layout_key, c.xfail.get("*")))
                marks.append(pytest.mark.xfail(reason=reason, strict=False))
            ps.append(pytest.param(v, id=v.id, marks=marks))
    return ps


def err_params(cases):
    return [pytest.param(c, id=c.name) for c in cases]


# ---- building tensors ------------------------------------------------------------------------


def _seed(*parts) -> int:
    return zlib.crc32("|".join(map(str, parts)).encode())


def _round_to(values: np.ndarray, dtype: str) -> np.ndarray:
    """Values exactly representable in `dtype` (as float64 for floats; native numpy otherwise)."""
    if dtype in FLOAT:
        return torch.from_numpy(np.asarray(values, np.float64)).to(tdtype(dtype)).double().numpy()
    return np.asarray(values).astype(dtype)


def _layout_base(a: np.ndarray, layout: str):
    """(base array, view recipe) such that recipe(tensor(base)) has a's values with the layout."""
    if layout == "contig" or not _layout_applies(layout, a.shape):
        return a, lambda t: t
    if layout == "transposed":
        return _c(np.swapaxes(a, -1, -2)), lambda t: t.transpose(-1, -2)
    if layout == "stepped":
        base = np.zeros(a.shape[:-1] + (2 * a.shape[-1] + 1,), a.dtype)
        base[..., 1::2] = a
        return base, lambda t: t[..., 1::2]
    if layout == "expanded":
        shape = a.shape
        return _c(a[:1]), lambda t: t.expand(*shape)
    raise ValueError(layout)


def _layout_values(a: np.ndarray, layout: str) -> np.ndarray:
    if layout == "expanded" and _layout_applies(layout, a.shape):
        return np.broadcast_to(a[:1], a.shape).copy()
    return a


def torch_tensor(a: np.ndarray, dtype: str) -> torch.Tensor:
    src = _c(a)
    if dtype in FLOAT:
        return torch.from_numpy(src.astype(np.float64)).to(tdtype(dtype))
    return torch.from_numpy(src.astype(dtype)).clone()


def adept_tensor(m, a: np.ndarray, dtype: str, device: str):
    """An adept tensor with a's values; 16-bit floats go through float32 (numpy has no bfloat16)."""
    src = _c(a)
    if dtype in FLOAT:
        src = src.astype(np.float32 if dtype in LOWP + ("float32",) else np.float64)
    else:
        src = src.astype(dtype)
    t = m.from_numpy(src).clone()  # (m.tensor(ndarray) is covered by the creation cases)
    if dtype_name(t.dtype) != dtype:
        t = t.to(getattr(m, dtype))
    if device != "cpu":
        t = t.to(device)
    return t


def to_numpy(x) -> np.ndarray:
    """Values of a torch or adept tensor as numpy (16-bit floats widened to float64)."""
    x = x.detach()
    if isinstance(x, torch.Tensor):
        if x.dtype in (torch.float16, torch.bfloat16):
            x = x.double()
        return x.cpu().numpy()
    if str(x.device) != "cpu":
        x = x.cpu()
    if dtype_name(x.dtype) in LOWP:
        x = x.to(sys.modules["adept"].float64)
    return np.asarray(x.numpy())


@dataclasses.dataclass
class Inputs:
    values: list          # canonical numpy values per input (None for non-tensors)
    dtypes: list          # dtype name per input
    layouts: list         # layout per input


def make_inputs(case, shapes, dtype, layout, seed) -> Inputs:
    rng = np.random.default_rng(seed)
    vals, dts, lays = [], [], []
    for arg, shape in zip(case.args, shapes):
        dt = arg.dtype or dtype
        gen = GENS[arg.gen] if isinstance(arg.gen, str) else arg.gen
        a = _round_to(gen(rng, shape, dt, shapes), dt)
        lay = layout if (arg.layouts and _layout_applies(layout, shape)) else "contig"
        vals.append(_layout_values(a, lay))
        dts.append(dt)
        lays.append(lay)
    return Inputs(vals, dts, lays)


def build(m, inputs: Inputs, device: str, grad: bool, case, override_float: Optional[str] = None):
    """Tensors of module m for the inputs; float inputs of the case dtype become `override_float`
    (the float32 reference of 16-bit cases). Returns the list of tensors."""
    out = []
    for arg, a, dt, lay in zip(case.args, inputs.values, inputs.dtypes, inputs.layouts):
        dt2 = override_float if (override_float and arg.dtype is None) else dt
        base, recipe = _layout_base(a, lay)
        if m is torch:
            t = recipe(torch_tensor(base, dt2))
        else:
            t = recipe(adept_tensor(m, base, dt2, device))
        if grad and arg.grad and dt2 in FLOAT:
            t = t.detach().requires_grad_()
        out.append(t)
    return out


# ---- structure and comparison ----------------------------------------------------------------


def leaves(x) -> list:
    """Flatten tuples/lists/namedtuples into a list of leaves (tensors, numbers, dtypes ...)."""
    if isinstance(x, (tuple, list)):
        r = []
        for e in x:
            r += leaves(e)
        return r
    return [x]


def is_tensor(x) -> bool:
    return isinstance(x, torch.Tensor) or type(x).__name__ == "Tensor"


def _close(got: np.ndarray, ref: np.ndarray, dtype: str, scale: float, what: str):
    if dtype in FLOAT:
        rtol, atol = TOL[dtype]
        rtol, atol = rtol * scale, atol * scale
        finite = np.isfinite(ref)
        mag = float(np.max(np.abs(ref[finite]))) if finite.any() else 1.0
        np.testing.assert_allclose(got.astype(np.float64), ref.astype(np.float64), rtol=rtol,
                                   atol=atol * max(1.0, mag), equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, ref, err_msg=what)


def compare_tensor(got, ref: torch.Tensor, expect_dtype: str, tol: float, what: str):
    gd = dtype_name(got.dtype)
    assert gd == expect_dtype, f"{what}: dtype {gd}, torch gives {expect_dtype}"
    assert tuple(got.shape) == tuple(ref.shape), f"{what}: shape {tuple(got.shape)}, torch gives {tuple(ref.shape)}"
    r = ref.detach()
    if expect_dtype in LOWP and r.dtype != tdtype(expect_dtype):
        r = r.to(tdtype(expect_dtype))  # round the float32 reference once
    _close(to_numpy(got), to_numpy(r), expect_dtype, tol, what)


def compare_outputs(got, ref, expect_dtypes, tol, what, meta=False):
    gl, rl = leaves(got), leaves(ref)
    assert len(gl) == len(rl), f"{what}: {len(gl)} outputs, torch gives {len(rl)}"
    for i, (g, r, ed) in enumerate(zip(gl, rl, expect_dtypes)):
        w = f"{what} output {i}"
        if isinstance(r, torch.Tensor):
            assert is_tensor(g), f"{w}: got {type(g).__name__}, torch gives a Tensor"
            if meta:
                assert dtype_name(g.dtype) == ed and tuple(g.shape) == tuple(r.shape), \
                    f"{w}: {dtype_name(g.dtype)}{tuple(g.shape)} vs torch {ed}{tuple(r.shape)}"
            else:
                compare_tensor(g, r, ed, tol, w)
        elif isinstance(r, torch.dtype):
            assert dtype_name(g) == dtype_name(r), f"{w}: {g} vs torch {r}"
        elif isinstance(r, float):
            assert isinstance(g, (float, int)) and not isinstance(g, bool), f"{w}: {g!r} vs torch {r!r}"
            np.testing.assert_allclose(g, r, rtol=1e-6, equal_nan=True, err_msg=w)
        else:
            assert type(g) is type(r) and g == r, f"{w}: {g!r} vs torch {r!r}"


# ---- running ---------------------------------------------------------------------------------

_MISSING_KERNEL = re.compile(r"not implemented for '(Half|BFloat16)'")


def _call(case, m, inputs, device):
    return case.fn(m, *inputs, device=device) if case.device_kw else case.fn(m, *inputs)


def _missing(exc: AttributeError) -> str:
    return f"adept lacks {str(exc).split('attribute', 1)[-1].strip()} ({exc})"


def run_adept(fn, known: Optional[dict] = None):
    """Runs fn(); an AttributeError (an op or method the module does not have yet), or an exception
    of a type listed in `known`, becomes an xfail naming the gap, so gaps stay visible without
    hiding wrong values."""
    try:
        return fn()
    except AttributeError as e:
        pytest.xfail(_missing(e))
    except Exception as e:  # noqa: BLE001
        if known and type(e).__name__ in known:
            pytest.xfail(f"known gap: {known[type(e).__name__]} ({type(e).__name__}: {e})")
        raise


def broad_type(e: BaseException) -> type:
    for t in (IndexError, TypeError, ValueError, NotImplementedError, MemoryError, RuntimeError):
        if isinstance(e, t):
            return t
    return type(e)


def check_raises_like(m, fn, torch_exc: BaseException, what: str):
    """adept must raise an exception of torch's broad type (IndexError, TypeError, ValueError,
    RuntimeError ...). A missing op is an xfail; no exception or another type is a failure."""
    want = broad_type(torch_exc)
    try:
        fn()
    except AttributeError as e:
        pytest.xfail(_missing(e))
    except Exception as e:  # noqa: BLE001 - the type is what is checked
        if isinstance(e, NotImplementedError) and "device 'vulkan'" in str(e) and want is not NotImplementedError:
            pytest.skip(f"no vulkan kernel to reach the error: {e}")
        assert isinstance(e, want), (f"{what}: adept raised {type(e).__name__}({e}); torch raises "
                                     f"{type(torch_exc).__name__}({torch_exc})")
        assert str(e), f"{what}: adept raised {type(e).__name__} with an empty message"
        return
    pytest.fail(f"{what}: adept did not raise; torch raises {type(torch_exc).__name__}({torch_exc})")


def _grad_targets(outs) -> list:
    return [o for o in leaves(outs) if isinstance(o, torch.Tensor) and o.requires_grad]


def _backward(m, outs, grads):
    if len(outs) == 1:
        outs[0].backward(grads[0])
        return
    total = None
    for o, g in zip(outs, grads):
        term = (o * g).sum()
        total = term if total is None else total + term
    total.backward()


# Ops the Vulkan backend must run (issue: first kernels); on other devices the rest of the table
# is skipped where the backend raises NotImplementedError for the op or dtype.
VULKAN_REQUIRED = {
    "add", "add_op", "sub", "mul", "mul_op", "div", "div_op", "maximum", "minimum", "where", "eq", "ne", "lt", "le",
    "gt", "ge", "relu", "silu", "sigmoid", "exp", "sum_all", "sum_dim", "sum_dims", "sum_dims_neg_keepdim",
    "mean_all", "mean_dim", "mean_dims_keepdim", "amax", "amax_keepdim", "max_all", "max_dim", "softmax",
    "softmax_neg_dim", "log_softmax", "matmul", "mm", "bmm", "contiguous", "clone", "copy_", "copy_cast",
    "fill_", "neg", "abs", "tanh",
}
VULKAN_DTYPES = {"float32", "float16", "int32", "bool"}
VULKAN_FLOAT_ONLY = {"matmul", "mm", "bmm", "softmax", "softmax_neg_dim", "log_softmax", "mean_all", "mean_dim",
                     "mean_dims_keepdim", "silu", "sigmoid", "exp", "tanh", "div", "div_op"}


def skip_if_device_lacks(device: str, dtype: str):
    """Skips a test whose dtype the (non-CPU) device cannot hold."""
    if device.startswith("vulkan") and dtype not in VULKAN_DTYPES | {"int64"}:
        pytest.skip(f"{device} has no {dtype} tensors")


def _device_gap(device: str, v: Variant, e: BaseException):
    """On a non-CPU device, an op or dtype without a kernel is a skip, unless the backend must
    have it (VULKAN_REQUIRED in a supported dtype): then the error stands."""
    if device == "cpu" or not isinstance(e, NotImplementedError) or "vulkan" not in str(e):
        return
    if str(e).startswith("to: dtype"):
        pytest.skip(f"an input's dtype cannot live on {device}: {e}")
    dtypes = {"float32", "float16"} if v.case.name in VULKAN_FLOAT_ONLY else VULKAN_DTYPES
    if v.case.name in VULKAN_REQUIRED and v.dtype in dtypes:
        return
    pytest.skip(f"no {device} kernel: {e}")


def run_variant(m, v: Variant, device: str):
    try:
        _run_variant(m, v, device)
    except NotImplementedError as e:
        _device_gap(device, v, e)
        raise


def _run_variant(m, v: Variant, device: str):
    case, dtype = v.case, v.dtype
    shapes = case.shapes[v.shape_idx]
    what = v.id
    inputs = make_inputs(case, shapes, dtype, v.layout, _seed(v.id))
    want_grad = case.grad and any(dt in FLOAT for a, dt in zip(case.args, inputs.dtypes) if a.grad)

    # torch, natively in the dtype under test
    native_grad = want_grad and (dtype not in LOWP or case.lowp_ref == "native")
    t_in = build(torch, inputs, "cpu", native_grad, case)
    try:
        t_out = _call(case, torch, t_in, "cpu")
        t_exc = None
    except Exception as e:  # noqa: BLE001
        t_out, t_exc = None, e
    lowp = dtype in LOWP or any(d in LOWP for d in inputs.dtypes)
    # reference values: for 16-bit floats torch in float32, rounded to the dtype at compare time
    ref_in, ref_out = t_in, t_out
    if lowp and (t_exc is None and case.lowp_ref == "float32" or _MISSING_KERNEL.search(str(t_exc))):
        ref_in = build(torch, inputs, "cpu", want_grad, case, override_float="float32")
        try:
            ref_out = _call(case, torch, ref_in, "cpu")
        except Exception as e:  # noqa: BLE001
            t_exc = t_exc or e
        else:
            t_exc = None  # at most the 16-bit kernel is missing in torch: float32 stands in
    if t_exc is not None and _MISSING_KERNEL.search(str(t_exc)):
        pytest.skip(f"torch {torch.__version__} has no kernel to compare with: {t_exc}")
    if isinstance(t_exc, (AttributeError, NameError)):
        raise AssertionError(f"{what}: the case does not run on torch") from t_exc
    if t_exc is not None:
        a_in = run_adept(lambda: build(m, inputs, device, native_grad, case))
        check_raises_like(m, lambda: _call(case, m, a_in, device), t_exc, what)
        return
    ref_leaves = leaves(ref_out)
    if t_out is not None:
        expect = [dtype_name(x.dtype) if isinstance(x, torch.Tensor) else None for x in leaves(t_out)]
    else:  # torch has no 16-bit kernel: float32 results stand for the dtype under test
        expect = [(dtype if dtype_name(x.dtype) == "float32" else dtype_name(x.dtype))
                  if isinstance(x, torch.Tensor) else None for x in ref_leaves]

    a_in = run_adept(lambda: build(m, inputs, device, want_grad, case))
    for t, a, lay in zip(ref_in, a_in, inputs.layouts):
        if is_tensor(a) and lay != "contig":
            assert a.is_contiguous() == t.is_contiguous(), f"{what}: layout {lay} contiguity differs"
    a_out = run_adept(lambda: _call(case, m, a_in, device), case.known)
    compare_outputs(a_out, ref_out, expect, case.tol, what, meta=case.compare == "meta")

    if not want_grad:
        return
    targets = _grad_targets(ref_out)
    a_leaves = leaves(a_out)
    for i, (r, a) in enumerate(zip(ref_leaves, a_leaves)):
        if isinstance(r, torch.Tensor):
            assert bool(a.requires_grad) == r.requires_grad, \
                f"{what} output {i}: requires_grad {a.requires_grad}, torch {r.requires_grad}"
    if not targets:
        return
    rng = np.random.default_rng(_seed(what, "grad"))
    g_vals = [_round_to(rng.standard_normal(tuple(o.shape)), dtype if lowp else dtype_name(o.dtype))
              for o in targets]
    a_targets = [a for r, a in zip(ref_leaves, a_leaves) if isinstance(r, torch.Tensor) and r.requires_grad]
    _backward(torch, targets, [torch_tensor(g, dtype_name(o.dtype)) for g, o in zip(g_vals, targets)])
    run_adept(lambda: _backward(m, a_targets,
                                [adept_tensor(m, g, dtype_name(o.dtype), device) for g, o in zip(g_vals, a_targets)]),
              case.known)
    for i, (arg, r, a, dt) in enumerate(zip(case.args, ref_in, a_in, inputs.dtypes)):
        if not (arg.grad and is_tensor(a) and dt in FLOAT):
            continue
        w = f"{what} grad of input {i}"
        rg, ag = r.grad, a.grad
        assert (ag is None) == (rg is None), f"{w}: adept {'None' if ag is None else 'a tensor'}, torch {rg}"
        if rg is not None:
            compare_tensor(ag, rg, dt, case.tol * GRAD_TOL_SCALE, w)


def run_error(m, c: ErrCase, device: str):
    """torch must raise for the case (else the case is wrong); adept must raise the same type."""
    inputs = make_inputs(c, c.shapes, c.dtype, "contig", _seed(c.name))
    t_in = build(torch, inputs, "cpu", False, c)
    try:
        (c.fn(torch, *t_in, device="cpu") if c.device_kw else c.fn(torch, *t_in))
    except (AttributeError, NameError) as e:
        raise AssertionError(f"{c.name}: the case does not run on torch") from e
    except Exception as e:  # noqa: BLE001
        t_exc = e
    else:
        raise AssertionError(f"{c.name}: torch does not raise; the error case is wrong")
    try:
        a_in = run_adept(lambda: build(m, inputs, device, False, c))
    except NotImplementedError as e:  # a dtype the device lacks (float64 on vulkan ...)
        if device == "cpu":
            raise
        pytest.skip(f"inputs cannot be placed on {device}: {e}")
    check_raises_like(m, lambda: (c.fn(m, *a_in, device=device) if c.device_kw else c.fn(m, *a_in)),
                      t_exc, c.name)
