"""Parity with PyTorch for the creation functions of include/adept/ops/creation.h (dtype inference,
shapes, values, device argument) and Tensor metadata; seeded random generation is checked for
shape/dtype/range/reproducibility (its values cannot match torch's generator)."""
import numpy as np
import pytest
import torch

from parity import (ALL, FLOAT, Arg, Case, ErrCase, check_raises_like, dtype_name, err_params, params, run_adept,
                    run_error, run_variant, skip_if_device_lacks, to_numpy)


META = [((3, 4),), ((0, 4),), ((),)]


def make(name, fn, compare="values"):
    """A creation case without tensor inputs; fn(m, d) with d the device string."""
    return Case(name, lambda m, device: fn(m, device), [()], (), ("float32",), device_kw=True, compare=compare)


def per_dtype(name, fn, dtypes=ALL, compare="values"):
    """One case per dtype: fn(m, d, dtype object)."""
    return [make(f"{name}_{dt}", (lambda dt: lambda m, d: fn(m, d, getattr(m, dt)))(dt), compare) for dt in dtypes]


CASES = [
    *per_dtype("zeros", lambda m, d, t: m.zeros(2, 3, dtype=t, device=d)),
    *per_dtype("ones", lambda m, d, t: m.ones((2, 0, 3), dtype=t, device=d)),
    *per_dtype("full", lambda m, d, t: m.full((2, 3), 1, dtype=t, device=d)),
    *per_dtype("empty", lambda m, d, t: m.empty(4, 2, dtype=t, device=d), compare="meta"),
    *per_dtype("eye", lambda m, d, t: m.eye(3, 4, dtype=t, device=d)),
    *per_dtype("arange", lambda m, d, t: m.arange(0, 6, 2, dtype=t, device=d), [x for x in ALL if x != "bool"]),
    make("zeros_default_dtype", lambda m, d: m.zeros(3, device=d)),
    make("zeros_tuple", lambda m, d: m.zeros((2, 3), device=d)),
    make("zeros_0d", lambda m, d: m.zeros((), device=d)),
    make("zeros_empty", lambda m, d: m.zeros(0, 4, device=d)),
    make("ones_requires_grad", lambda m, d: m.ones(2, requires_grad=True, device=d).requires_grad),
    make("full_float", lambda m, d: m.full((2, 3), 1.5, device=d)),
    make("full_int_value", lambda m, d: m.full((2,), 7, device=d)),
    make("full_bool_value", lambda m, d: m.full((2,), True, device=d)),
    make("full_nan", lambda m, d: m.full((3,), float("nan"), device=d)),
    make("empty_default", lambda m, d: m.empty(3, device=d), compare="meta"),
    make("empty_strided", lambda m, d: m.empty_strided((2, 3), (1, 2), device=d).stride()),
    make("arange_end", lambda m, d: m.arange(5, device=d)),
    make("arange_start_end", lambda m, d: m.arange(2, 7, device=d)),
    make("arange_float_step", lambda m, d: m.arange(0, 1, 0.25, device=d)),
    make("arange_float_end", lambda m, d: m.arange(2.5, device=d)),
    make("arange_negative_step", lambda m, d: m.arange(10, 0, -3, device=d)),
    make("arange_empty", lambda m, d: m.arange(3, 3, device=d)),
    make("linspace", lambda m, d: m.linspace(0, 1, 5, device=d)),
    make("linspace_reverse", lambda m, d: m.linspace(2, -1, 7, device=d)),
    make("linspace_one", lambda m, d: m.linspace(-1, 1, 1, device=d)),
    make("linspace_zero", lambda m, d: m.linspace(0, 1, 0, device=d)),
    make("linspace_float64", lambda m, d: m.linspace(0, 1, 4, dtype=m.float64, device=d)),
    make("eye_square", lambda m, d: m.eye(3, device=d)),
    make("eye_wide", lambda m, d: m.eye(2, 5, device=d)),
    make("eye_empty", lambda m, d: m.eye(0, device=d)),
    make("scalar_tensor_float", lambda m, d: m.scalar_tensor(3.5, device=d)),
    make("scalar_tensor_int", lambda m, d: m.scalar_tensor(3, device=d)),
    make("scalar_tensor_dtype", lambda m, d: m.scalar_tensor(3, dtype=m.int64, device=d)),
    make("tensor_float_list", lambda m, d: m.tensor([1.0, 2.5, -3.0], device=d)),
    make("tensor_int_list", lambda m, d: m.tensor([1, 2, -3], device=d)),
    make("tensor_bool_list", lambda m, d: m.tensor([True, False], device=d)),
    make("tensor_mixed_list", lambda m, d: m.tensor([1, 2.5], device=d)),
    make("tensor_nested", lambda m, d: m.tensor([[1, 2], [3, 4], [5, 6]], device=d)),
    make("tensor_scalar", lambda m, d: m.tensor(2.5, device=d)),
    make("tensor_int_scalar", lambda m, d: m.tensor(7, device=d)),
    make("tensor_empty", lambda m, d: m.tensor([], device=d)),
    make("tensor_dtype", lambda m, d: m.tensor([1, 2], dtype=m.float64, device=d)),
    make("tensor_numpy_f64", lambda m, d: m.tensor(np.arange(6.0).reshape(2, 3), device=d)),
    make("tensor_numpy_i32", lambda m, d: m.tensor(np.arange(4, dtype=np.int32), device=d)),
    make("tensor_numpy_0d", lambda m, d: m.tensor(np.array(2.5), device=d)),
    make("tensor_numpy_0d_int", lambda m, d: m.tensor(np.array(3, dtype=np.int64), device=d)),
    make("tensor_numpy_bool", lambda m, d: m.tensor(np.array([True, False, True]), device=d)),
    make("tensor_requires_grad", lambda m, d: m.tensor([1.0], requires_grad=True, device=d).requires_grad),
    # *_like and conversions of an input
    *[Case(name, fn, [((2, 3),), ((0, 3),)], (Arg(),), ALL, compare=cmp) for name, fn, cmp in [
        ("zeros_like", lambda m, x: m.zeros_like(x), "values"),
        ("ones_like", lambda m, x: m.ones_like(x), "values"),
        ("ones_like_dtype", lambda m, x: m.ones_like(x, dtype=m.float64), "values"),
        ("full_like", lambda m, x: m.full_like(x, 7), "values"),
        ("full_like_float", lambda m, x: m.full_like(x, 0.5, dtype=m.float32), "values"),
        ("empty_like", lambda m, x: m.empty_like(x), "meta"),
    ]],
    # Tensor metadata (strides follow the layout under test)
    *[Case(name, fn, shapes, (Arg(),), ALL, lowp_ref="native") for name, fn, shapes in [
        ("meta_shape", lambda m, x: (tuple(x.shape), tuple(x.size()), x.dim(), x.ndim, x.numel()), META),
        ("meta_size_dim", lambda m, x: x.size(-1) if x.dim() else x.numel(), META),
        # (strides of empty tensors are arbitrary in torch)
        ("meta_stride", lambda m, x: (tuple(x.stride()), x.is_contiguous()), META[:1] + META[2:]),
        ("meta_storage_offset", lambda m, x: x.storage_offset(), META),
        ("meta_dtype", lambda m, x: (x.dtype, x.is_floating_point(), x.element_size()), META),
        ("tolist", lambda m, x: x.tolist(), META),
    ]],
    Case("item", lambda m, x: x.item(), [((),), ((1, 1),)], (Arg(),), ALL),
    Case("python_scalars", lambda m, x: (float(x), int(x), bool(x != 0)), [((),)], (Arg("large"),), ALL,
         grad=False),
    Case("len", lambda m, x: len(x), [((3, 4),), ((0,),)], (Arg(),), ("float32",)),
]

