"""adept.nn.init against torch.nn.init: fan and gain computation exactly, fills by their bounds and
moments on large seeded tensors, errors, reproducibility under adept.manual_seed.

Run: PYTHONPATH=<build dir>/python OMP_NUM_THREADS=2 /usr/bin/python3 -m pytest -q tests/python/test_nn_init.py
"""
import math
import warnings

import numpy as np
import pytest
import torch

import adept
from adept.nn import init

SHAPES = [(3, 4), (16, 3, 3, 3), (8, 4, 5), (2, 3, 4, 5, 6), (7, 1)]


def _np(t):
    return np.array(t.detach().numpy())


@pytest.mark.parametrize("shape", SHAPES)
def test_fan_in_and_fan_out_match_torch(shape):
    ref = torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape))
    assert init._calculate_fan_in_and_fan_out(adept.empty(shape)) == ref
    assert init.calculate_fan_in_and_fan_out(adept.empty(shape)) == ref


@pytest.mark.parametrize("shape", [(5,), ()])
def test_fan_of_fewer_than_two_dims_raises_value_error(shape):
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init._calculate_fan_in_and_fan_out(adept.empty(shape))
    with pytest.raises(ValueError):
        torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape))
    with pytest.raises(ValueError):
        init.xavier_uniform_(adept.empty(shape))


@pytest.mark.parametrize("name,param", [("linear", None), ("conv2d", None), ("conv_transpose3d", None),
                                        ("sigmoid", None), ("tanh", None), ("relu", None), ("leaky_relu", None),
                                        ("leaky_relu", 0.2), ("leaky_relu", 1), ("selu", None), ("relu", 0.3)])
def test_calculate_gain_matches_torch(name, param):
    assert init.calculate_gain(name, param) == pytest.approx(torch.nn.init.calculate_gain(name, param), rel=1e-15)


def test_calculate_gain_errors():
    with pytest.raises(ValueError, match="Unsupported nonlinearity"):
        init.calculate_gain("swish")
    with pytest.raises(ValueError, match="not a valid number"):
        init.calculate_gain("leaky_relu", "0.1")
    with pytest.raises(ValueError, match="not a valid number"):
        init.calculate_gain("leaky_relu", True)


def _filled(fn, shape=(256, 300), dtype=adept.float32, seed=0, **kw):
    adept.manual_seed(seed)
    t = adept.empty(shape, dtype=dtype)
    out = fn(t, **kw)
    assert out is t
    return _np(t).astype(np.float64)


def test_uniform_and_normal_moments():
    x = _filled(init.uniform_, a=-2.0, b=3.0)
    assert x.min() >= -2.0 and x.max() < 3.0
    assert x.mean() == pytest.approx(0.5, abs=0.02) and x.std() == pytest.approx(5 / math.sqrt(12), rel=0.01)
    y = _filled(init.normal_, mean=1.5, std=0.25, dtype=adept.float64)
    assert y.mean() == pytest.approx(1.5, abs=0.002) and y.std() == pytest.approx(0.25, rel=0.01)


def test_constant_ones_zeros():
    t = adept.empty((3, 5))
    assert init.constant_(t, 0.3) is t
    np.testing.assert_array_equal(_np(t), np.full((3, 5), 0.3, np.float32))
    np.testing.assert_array_equal(_np(init.ones_(t)), np.ones((3, 5)))
    np.testing.assert_array_equal(_np(init.zeros_(t)), np.zeros((3, 5)))


@pytest.mark.parametrize("gain", [1.0, 0.5])
@pytest.mark.parametrize("shape", [(256, 300), (64, 32, 3, 3)])
def test_xavier_bounds_and_std(shape, gain):
    fan_in, fan_out = torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape))
    std = gain * math.sqrt(2.0 / (fan_in + fan_out))
    x = _filled(init.xavier_uniform_, shape=shape, gain=gain)
    bound = math.sqrt(3.0) * std
    assert np.abs(x).max() <= bound * (1 + 1e-6) and np.abs(x).max() > 0.99 * bound
    assert x.std() == pytest.approx(std, rel=0.02) and abs(x.mean()) < 0.02 * bound
    y = _filled(init.xavier_normal_, shape=shape, gain=gain)
    assert y.std() == pytest.approx(std, rel=0.02) and abs(y.mean()) < 0.02 * std


@pytest.mark.parametrize("mode", ["fan_in", "fan_out", "FAN_OUT"])
@pytest.mark.parametrize("a,nonlinearity", [(0, "leaky_relu"), (0.1, "leaky_relu"), (0, "relu"), (0, "tanh"),
                                            (0, "linear")])
