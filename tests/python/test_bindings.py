"""Tests of the Python API surface of `adept` against PyTorch: printing, creation, tensor methods,
operators, indexing, autograd, NumPy/DLPack interop, pickling and exception mapping.

Run: PYTHONPATH=build/<preset>/python /usr/bin/python3 -m pytest tests/python/test_bindings.py
"""
import copy
import math
import pickle

import numpy as np
import pytest
import torch

import adept

DTYPES = ["bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def A(t):
    """The adept tensor holding the values of torch tensor `t` (same dtype)."""
    if t.dtype == torch.bfloat16:
        return adept.tensor(t.float().tolist(), dtype=adept.bfloat16)
    return adept.tensor(t.tolist(), dtype=getattr(adept, str(t.dtype).split(".")[1]))


def T(a):
    """The torch tensor holding the values of adept tensor `a`."""
    name = str(a.dtype).split(".")[1]
    if name == "bfloat16":
        return torch.tensor(a.float().tolist(), dtype=torch.bfloat16).reshape(a.shape)
    return torch.tensor(a.tolist(), dtype=getattr(torch, name)).reshape(a.shape)


def same(a, t):
    assert tuple(a.shape) == tuple(t.shape)
    assert str(a.dtype).split(".")[1] == str(t.dtype).split(".")[1]
    assert torch.equal(T(a), t) or (t.is_floating_point() and torch.allclose(T(a).double(), t.double(), equal_nan=True))


# ---------------------------------------------------------------- printing

PRINT_CASES = [
    lambda: torch.tensor([[1., 2.], [3., 4.]]),
    lambda: torch.tensor([1, 2]),
    lambda: torch.tensor([True, False]),
    lambda: torch.tensor([0.12345, 1.0]),
    lambda: torch.tensor([1e8, 1.0]),
    lambda: torch.tensor([1e-5, 1.0]),
    lambda: torch.tensor([123456.0, 0.5]),
    lambda: torch.tensor(1.5),
    lambda: torch.tensor(3),
    lambda: torch.tensor(True),
    lambda: torch.tensor(-0.0),
    lambda: torch.zeros(0, 3),
    lambda: torch.zeros(0),
    lambda: torch.zeros(0, dtype=torch.int64),
    lambda: torch.zeros(2, 0, 4, dtype=torch.bool),
    lambda: torch.tensor([1., 2.], dtype=torch.float64),
    lambda: torch.tensor([1., 2.5], dtype=torch.float16),
    lambda: torch.tensor([1., 2.5], dtype=torch.bfloat16),
    lambda: torch.tensor([1, 200], dtype=torch.uint8),
    lambda: torch.tensor([-1, 7], dtype=torch.int32),
    lambda: torch.tensor([float("nan"), float("inf"), -float("inf"), 1.0]),
    lambda: torch.tensor([float("nan"), 2.0, 3.0]),
    lambda: torch.tensor([float("inf"), 1.25]),
    lambda: torch.tensor([float("nan"), 1e10]),
    lambda: torch.tensor([0., 0.]),
    lambda: torch.tensor([-1e-3, 5e3]),
    lambda: torch.arange(2000),
    lambda: torch.arange(1001.0),
    lambda: torch.arange(3000.0).reshape(30, 100) / 7,
    lambda: torch.arange(24.0).reshape(2, 3, 4),
    lambda: torch.arange(5000).reshape(10, 10, 50),
    lambda: torch.linspace(-1, 1, 37),
    lambda: torch.linspace(0, 1e-6, 12, dtype=torch.float64),
    lambda: torch.arange(40, dtype=torch.int64) * 100000000,
    lambda: torch.arange(12.0).reshape(3, 4).t(),
    lambda: torch.arange(12.0).reshape(3, 4)[:, ::2],
    lambda: torch.ones(2, 2, requires_grad=True),
]


@pytest.mark.parametrize("case", range(len(PRINT_CASES)))
def test_repr_matches_torch(case):
    t = PRINT_CASES[case]()
    a = A(t.detach()) if t.dim() > 0 and t.numel() > 0 else None
    if a is None:
        dt = getattr(adept, str(t.dtype).split(".")[1])
        a = adept.zeros(*t.shape, dtype=dt) if t.numel() == 0 else adept.tensor(t.item(), dtype=dt)
    # Keep the view structure of the torch tensor (transposed / strided cases).
    if case == len(PRINT_CASES) - 3:
        a = adept.arange(12.0).reshape(3, 4).t()
    if case == len(PRINT_CASES) - 2:
        a = adept.arange(12.0).reshape(3, 4)[:, ::2]
    if t.requires_grad:
        a.requires_grad_()
    assert repr(a) == repr(t)
    assert str(a) == str(t)


def test_repr_grad_fn_and_random_values():
    torch.manual_seed(0)
    t = torch.randn(4, 5, dtype=torch.float64) * 1000
    assert repr(A(t)) == repr(t)
    x = adept.ones(2, requires_grad=True)
    tx = torch.ones(2, requires_grad=True)
    assert repr(x + 1) == repr(tx + 1)
    assert repr(x * 2) == repr(tx * 2)
    assert (x * x).grad_fn.name() == "MulBackward0"


def test_repr_wraps_long_rows_and_suffixes():
    torch.manual_seed(1)
    for t in [torch.randn(3, 20, dtype=torch.float64), torch.randn(2, 30) * 1e5, torch.randint(-10**6, 10**6, (4, 25)),
              torch.randn(7, dtype=torch.float16), torch.rand(1001, dtype=torch.float64),
              torch.randn(12, 12) * torch.tensor([1e-6, 1.0] * 6)]:
        assert repr(A(t)) == repr(t)
    t = torch.randn(3, 20, dtype=torch.float64)
    assert repr(A(t).requires_grad_()) == repr(t.requires_grad_())
    assert repr(A(t.detach()).requires_grad_() * 2) == repr(t * 2)


def test_dtype_objects():
    assert repr(adept.float32) == "adept.float32"
    assert adept.float is adept.float32 or adept.float == adept.float32
    assert adept.long == adept.int64 and adept.int == adept.int32 and adept.double == adept.float64
    assert adept.half == adept.float16 and adept.bool == adept.bool
    assert adept.float32.is_floating_point and not adept.int64.is_floating_point
    assert adept.float16.itemsize == 2
    assert pickle.loads(pickle.dumps(adept.bfloat16)) == adept.bfloat16
    assert adept.get_default_dtype() == adept.float32
    assert adept.promote_types(adept.int32, adept.float16) == adept.float16


def test_device_objects():
    d = adept.device("cpu")
    assert str(d) == "cpu" and d.type == "cpu" and d.index is None
    assert repr(d) == "device(type='cpu')"
    assert adept.zeros(1).device == d and adept.zeros(1).device == "cpu"
    assert adept.zeros(2, device="cpu").device.type == "cpu"
    with pytest.raises(RuntimeError):
        adept.device("tpu")
    with pytest.raises(RuntimeError):  # an unknown device string is a RuntimeError, as in torch
        adept.zeros(2, device="nosuchdevice")


# ---------------------------------------------------------------- creation

def test_tensor_from_python_data():
    for data in [1, 1.5, True, [1, 2], [1.0, 2], [True, False], [[1, 2], [3, 4]], [], [[], []],
                 [[True, 1], [2, 3]], [[1.5]], [[[1]], [[2]]]]:
        same(adept.tensor(data), torch.tensor(data))
    for dt in DTYPES:
        same(adept.tensor([0, 1, 2], dtype=getattr(adept, dt)), torch.tensor([0, 1, 2], dtype=getattr(torch, dt)))
    x = adept.tensor([1.0, 2.0], requires_grad=True)
    assert x.requires_grad and x.is_leaf
    assert adept.tensor([adept.tensor(1.0), adept.tensor(2.0)]).tolist() == [1.0, 2.0]
    assert adept.tensor(np.array([[1, 2]], dtype=np.int32)).dtype == adept.int32
    assert adept.tensor(np.array(2.5)).shape == () and adept.tensor(np.array(2.5)).dtype == adept.float64
    assert adept.tensor(np.arange(4)[::-2]).tolist() == [3, 1]
    assert adept.tensor([np.float32(1.5), np.int64(2)]).tolist() == [1.5, 2.0]
    with pytest.raises(ValueError, match="expected sequence of length 2 at dim 1"):
        adept.tensor([[1, 2], [3]])
    with pytest.raises(TypeError):
        adept.tensor(["a"])


def test_creation_functions_match_torch():
    same(adept.zeros(2, 3), torch.zeros(2, 3))
    same(adept.zeros((2, 3)), torch.zeros((2, 3)))
    same(adept.zeros([2, 3], dtype=adept.int32), torch.zeros([2, 3], dtype=torch.int32))
    same(adept.ones(size=(1, 2)), torch.ones(size=(1, 2)))
    same(adept.ones(4, dtype=adept.bool), torch.ones(4, dtype=torch.bool))
    same(adept.full((2, 2), 7), torch.full((2, 2), 7))
    same(adept.full((2,), 2.5), torch.full((2,), 2.5))
    same(adept.full((2,), True), torch.full((2,), True))
    assert adept.empty(3, 0).shape == (3, 0)
    same(adept.arange(5), torch.arange(5))
    same(adept.arange(1, 4, 0.5), torch.arange(1, 4, 0.5))
    same(adept.arange(0, 10, 3, dtype=adept.float64), torch.arange(0, 10, 3, dtype=torch.float64))
    same(adept.linspace(0, 1, 5), torch.linspace(0, 1, 5))
    same(adept.eye(3), torch.eye(3))
    same(adept.eye(2, 3, dtype=adept.int64), torch.eye(2, 3, dtype=torch.int64))
    x = adept.ones(2, 3, dtype=adept.float64)
    same(adept.zeros_like(x), torch.zeros(2, 3, dtype=torch.float64))
    same(adept.ones_like(x, dtype=adept.int32), torch.ones(2, 3, dtype=torch.int32))
    same(adept.full_like(x, 3), torch.full((2, 3), 3.0, dtype=torch.float64))
    assert adept.empty_like(x).shape == (2, 3)
    assert adept.zeros(2, requires_grad=True).requires_grad
    same(adept.scalar_tensor(3), torch.scalar_tensor(3))


def test_random_and_generator_state():
    adept.manual_seed(123)
    a = adept.rand(3, 4)
    b = adept.randn(5)
    adept.manual_seed(123)
    assert adept.equal(a, adept.rand(3, 4)) and adept.equal(b, adept.randn(5))
    state = adept.get_rng_state()
    assert state.dtype == adept.uint8
    c = adept.randint(0, 10, (100,))
    adept.set_rng_state(state)
    assert adept.equal(c, adept.randint(0, 10, (100,)))
    assert adept.randint(5, (3, 3)).max().item() < 5 and adept.randint(5, (3,)).dtype == adept.int64
    assert sorted(adept.randperm(10).tolist()) == list(range(10))
    assert 0 <= a.min().item() and a.max().item() < 1
    g = adept.Generator().manual_seed(7)
    g2 = adept.Generator().manual_seed(7)
    assert adept.equal(adept.rand(4, generator=g), adept.rand(4, generator=g2))
    assert adept.rand_like(a).shape == a.shape and adept.randn(2, 2, dtype=adept.float64).dtype == adept.float64


# ---------------------------------------------------------------- tensor attributes and methods

def test_metadata():
    x = adept.zeros(2, 3, 4)
    assert x.shape == (2, 3, 4) and x.size() == (2, 3, 4) and x.size(1) == 3 and x.size(-1) == 4
    assert x.ndim == 3 and x.dim() == 3 and x.numel() == 24 and len(x) == 2
    assert x.stride() == (12, 4, 1) and x.stride(0) == 12
    assert x.dtype == adept.float32 and x.device.type == "cpu"
    assert x.is_contiguous() and not x.transpose(0, 2).is_contiguous()
    assert x[1].storage_offset() == 12
    assert x.element_size() == 4 and x.is_floating_point()


def test_size_and_stride_of_a_missing_dim_raise_index_error():
    """As torch: a 0-d tensor has no dim to read (it read past its shape), and a dim past the rank raises."""
    import torch
    for lib in (adept, torch):
        for t, d in ((lib.tensor(1.0), -1), (lib.tensor(1.0), 0), (lib.zeros(2, 3), 2), (lib.zeros(2, 3), -3)):
            for method in ("size", "stride"):
                with pytest.raises(IndexError):
                    getattr(t, method)(d)


def test_item_tolist_conversions():
    assert adept.tensor(2.5).item() == 2.5 and isinstance(adept.tensor(3).item(), int)
    assert adept.tensor(True).item() is True
    assert adept.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert adept.tensor(7).tolist() == 7
    assert adept.zeros(2, 0).tolist() == [[], []]
    assert float(adept.tensor([1.5])) == 1.5 and int(adept.tensor(3.7)) == 3
    assert [1, 2, 3][adept.tensor(1)] == 2
    with pytest.raises(TypeError):
        [1, 2][adept.tensor(1.0)]
    assert bool(adept.tensor([1])) and not bool(adept.tensor(0.0))
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(adept.ones(2))
    with pytest.raises(ValueError):
        float(adept.ones(2))
    with pytest.raises(TypeError):
        len(adept.tensor(1.0))
    rows = list(adept.arange(6).view(2, 3))
    assert len(rows) == 2 and rows[1].tolist() == [3, 4, 5]
    assert f"{adept.tensor(0.5):.2f}" == "0.50"


def test_dtype_and_device_conversion():
    x = adept.tensor([1.7, -2.2])
    for name in ["float", "double", "half", "bfloat16", "long", "int", "bool", "byte"]:
        assert str(getattr(x, name)().dtype) == str(getattr(torch.tensor([1.7, -2.2]), name)().dtype).replace("torch", "adept")
    same(x.to(adept.int64), torch.tensor([1.7, -2.2]).to(torch.int64))
    assert x.to("cpu").dtype == adept.float32
    assert x.to("cpu", adept.float64).dtype == adept.float64
    assert x.to(dtype=adept.float16).dtype == adept.float16
    assert x.to(adept.zeros(1, dtype=adept.int32)).dtype == adept.int32
    assert x.type_as(adept.zeros(1, dtype=adept.float64)).dtype == adept.float64
    y = x.to(adept.float32)
    assert y.data_ptr() == x.data_ptr()  # no-op conversion keeps the tensor
    assert x.to(adept.float32, copy=True).data_ptr() != x.data_ptr()


def test_views_share_storage():
    x = adept.arange(24.0)
    t = torch.arange(24.0)
    cases = [
        (lambda v: v.view(2, 3, 4), None), (lambda v: v.view((4, -1)), None), (lambda v: v.reshape(6, 4), None),
        (lambda v: v.view(2, 3, 4).permute(2, 0, 1), None), (lambda v: v.view(2, 3, 4).permute((1, 2, 0)), None),
        (lambda v: v.view(4, 6).transpose(0, 1), None), (lambda v: v.view(4, 6).t(), None),
        (lambda v: v.view(4, 6).T, None), (lambda v: v.view(4, 6).narrow(1, 2, 3), None),
        (lambda v: v.view(4, 6).select(0, 2), None), (lambda v: v.view(4, 1, 6).expand(4, 5, 6), None),
        (lambda v: v.view(1, 24, 1).squeeze(), None), (lambda v: v.view(1, 24, 1).squeeze(0), None),
        (lambda v: v.unsqueeze(1), None), (lambda v: v.view(2, 3, 4).flatten(1), None),
        (lambda v: v.unflatten(0, (4, 6)), None), (lambda v: v.view(2, 12).movedim(0, 1), None),
        (lambda v: v.as_strided((3, 3), (4, 1), 2), None), (lambda v: v.view(4, 6).swapaxes(0, 1), None),
        (lambda v: v.view(1, 24).expand_as(v.view(1, 24).expand(3, 24)), None),
        (lambda v: v.view(4, 6).mT, None),
    ]
    for f, _ in cases:
        a, b = f(x), f(t)
        same(a, b)
        assert a.stride() == b.stride() and a.storage_offset() == b.storage_offset()
    for f in [lambda v: v.view(4, 6).unbind(1), lambda v: v.chunk(5), lambda v: v.split(5), lambda v: v.split([20, 4]),
              lambda v: v.view(4, 6).split(4, dim=1)]:
        for a, b in zip(f(x), f(t)):
            same(a, b)
        assert len(f(x)) == len(f(t))
    x.view(4, 6)[0, 0] = 100.0
    t.view(4, 6)[0, 0] = 100.0
    assert x[0].item() == 100.0
    same(adept.reshape(x, (3, 8)), torch.reshape(t, (3, 8)))
    same(adept.permute(x.view(2, 12), (1, 0)), torch.permute(t.view(2, 12), (1, 0)))


# ---------------------------------------------------------------- operators and ops

def test_operators_match_torch():
    ta = torch.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]])
    tb = torch.tensor([2.0, 3.0, -4.0])
    a, b = A(ta), A(tb)
    for f in [lambda x, y: x + y, lambda x, y: x - y, lambda x, y: x * y, lambda x, y: x / y,
              lambda x, y: x // y, lambda x, y: x % y, lambda x, y: x ** 2, lambda x, y: 2 ** x,
              lambda x, y: 1 + x, lambda x, y: 1 - x, lambda x, y: 3 * x, lambda x, y: 1 / x,
              lambda x, y: 7 // y, lambda x, y: 5 % y, lambda x, y: -x, lambda x, y: abs(x),
              lambda x, y: x == y, lambda x, y: x != 2, lambda x, y: x < y, lambda x, y: x <= 1.5,
              lambda x, y: x > y, lambda x, y: 2 >= x, lambda x, y: x @ y, lambda x, y: y @ x.t(),
              lambda x, y: x + True, lambda x, y: x.add(y, alpha=2), lambda x, y: x.sub(1, alpha=3),
              lambda x, y: x.div(y, rounding_mode="floor"), lambda x, y: x.div(y, rounding_mode="trunc")]:
        same(f(a, b), f(ta, tb))
    ti = torch.tensor([[5, 6, -7], [12, 0, 3]])
    tj = torch.tensor([3, 2, 2])
    i, j = A(ti), A(tj)
    for f in [lambda x, y: x & y, lambda x, y: x | 1, lambda x, y: 3 ^ x, lambda x, y: ~x, lambda x, y: x // y,
              lambda x, y: x % 4, lambda x, y: x * 2.5, lambda x, y: x / 2, lambda x, y: x + 1, lambda x, y: x ** 2,
              lambda x, y: x.to(torch.uint8 if isinstance(x, torch.Tensor) else adept.uint8) + 300 // 100]:
        same(f(i, j), f(ti, tj))
    tm = torch.tensor([True, False, True])
    m = A(tm)
    same(m & A(torch.tensor([True, True, False])), tm & torch.tensor([True, True, False]))
    same(~m, ~tm)


def test_scalars_are_wrapped_numbers():
    # A Python scalar must not widen the tensor's dtype within its category (PyTorch's rule).
    for dt in ["uint8", "int32", "float16", "bfloat16", "float32"]:
        x = adept.ones(2, dtype=getattr(adept, dt))
        tx = torch.ones(2, dtype=getattr(torch, dt))
        for s in [2, 2.5, True]:
            assert str((x + s).dtype).split(".")[1] == str((tx + s).dtype).split(".")[1]
            assert str((x * s).dtype).split(".")[1] == str((tx * s).dtype).split(".")[1]
    assert (adept.ones(2, dtype=adept.int32) & 1).dtype == adept.int32
    assert (7 // adept.tensor([2], dtype=adept.int32)).dtype == adept.int32
    assert (7.5 // adept.tensor([2], dtype=adept.int32)).dtype == adept.float32


def test_inplace_operators_modify_in_place():
    x = adept.ones(3)
    ptr, ident = x.data_ptr(), id(x)
    x += 2
    x *= adept.tensor([1.0, 2.0, 3.0])
    x -= 1
    x /= 2
    assert id(x) == ident and x.data_ptr() == ptr
    assert x.tolist() == [1.0, 2.5, 4.0]
    y = x.view(3)
    y += 1
    assert x.tolist() == [2.0, 3.5, 5.0]
    i = adept.tensor([7, 8, 9])
    i //= 2
    i %= 3
    i &= 1
    i |= 2
    i ^= 1
    assert i.tolist() == [(((7 // 2) % 3) & 1 | 2) ^ 1, (((8 // 2) % 3) & 1 | 2) ^ 1, (((9 // 2) % 3) & 1 | 2) ^ 1]
    with pytest.raises(TypeError):  # a float result cannot be written into an int tensor
        i //= 1.5
    with pytest.raises(TypeError):
        i /= 2
    z = adept.zeros(2)
    assert z.add_(1) is z and z.mul_(3) is z and z.zero_() is z and z.fill_(4) is z
    assert z.tolist() == [4.0, 4.0]
    assert z.clamp_(max=2).tolist() == [2.0, 2.0] and z.copy_(adept.tensor([5.0, 6.0])).tolist() == [5.0, 6.0]


def test_ops_methods_and_functions_with_keywords():
    torch.manual_seed(0)
    tx = torch.randn(3, 4, 5)
    x = A(tx)
    for name, kw in [("sum", {}), ("sum", {"dim": 1}), ("sum", {"dim": (0, 2), "keepdim": True}),
                     ("sum", {"dim": -1, "dtype": torch.float64}), ("mean", {"dim": [1, 2]}),
                     ("amax", {"dim": 1}), ("amin", {"dim": (0, 1), "keepdim": True}), ("argmax", {}),
                     ("argmax", {"dim": 2, "keepdim": True}), ("argmin", {"dim": 0}), ("prod", {"dim": 1}),
                     ("var", {}), ("var", {"dim": 1, "unbiased": False}), ("std", {"dim": (0, 2), "keepdim": True}),
                     ("var", {"dim": 1, "correction": 0}), ("norm", {}), ("norm", {"p": 1, "dim": 1}),
                     ("logsumexp", {"dim": 2}), ("softmax", {"dim": 1}), ("log_softmax", {"dim": -1}),
                     ("cumsum", {"dim": 0}), ("cumprod", {"dim": 2}), ("exp", {}), ("sigmoid", {}), ("abs", {}),
                     ("clamp", {"min": -0.5, "max": 0.5}), ("clamp", {"min": 0}), ("round", {"decimals": 1}),
                     ("transpose", {"dim0": 0, "dim1": 2}), ("flatten", {"start_dim": 1}), ("flip", {"dims": (0, 2)}),
                     ("roll", {"shifts": 1, "dims": 0}), ("tril", {"diagonal": 1}), ("triu", {})]:
        akw = {k: (getattr(adept, str(v).split(".")[1]) if isinstance(v, torch.dtype) else v) for k, v in kw.items()}
        expected = getattr(tx, name)(**kw)
        same(getattr(x, name)(**akw), expected)
        same(getattr(adept, name)(x, **akw), getattr(torch, name)(tx, **kw))
    for f in [lambda m, v: m.max(v, dim=1), lambda m, v: m.min(v, 2, keepdim=True), lambda m, v: m.sort(v, dim=1),
              lambda m, v: m.sort(v, descending=True), lambda m, v: m.topk(v, 2, dim=1)]:
        (av, ai), (tv, ti) = f(adept, x), f(torch, tx)
        same(av, tv)
        same(ai, ti)
    r = adept.max(x, dim=1)
    assert r.values.shape == (3, 5) and r.indices.dtype == adept.int64 and type(r).__name__ == "max"
    small = adept.max(adept.tensor([1.0, 3.0]), dim=0)
    assert repr(small) == repr(torch.max(torch.tensor([1.0, 3.0]), dim=0)).replace("torch", "adept")
    assert pickle.loads(pickle.dumps(small)).indices.item() == 1
    same(adept.max(x), torch.max(tx))
    same(adept.max(x, A(tx * 0)), torch.max(tx, tx * 0))
    same(adept.where(x > 0, x, 0.0), torch.where(tx > 0, tx, 0.0))
    same(adept.where(x > 0, 1.0, x), torch.where(tx > 0, 1.0, tx))
    same(adept.cat([x, x], dim=1), torch.cat([tx, tx], dim=1))
    same(adept.stack((x, x)), torch.stack((tx, tx)))
    same(adept.matmul(x, x.transpose(1, 2)), torch.matmul(tx, tx.transpose(1, 2)))
    same(x.repeat(1, 2, 1), tx.repeat(1, 2, 1))
    same(adept.nn.functional.pad(x, (1, 2)), torch.nn.functional.pad(tx, (1, 2)))
    same(adept.nn.functional.one_hot(adept.tensor([0, 2]), 3), torch.nn.functional.one_hot(torch.tensor([0, 2]), 3))
    gx, gy = adept.meshgrid(adept.arange(2), adept.arange(3), indexing="xy")
    tgx, tgy = torch.meshgrid(torch.arange(2), torch.arange(3), indexing="xy")
    same(gx, tgx)
    same(gy, tgy)
    ti = torch.tensor([[0, 1], [2, 0], [1, 1]])
    same(adept.gather(x[:, :, 0], 1, A(ti)), torch.gather(tx[:, :, 0], 1, ti))
    u, inv, cnt = adept.unique(adept.tensor([3, 1, 3, 2]), return_inverse=True, return_counts=True)
    tu, tinv, tcnt = torch.unique(torch.tensor([3, 1, 3, 2]), return_inverse=True, return_counts=True)
    same(u, tu)
    same(inv, tinv)
    same(cnt, tcnt)
    same(adept.nonzero(adept.tensor([0, 1, 1])), torch.nonzero(torch.tensor([0, 1, 1])))


# ---------------------------------------------------------------- indexing

INDEX_CASES = [
    lambda I: 1, lambda I: -1, lambda I: (1, 2), lambda I: slice(None, None, 2), lambda I: (slice(None), slice(1, None, 2)),
    lambda I: (Ellipsis, None), lambda I: (None, 0, Ellipsis, 1), lambda I: Ellipsis, lambda I: (0, slice(-2, None)),
    lambda I: (slice(5, 1),), lambda I: (slice(None), None, slice(None, 1)), lambda I: (),
    lambda I: I([0, 2]), lambda I: [0, 2, 2], lambda I: (slice(None), I([3, 0])), lambda I: I([[0], [2]]),
    lambda I: (I([0, 1]), I([1, 2])), lambda I: I([True, False, True]), lambda I: (Ellipsis, I([1, 1])),
]


@pytest.mark.parametrize("case", range(len(INDEX_CASES)))
def test_getitem_matches_torch(case):
    tx = torch.arange(60.0).reshape(3, 4, 5)
    x = A(tx)
    same(x[INDEX_CASES[case](adept.tensor)], tx[INDEX_CASES[case](torch.tensor)])


def test_getitem_basic_is_view_and_masks():
    x = adept.arange(12).view(3, 4)
    v = x[:, 1::2]
    v[0, 0] = -1
    assert x[0, 1].item() == -1
    tx = torch.arange(12).view(3, 4)
    tx[0, 1] = -1
    same(x[x > 5], tx[tx > 5])
    same(x[adept.tensor(True)], tx[torch.tensor(True)])
    with pytest.raises(IndexError):
        x[3]
    with pytest.raises(IndexError):
        x[0, 0, 0]
    with pytest.raises(ValueError):
        x[::-1]


@pytest.mark.parametrize("case", range(len(INDEX_CASES)))
def test_setitem_matches_torch(case):
    tx = torch.arange(60.0).reshape(3, 4, 5)
    x = A(tx)
    x[INDEX_CASES[case](adept.tensor)] = -7.0
    tx[INDEX_CASES[case](torch.tensor)] = -7.0
    same(x, tx)


def test_setitem_values():
    tx = torch.zeros(3, 4)
    x = A(tx)
    x[1] = adept.arange(4.0)
    tx[1] = torch.arange(4.0)
    x[:, 0] = 5
    tx[:, 0] = 5
    x[x > 2] = 0
    tx[tx > 2] = 0
    x[adept.tensor([0, 2]), 1] = adept.tensor([8.0, 9.0])
    tx[torch.tensor([0, 2]), 1] = torch.tensor([8.0, 9.0])
    x[2, 1:3] = [1.5, 2.5]
    tx[2, 1:3] = torch.tensor([1.5, 2.5])
    same(x, tx)


# ---------------------------------------------------------------- autograd

def test_backward_grad_and_graph_attributes():
    x = adept.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x * x).sum()
    assert y.grad_fn is not None and x.grad_fn is None and x.is_leaf and not y.is_leaf
    y.backward()
    assert x.grad.tolist() == [2.0, 4.0, 6.0]
    (x * 2).sum().backward()
    assert x.grad.tolist() == [4.0, 6.0, 8.0]  # accumulated
    x.grad = None
    assert x.grad is None
    z = x * 3
    z.backward(gradient=adept.ones(3), retain_graph=True)
    z.backward(adept.ones(3))
    assert x.grad.tolist() == [6.0, 6.0, 6.0]
    x.grad = adept.zeros(3)
    assert x.grad.tolist() == [0.0, 0.0, 0.0]
    h = x * 2
    h.retain_grad()
    h.sum().backward()
    assert h.grad.tolist() == [1.0, 1.0, 1.0] and h.retains_grad
    d = h.detach()
    assert not d.requires_grad and d.data_ptr() == h.data_ptr()
    w = adept.ones(2)
    w.requires_grad = True
    assert w.requires_grad
    with pytest.raises(RuntimeError):
        (x * 2).requires_grad = False
    with pytest.raises(TypeError):
        adept.ones(2, dtype=adept.int64).requires_grad_()


def test_autograd_grad_and_backward_functions():
    x = adept.tensor([1.0, 2.0], requires_grad=True)
    u = adept.tensor([3.0], requires_grad=True)
    y = (x ** 3).sum()
    (g,) = adept.autograd.grad(y, x, create_graph=True)
    assert g.tolist() == [3.0, 12.0] and g.requires_grad
    (gg,) = adept.autograd.grad(g.sum(), [x])
    assert gg.tolist() == [6.0, 12.0]
    assert x.grad is None
    r = adept.autograd.grad([(x * 2).sum()], [x, u], allow_unused=True)
    assert r[0].tolist() == [2.0, 2.0] and r[1] is None
    with pytest.raises(RuntimeError):
        adept.autograd.grad((x * 2).sum(), [x, u])
    adept.autograd.backward([(x * x).sum()])
    assert x.grad.tolist() == [2.0, 4.0]
    v = x * 1
    adept.autograd.backward(v, grad_tensors=adept.tensor([1.0, -1.0]))
    assert x.grad.tolist() == [3.0, 3.0]
    yy = (x * x).sum()
    yy.backward()
    with pytest.raises(RuntimeError):
        yy.backward()  # graph freed


def test_no_grad_enable_grad_context_and_decorator():
    x = adept.ones(2, requires_grad=True)
    with adept.no_grad():
        assert not adept.is_grad_enabled()
        y = x * 2
        with adept.enable_grad():
            assert (x * 2).requires_grad
    assert adept.is_grad_enabled() and not y.requires_grad

    @adept.no_grad()
    def f(t):
        return t * 2

    @adept.no_grad()
    def g():
        raise KeyError("boom")

    assert not f(x).requires_grad and adept.is_grad_enabled()
    with pytest.raises(KeyError):
        g()
    assert adept.is_grad_enabled()
    with adept.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert adept.is_grad_enabled()
    adept.set_grad_enabled(False)
    assert not adept.is_grad_enabled()
    adept.set_grad_enabled(True)


def test_inplace_on_saved_tensor_raises():
    x = adept.ones(3, requires_grad=True)
    y = x * 2
    z = y * y
    y += 1
    with pytest.raises(RuntimeError):
        z.sum().backward()


# ---------------------------------------------------------------- NumPy, buffer protocol, DLPack

@pytest.mark.parametrize("dt", ["bool", "uint8", "int32", "int64", "float16", "float32", "float64"])
def test_numpy_round_trip_shares_memory(dt):
    a = np.arange(12).reshape(3, 4).astype(dt)
    t = adept.from_numpy(a)
    assert t.dtype == getattr(adept, dt) and t.shape == (3, 4)
    assert t.tolist() == a.tolist()
    back = t.numpy()
    assert back.dtype == a.dtype and np.shares_memory(back, a)
    if dt != "bool":
        a[0, 0] = 9
        assert t[0, 0].item() == 9
    mv = np.asarray(memoryview(t))
    assert mv.dtype == a.dtype and (mv == a).all()
    arr = np.array(t)
    assert arr.dtype == a.dtype and (arr == a).all()


def test_numpy_views_and_errors():
    a = np.arange(24, dtype=np.float32).reshape(4, 6)[:, ::2]
    t = adept.from_numpy(a)
    assert t.stride() == (6, 2) and t.tolist() == a.tolist()
    del a
    assert t.sum().item() == float(np.arange(24).reshape(4, 6)[:, ::2].sum())  # array kept alive
    x = adept.arange(12.0).view(3, 4).t()
    n = x.numpy()
    assert n.strides == (4, 16) and (n == np.arange(12.0).reshape(3, 4).T).all()
    n[0, 0] = 42
    assert x[0, 0].item() == 42
    with pytest.raises(RuntimeError, match="requires grad"):
        adept.ones(2, requires_grad=True).numpy()
    with pytest.raises(TypeError):
        adept.ones(2, dtype=adept.bfloat16).numpy()
    with pytest.raises(TypeError):
        adept.from_numpy(np.zeros(2, dtype=np.int16))
    with pytest.raises(TypeError):
        adept.from_numpy([1, 2])
    with pytest.raises(ValueError):
        adept.from_numpy(np.arange(4.0)[::-1])
    assert adept.from_numpy(np.array(2.0)).shape == ()
    assert np.asarray(adept.ones(2, requires_grad=True).detach(), dtype=np.float64).dtype == np.float64


@pytest.mark.parametrize("dt", ["uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64"])
def test_dlpack_round_trips_with_torch(dt):
    tt = torch.arange(12).reshape(3, 4).to(getattr(torch, dt))
    a = adept.from_dlpack(tt)
    assert a.dtype == getattr(adept, dt) and a.shape == (3, 4)
    assert a.float().tolist() == tt.float().tolist()
    tt[0, 0] = 5
    assert a[0, 0].item() == 5  # shared
    x = adept.arange(12).view(3, 4).t().to(getattr(adept, dt))
    back = torch.from_dlpack(x)
    assert back.shape == (4, 3) and back.stride() == tuple(x.stride())
    assert back.float().tolist() == x.float().tolist()
    x[0, 1] = 7
    assert back[0, 1].item() == 7
    assert x.__dlpack_device__() == (1, 0)
    cap = adept.to_dlpack(x)
    assert adept.from_dlpack(cap).tolist() == x.tolist()


def test_dlpack_bool_between_adept_tensors():
    m = adept.tensor([True, False])
    assert adept.from_dlpack(m).tolist() == [True, False]


# ---------------------------------------------------------------- pickling and copies

@pytest.mark.parametrize("dt", DTYPES)
def test_pickle_and_deepcopy(dt):
    x = adept.arange(6).view(2, 3).t().to(getattr(adept, dt))
    for y in [pickle.loads(pickle.dumps(x)), copy.deepcopy(x)]:
        assert y.dtype == x.dtype and y.shape == x.shape and adept.equal(y, x)
        assert y.data_ptr() != x.data_ptr()
    w = adept.ones(2, 2, requires_grad=True)
    (w * 3).sum().backward()
    for y in [pickle.loads(pickle.dumps(w)), copy.deepcopy(w)]:
        assert y.requires_grad and y.is_leaf
    assert copy.deepcopy(w).grad.tolist() == [[3.0, 3.0], [3.0, 3.0]]
    with pytest.raises(RuntimeError):
        copy.deepcopy(w * 2)
    c = copy.copy(x)
    assert adept.equal(c, x)


# ---------------------------------------------------------------- exceptions

def test_exceptions_map_to_python_types():
    x = adept.ones(2, 3)
    with pytest.raises(RuntimeError) as e:
        x + adept.ones(4)
    assert isinstance(e.value, adept.ShapeError) and isinstance(e.value, adept.Error)
    with pytest.raises(IndexError) as e:
        x.sum(dim=5)
    assert isinstance(e.value, adept.IndexError)
    with pytest.raises(TypeError) as e:
        adept.ones(2) & adept.ones(2)
    assert isinstance(e.value, adept.DtypeError)
    with pytest.raises(ValueError):
        adept.randint(5, 2, (3,))
    with pytest.raises(RuntimeError):
        x.view(4)
    with pytest.raises(TypeError):
        x + "a"
    assert issubclass(adept.OutOfMemoryError, MemoryError)
    assert issubclass(adept.NotImplementedForDevice, NotImplementedError)
    assert issubclass(adept.AutogradError, RuntimeError) and issubclass(adept.DeviceError, RuntimeError)
    assert issubclass(adept.ValueError, ValueError) and issubclass(adept.DtypeError, TypeError)


def test_dtype_is_not_a_size():
    # torch.zeros(torch.float32) is a TypeError; a pybind11 enum would otherwise pass as an int.
    with pytest.raises(TypeError):
        adept.zeros(adept.float32)
    with pytest.raises(TypeError):
        adept.ones(2, adept.float64)


def test_pointwise_bindings_come_from_the_op_table():
    """Names, docstrings and aliases of the pointwise family are generated from src/kernels/op_table.def."""
    assert "e ** input" in adept.exp.__doc__
    assert "e ** input" in adept.Tensor.exp.__doc__
    x = adept.tensor([-1.0, 2.0])
    assert adept.negative(x).tolist() == [1.0, -2.0] and x.negative().tolist() == [1.0, -2.0]
    assert adept.logsigmoid(adept.zeros(1)).item() == pytest.approx(-0.6931471805599453)


def test_supported_answers_from_the_registry():
    assert adept.supported("conv2d", "cpu", adept.float32, backward=True)
    assert not adept.supported("conv2d", "cpu", adept.int32)
    assert adept.missing_kernels(["add", "conv2d"], "cpu") == []
    with pytest.raises(ValueError):
        adept.supported("no_such_op", "cpu")
    if adept.vulkan.is_available():
        assert adept.supported("exp", "vulkan")
        assert adept.supported("conv2d", "vulkan", adept.float16, backward=True)
        assert adept.missing_kernels(["conv2d", "conv_transpose2d"], "vulkan") == []
        y = adept.nn.functional.conv2d(adept.ones(1, 1, 3, 3, device="vulkan"), adept.ones(1, 1, 1, 1, device="vulkan"))
        assert y.cpu().tolist() == [[[[1.0] * 3] * 3]]