ERRORS = [
    ErrCase("zeros_negative", lambda m, device: m.zeros(-1, device=device), device_kw=True),
    ErrCase("empty_negative", lambda m, device: m.empty(2, -3, device=device), device_kw=True),
    ErrCase("arange_zero_step", lambda m, device: m.arange(0, 3, 0, device=device), device_kw=True),
    ErrCase("arange_wrong_sign_step", lambda m, device: m.arange(0, 3, -1, device=device), device_kw=True),
    ErrCase("linspace_negative_steps", lambda m, device: m.linspace(0, 1, -1, device=device), device_kw=True),
    ErrCase("eye_negative", lambda m, device: m.eye(-1, device=device), device_kw=True),
    ErrCase("tensor_ragged", lambda m, device: m.tensor([[1, 2], [3]], device=device), device_kw=True),
    ErrCase("item_many", lambda m, x: x.item(), ((2,),)),
    ErrCase("len_0d", lambda m, x: len(x), ((),)),
    ErrCase("bad_device", lambda m, device: m.zeros(2, device="nosuchdevice"), device_kw=True),
]


@pytest.mark.parametrize("v", params(CASES))
def test_creation(m, device, v):
    run_variant(m, v, device)


@pytest.mark.parametrize("c", err_params(ERRORS))
def test_creation_error(m, device, c):
    run_error(m, c, device)