def test_kaiming_bounds_and_std(mode, a, nonlinearity):
    shape = (128, 64, 3, 3)
    fan_in, fan_out = torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape))
    fan = fan_in if mode.lower() == "fan_in" else fan_out
    std = torch.nn.init.calculate_gain(nonlinearity, a) / math.sqrt(fan)
    x = _filled(init.kaiming_uniform_, shape=shape, a=a, mode=mode, nonlinearity=nonlinearity)
    bound = math.sqrt(3.0) * std
    assert np.abs(x).max() <= bound * (1 + 1e-6) and np.abs(x).max() > 0.99 * bound
    assert x.std() == pytest.approx(std, rel=0.02)
    y = _filled(init.kaiming_normal_, shape=shape, a=a, mode=mode, nonlinearity=nonlinearity)
    assert y.std() == pytest.approx(std, rel=0.02) and abs(y.mean()) < 0.02 * std


def test_kaiming_defaults_match_torch_linear_layer_rule():
    # nn.Linear's reset_parameters: kaiming_uniform_(w, a=sqrt(5)) -> bound 1/sqrt(fan_in).
    x = _filled(init.kaiming_uniform_, shape=(200, 400), a=math.sqrt(5))
    assert np.abs(x).max() <= 1 / math.sqrt(400) * (1 + 1e-6) and np.abs(x).max() > 0.99 / math.sqrt(400)


def test_kaiming_errors_and_zero_element():
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        init.kaiming_uniform_(adept.empty((3, 4)), mode="fan_avg")
    with pytest.raises(ValueError, match="Unsupported nonlinearity"):
        init.kaiming_normal_(adept.empty((3, 4)), nonlinearity="swish")
    t = adept.empty((0, 4))
    with pytest.warns(UserWarning, match="zero-element"):
        assert init.kaiming_uniform_(t) is t


@pytest.mark.parametrize("mean,std,a,b", [(0.0, 1.0, -2.0, 2.0), (0.0, 0.02, -0.04, 0.04), (1.0, 2.0, 0.0, 5.0),
                                          (0.0, 1.0, 1.0, 3.0)])
def test_trunc_normal_bounds_and_moments(mean, std, a, b):
    x = _filled(init.trunc_normal_, shape=(200, 300), mean=mean, std=std, a=a, b=b, dtype=adept.float64)
    assert x.min() >= a and x.max() <= b
    # Moments of the truncated normal: alpha, beta standardised bounds, Z the mass.
    phi = lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi)
    cdf = lambda z: 0.5 * (1 + math.erf(z / math.sqrt(2)))
    al, be = (a - mean) / std, (b - mean) / std
    z = cdf(be) - cdf(al)
    mu = mean + std * (phi(al) - phi(be)) / z
    var = std ** 2 * (1 + (al * phi(al) - be * phi(be)) / z - ((phi(al) - phi(be)) / z) ** 2)
    assert x.mean() == pytest.approx(mu, abs=0.01 * std)
    assert x.std() == pytest.approx(math.sqrt(var), rel=0.02)


def test_trunc_normal_errors():
    with pytest.raises(ValueError):
        init.trunc_normal_(adept.empty(3), a=2.0, b=1.0)
    with pytest.raises(ValueError, match="too little"):
        init.trunc_normal_(adept.empty(3), a=20.0, b=30.0)


@pytest.mark.parametrize("fn,kw", [(init.uniform_, {}), (init.normal_, {}), (init.xavier_uniform_, {}),
                                   (init.kaiming_normal_, dict(mode="fan_out")), (init.trunc_normal_, {})])
def test_reproducible_with_manual_seed(fn, kw):
    a = _filled(fn, shape=(16, 8), seed=123, **kw)
    b = _filled(fn, shape=(16, 8), seed=123, **kw)
    c = _filled(fn, shape=(16, 8), seed=124, **kw)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_init_of_a_parameter_keeps_it_a_leaf_and_records_nothing():
    w = adept.zeros((6, 5)).requires_grad_()
    assert init.xavier_uniform_(w) is w
    assert w.is_leaf and w.requires_grad and w.grad_fn is None and np.any(_np(w))


def test_init_of_non_contiguous_views_fills_the_base():
    base = adept.zeros((8, 6))
    view = base.t()
    init.constant_(view[1:3], 2.0)
    expect = np.zeros((8, 6), np.float32)
    expect[:, 1:3] = 2.0
    np.testing.assert_array_equal(_np(base), expect)
    adept.manual_seed(0)
    init.kaiming_uniform_(view)
    assert np.all(_np(base) != 0)
