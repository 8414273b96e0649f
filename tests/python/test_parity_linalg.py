"""Parity with PyTorch for the matrix products of include/adept/ops/linalg.h: matmul in all its
rank combinations with batch broadcasting, mm, bmm, addmm, dot, the @ operator; k = 0 and empty
batches; errors for mismatched shapes and dtypes."""
import pytest

from parity import FLOAT, NUM, Arg, Case, ErrCase, err_params, params, run_error, run_variant

MATMUL = [((3, 4), (4, 5)), ((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 5)), ((2, 3, 4), (4, 5)),
          ((2, 1, 3, 4), (5, 4, 2)), ((4,), (2, 4, 3)), ((2, 3, 4), (4,)), ((3, 0), (0, 5)), ((0, 4), (4, 5)),
          ((2, 3, 4), (2, 4, 5)), ((0, 3, 4), (4, 2))]


def mat(name, fn, shapes, dtypes=NUM, **kw):
    return Case(name, fn, shapes, (Arg(),) * len(shapes[0]), dtypes, **kw)


CASES = [
    mat("matmul", lambda m, a, b: m.matmul(a, b), MATMUL, tol=4),
    mat("matmul_op", lambda m, a, b: a @ b, MATMUL[:1] + MATMUL[5:6], tol=4),
    mat("matmul_method", lambda m, a, b: a.matmul(b), MATMUL[:1], tol=4),
    mat("mm", lambda m, a, b: m.mm(a, b), [((3, 4), (4, 5)), ((0, 4), (4, 2)), ((3, 0), (0, 2)), ((1, 7), (7, 1))],
        tol=4),
    mat("bmm", lambda m, a, b: m.bmm(a, b), [((2, 3, 4), (2, 4, 5)), ((0, 3, 4), (0, 4, 5)), ((2, 3, 0), (2, 0, 1))],
        tol=4),
    mat("addmm", lambda m, c, a, b: m.addmm(c, a, b), [((3, 5), (3, 4), (4, 5)), ((5,), (3, 4), (4, 5)),
        ((), (3, 4), (4, 5)), ((3, 1), (3, 0), (0, 5))], tol=4),
    mat("addmm_beta_alpha", lambda m, c, a, b: m.addmm(c, a, b, beta=0.5, alpha=2), [((3, 5), (3, 4), (4, 5))],
        FLOAT, tol=4),
    mat("addmm_int_beta_alpha", lambda m, c, a, b: m.addmm(c, a, b, beta=2, alpha=3), [((3, 5), (3, 4), (4, 5))],
        NUM, tol=4),
    mat("dot", lambda m, a, b: m.dot(a, b), [((5,), (5,)), ((0,), (0,))], tol=4),
    mat("dot_method", lambda m, a, b: a.dot(b), [((7,), (7,))], FLOAT, tol=4),
    mat("linear_chain", lambda m, x, w, b: m.relu(x @ w.t() + b).sum(-1), [((4, 3), (5, 3), (5,))], FLOAT, tol=4),
]

ERRORS = [
    ErrCase("matmul_inner_mismatch", lambda m, a, b: m.matmul(a, b), ((3, 4), (5, 6))),
    ErrCase("matmul_batch_mismatch", lambda m, a, b: m.matmul(a, b), ((2, 3, 4), (3, 4, 5))),
    ErrCase("matmul_0d", lambda m, a, b: m.matmul(a, b), ((), (3,))),
    ErrCase("matmul_dtype_mismatch", lambda m, a, b: m.matmul(a, b), ((3, 4), (4, 5)),
            (Arg(), Arg(dtype="float64"))),
    ErrCase("mm_inner_mismatch", lambda m, a, b: m.mm(a, b), ((3, 4), (3, 4))),
    ErrCase("mm_1d", lambda m, a, b: m.mm(a, b), ((4,), (4, 5))),
    ErrCase("bmm_batch_mismatch", lambda m, a, b: m.bmm(a, b), ((2, 3, 4), (3, 4, 5))),
    ErrCase("bmm_2d", lambda m, a, b: m.bmm(a, b), ((3, 4), (4, 5))),
    ErrCase("addmm_input_shape", lambda m, c, a, b: m.addmm(c, a, b), ((4, 4), (3, 4), (4, 5))),
    ErrCase("dot_length_mismatch", lambda m, a, b: m.dot(a, b), ((3,), (4,))),
    ErrCase("dot_2d", lambda m, a, b: m.dot(a, b), ((3, 1), (3, 1))),
    ErrCase("dot_dtype_mismatch", lambda m, a, b: m.dot(a, b), ((3,), (3,)), (Arg(), Arg(dtype="float64"))),
]


@pytest.mark.parametrize("v", params(CASES))
def test_linalg(m, device, v):
    run_variant(m, v, device)


@pytest.mark.parametrize("c", err_params(ERRORS))
def test_linalg_error(m, device, c):
    run_error(m, c, device)