# ---- random generation: properties, not values ------------------------------------------------

RANDOM = {
    "rand": (lambda m, d: m.rand(2000, device=d), "float32", (0.0, 1.0), (0.5, 0.29)),
    "rand_f64": (lambda m, d: m.rand(40, 50, dtype=m.float64, device=d), "float64", (0.0, 1.0), (0.5, 0.29)),
    "randn": (lambda m, d: m.randn(2000, device=d), "float32", (-10.0, 10.0), (0.0, 1.0)),
    "randn_tuple": (lambda m, d: m.randn((40, 50), device=d), "float32", (-10.0, 10.0), (0.0, 1.0)),
    "randint": (lambda m, d: m.randint(-3, 5, (2000,), device=d), "int64", (-3, 4), (0.5, 2.29)),
    "randint_high": (lambda m, d: m.randint(6, (2000,), device=d), "int64", (0, 5), (2.5, 1.71)),
    "randperm": (lambda m, d: m.randperm(2000, device=d), "int64", (0, 1999), (999.5, 577.4)),
    "uniform_": (lambda m, d: m.empty(2000, device=d).uniform_(-2, 4), "float32", (-2.0, 4.0), (1.0, 1.73)),
    "normal_": (lambda m, d: m.empty(2000, device=d).normal_(3, 0.5), "float32", (-2.0, 8.0), (3.0, 0.5)),
    "bernoulli_": (lambda m, d: m.empty(2000, device=d).bernoulli_(0.25), "float32", (0.0, 1.0), (0.25, 0.433)),
}


@pytest.mark.parametrize("name", list(RANDOM))
def test_random(m, device, name):
    fn, dt, (lo, hi), (mean, std) = RANDOM[name]
    skip_if_device_lacks(device, dt)
    m.manual_seed(1234)
    a, b = run_adept(lambda: fn(m, device)), fn(m, device)
    m.manual_seed(1234)
    c = fn(m, device)
    assert dtype_name(a.dtype) == dt, f"{name}: dtype {a.dtype}, expected {dt}"
    va, vb, vc = to_numpy(a).ravel(), to_numpy(b).ravel(), to_numpy(c).ravel()
    assert va.size == 2000 and va.min() >= lo and va.max() <= hi, f"{name}: values outside [{lo}, {hi}]"
    np.testing.assert_array_equal(va, vc, err_msg=f"{name}: same seed, different values")
    assert not np.array_equal(va, vb), f"{name}: two draws are equal"
    assert abs(va.mean() - mean) < 5 * std / np.sqrt(va.size), f"{name}: mean {va.mean()}, expected {mean}"
    assert abs(va.std() - std) < 0.1 * std, f"{name}: std {va.std()}, expected {std}"
    if name == "randperm":
        np.testing.assert_array_equal(np.sort(va), np.arange(2000))


def test_random_int_dtype_and_empty(m, device):
    m.manual_seed(0)
    r = m.randint(0, 10, (3, 0), dtype=m.int32, device=device)
    assert dtype_name(r.dtype) == "int32" and tuple(r.shape) == (3, 0)
    assert tuple(m.randn(0, 5, device=device).shape) == (0, 5)
    assert tuple(m.randperm(0, device=device).shape) == (0,)


@pytest.mark.parametrize("dt", FLOAT)
def test_random_float_dtypes(m, device, dt):
    skip_if_device_lacks(device, dt)
    m.manual_seed(7)
    x = m.rand(500, dtype=getattr(m, dt), device=device)
    v = to_numpy(x)
    assert dtype_name(x.dtype) == dt and v.min() >= 0 and v.max() <= 1 and 0.4 < v.mean() < 0.6


RANDOM_ERRORS = {
    "randint_empty_range": lambda m: m.randint(5, 3, (2,)),
    "randperm_negative": lambda m: m.randperm(-1),
    "rand_negative_size": lambda m: m.rand(-2),
}


@pytest.mark.parametrize("name", list(RANDOM_ERRORS))
def test_random_error(m, name):
    fn = RANDOM_ERRORS[name]
    try:
        fn(torch)
    except Exception as e:  # noqa: BLE001
        check_raises_like(m, lambda: fn(m), e, name)
    else:
        raise AssertionError(f"{name}: torch does not raise; the case is wrong")
