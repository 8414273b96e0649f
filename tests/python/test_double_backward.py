"""Second derivatives (autograd.grad with create_graph=True, then backward) equal torch's for ops whose
backward formula uses the op's output (exp, tanh, softmax ...) and for layers composed of them: the saved
output must stay connected to the graph in a create_graph backward, or the second derivative is silently
wrong."""
import numpy as np
import pytest
import torch

CASES = {
    "exp": lambda L, x: x.exp(),
    "tanh": lambda L, x: x.tanh(),
    "sigmoid": lambda L, x: x.sigmoid(),
    "sqrt": lambda L, x: (x * x + 1).sqrt(),
    "rsqrt": lambda L, x: (x * x + 1).rsqrt(),
    "expm1": lambda L, x: x.expm1(),
    "reciprocal": lambda L, x: (x * x + 1).reciprocal(),
    "softmax": lambda L, x: x.softmax(1),
    "log_softmax": lambda L, x: x.log_softmax(1),
    "cumprod": lambda L, x: x.cumprod(1),
    "layer_norm": lambda L, x: L.nn.functional.layer_norm(x, [5]),
    "group_norm": lambda L, x: L.nn.functional.group_norm(x.reshape(2, 5, 1), 5).reshape(2, 5),
    "cross_entropy": lambda L, x: L.nn.functional.cross_entropy(x, L.tensor(np.array([1, 3])), reduction="none")[:, None] * x,
    "batch_norm_train": lambda L, x: L.nn.functional.batch_norm(x, None, None, training=True),
    # the fused BN+SiLU's create_graph backward against torch's silu(batch_norm(...))
    "batch_norm_silu_train": lambda L, x: (L.nn.functional.silu(L.nn.functional.batch_norm(x, None, None, training=True))
                                           if L is torch else L.nn.functional.batch_norm_silu(x, None, None, training=True)),
}


def _second(lib, fn, xv, rv):
    x = lib.tensor(xv, requires_grad=True)
    r = lib.tensor(rv)
    (h,) = lib.autograd.grad((fn(lib, x) * r).sum(), x, create_graph=True)
    assert h.requires_grad
    (h * r).sum().backward()
    return h.detach().numpy(), x.grad.numpy()


@pytest.mark.parametrize("name", sorted(CASES))
def test_second_derivative_matches_torch(m, name):
    rng = np.random.default_rng(5)
    xv, rv = rng.standard_normal((2, 5)), rng.standard_normal((2, 5))
    got = _second(m, CASES[name], xv, rv)
    want = _second(torch, CASES[name], xv, rv)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-9, atol=1e-11)
