"""Type promotion parity: the result dtype (and values) of binary ops for every pair of the 8 dtypes
in PyTorch's three operand categories (tensors with dims, 0-d tensors, Python scalars bool/int/
float), computed live from torch and compared with adept."""
import itertools

import numpy as np
import pytest
import torch

from parity import ALL, adept_tensor, check_raises_like, compare_tensor, dtype_name, run_adept, torch_tensor

OPS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
}
TENSOR_OPS = {
    **OPS,
    "where": lambda a, b: _where(a, b),
    "maximum": lambda a, b: _mod(a, b).maximum(a, b),
    "eq": lambda a, b: a == b,
}
SCALARS = {"bool": True, "int": 3, "float": 2.5}
CATS = ("dim", "0d")


def _mod(*xs):
    for x in xs:
        if isinstance(x, torch.Tensor):
            return torch
    import adept  # noqa: PLC0415
    return adept


def _where(a, b):
    return _mod(a, b).where(b != 0, a, b)


def _values(dtype, cat):
    v = np.array([1, 0, 3]) if cat == "dim" else np.array(2)
    return v.astype(bool) if dtype == "bool" else v


def _operand(m, dtype, cat, device):
    if cat in SCALARS:
        return SCALARS[cat]
    v = _values(dtype, cat)
    return torch_tensor(v, dtype) if m is torch else adept_tensor(m, v, dtype, device)


def _check_pair(m, device, da, ca, db, cb, ops):
    problems = []
    for name, op in ops.items():
        what = f"{name}({da}:{ca}, {db}:{cb})"
        ta, tb = _operand(torch, da, ca, "cpu"), _operand(torch, db, cb, "cpu")
        try:
            ref = op(ta, tb)
        except Exception as e:  # noqa: BLE001
            try:
                aa, ab = _operand(m, da, ca, device), _operand(m, db, cb, device)
                check_raises_like(m, lambda: op(aa, ab), e, what)
            except AssertionError as err:
                problems.append(str(err))
            continue
        aa, ab = run_adept(lambda: (_operand(m, da, ca, device), _operand(m, db, cb, device)))
        try:
            got = run_adept(lambda: op(aa, ab))
            compare_tensor(got, ref, dtype_name(ref.dtype), 1.0, what)
        except AssertionError as err:
            problems.append(str(err).splitlines()[0] if "dtype" in str(err) else str(err))
        except Exception as err:  # noqa: BLE001
            problems.append(f"{what}: adept raised {type(err).__name__}({err}); torch gives {ref.dtype}")
    assert not problems, "\n".join(problems)


TENSOR_PAIRS = [pytest.param(da, ca, db, cb, id=f"{da}:{ca}-{db}:{cb}")
                for (da, db) in itertools.product(ALL, ALL) for (ca, cb) in itertools.product(CATS, CATS)]
SCALAR_PAIRS = [pytest.param(da, ca, s, id=f"{da}:{ca}-{s}") for da in ALL for ca in CATS for s in SCALARS]


@pytest.mark.parametrize("da,ca,db,cb", TENSOR_PAIRS)
def test_promotion_tensors(m, device, da, ca, db, cb):
    _check_pair(m, device, da, ca, db, cb, TENSOR_OPS)


@pytest.mark.parametrize("da,ca,s", SCALAR_PAIRS)
def test_promotion_scalar(m, device, da, ca, s):
    """tensor op scalar and scalar op tensor (the reflected operators)."""
    _check_pair(m, device, da, ca, None, s, OPS)
    _check_pair(m, device, None, s, da, ca, OPS)


@pytest.mark.parametrize("da,db", [pytest.param(a, b, id=f"{a}-{b}") for a, b in itertools.product(ALL, ALL)])
def test_promote_types_and_result_type(m, da, db):
    """adept.promote_types / adept.result_type agree with torch's."""
    want = dtype_name(torch.promote_types(getattr(torch, da), getattr(torch, db)))
    got = run_adept(lambda: m.promote_types(getattr(m, da), getattr(m, db)))
    assert dtype_name(got) == want, f"promote_types({da}, {db}) = {got}, torch {want}"
    for ca, cb in itertools.product(CATS, CATS):
        ta, tb = _operand(torch, da, ca, "cpu"), _operand(torch, db, cb, "cpu")
        aa, ab = _operand(m, da, ca, "cpu"), _operand(m, db, cb, "cpu")
        want = dtype_name(torch.result_type(ta, tb))
        got = run_adept(lambda: m.result_type(aa, ab))
        assert dtype_name(got) == want, f"result_type({da}:{ca}, {db}:{cb}) = {got}, torch {want}"
    for s, v in SCALARS.items():
        want = dtype_name(torch.result_type(_operand(torch, da, "dim", "cpu"), v))
        got = run_adept(lambda: m.result_type(_operand(m, da, "dim", "cpu"), v))
        assert dtype_name(got) == want, f"result_type({da}:dim, {s}) = {got}, torch {want}"
