"""Parity with PyTorch for the reductions, softmax and scans of include/adept/ops/reduce.h: any
dims (negative, tuples), keepdim, dtype arguments, empty inputs (identities or errors)."""
import pytest

from parity import (ALL, FLOAT, NUM, Arg, Case, ErrCase, err_params, functional, params, run_error,
                    run_variant)

F = functional

FULL = [((3, 4),), ((0, 3),), ((),), ((2, 3, 4),)]      # reductions over all elements
DIM = [((3, 4, 5),), ((3, 0, 5),), ((0, 4, 5),), ((1, 4, 1),)]  # reductions over some dims of 3-d


def red(name, fn, dtypes=ALL, shapes=DIM, gen="normal", **kw):
    return Case(name, fn, shapes, (Arg(gen),), dtypes, **kw)


CASES = [
    red("sum_all", lambda m, x: m.sum(x), shapes=FULL),
    red("sum_method", lambda m, x: x.sum(), shapes=FULL),
    red("sum_dim", lambda m, x: m.sum(x, dim=1)),
    red("sum_dim_neg_keepdim", lambda m, x: m.sum(x, dim=-1, keepdim=True)),
    red("sum_dims", lambda m, x: m.sum(x, dim=(0, 2))),
    red("sum_dims_neg_keepdim", lambda m, x: x.sum(dim=(-1, 0), keepdim=True)),
    red("sum_dims_list", lambda m, x: x.sum([1, 2])),
    red("sum_dtype", lambda m, x: m.sum(x, dim=1, dtype=m.float64)),
    red("sum_positional_dim", lambda m, x: x.sum(1, True)),
    red("mean_all", lambda m, x: m.mean(x), NUM, shapes=FULL),
    red("mean_method", lambda m, x: x.mean(), FLOAT, shapes=FULL),
    red("mean_dim", lambda m, x: m.mean(x, dim=1), NUM),
    red("mean_dims_keepdim", lambda m, x: x.mean(dim=(0, -1), keepdim=True), FLOAT),
    red("prod_all", lambda m, x: m.prod(x), shapes=FULL, gen="unit"),
    red("prod_dim", lambda m, x: m.prod(x, dim=1), gen="unit"),
    red("prod_dim_neg_keepdim", lambda m, x: x.prod(-1, keepdim=True), gen="unit"),
    red("prod_with_zero", lambda m, x: m.prod(m.relu(x - 0.5), 1), FLOAT, gen="unit"),
    red("max_all", lambda m, x: m.max(x), shapes=FULL),
    red("min_all", lambda m, x: x.min(), shapes=FULL),
    red("max_dim", lambda m, x: m.max(x, dim=1)),
    red("max_dim_neg_keepdim", lambda m, x: x.max(-1, keepdim=True)),
    red("min_dim", lambda m, x: m.min(x, 0)),
    red("min_dim_keepdim", lambda m, x: x.min(dim=2, keepdim=True)),
    red("max_dim_nan", lambda m, x: m.max(x, dim=1), FLOAT, gen="special", grad=False),
    red("amax", lambda m, x: m.amax(x, dim=(0, 2))),
    red("amax_all", lambda m, x: m.amax(x), shapes=FULL[:2] + FULL[3:]),
    red("amax_keepdim", lambda m, x: x.amax(dim=-1, keepdim=True)),
    red("amin", lambda m, x: m.amin(x, dim=1)),
    red("amin_dims_keepdim", lambda m, x: m.amin(x, dim=(1, 2), keepdim=True)),
    # (no bool: torch 1.13 has no bool argmax/argmin kernel to compare with)
    red("argmax_all", lambda m, x: m.argmax(x), NUM, shapes=FULL),
    red("argmax_dim", lambda m, x: m.argmax(x, dim=1), NUM),
    red("argmax_method_keepdim", lambda m, x: x.argmax(dim=-1, keepdim=True), NUM),
    red("argmin_all", lambda m, x: m.argmin(x), NUM, shapes=FULL),
    red("argmin_dim", lambda m, x: m.argmin(x, dim=0, keepdim=True), NUM),
    red("var_all", lambda m, x: m.var(x), FLOAT, shapes=FULL[:1] + FULL[3:]),
    red("var_dim", lambda m, x: m.var(x, dim=1), FLOAT),
    red("var_dims_correction0", lambda m, x: m.var(x, dim=(0, 2), correction=0, keepdim=True), FLOAT),
    red("std_all", lambda m, x: m.std(x), FLOAT, shapes=FULL[:1] + FULL[3:]),
    red("std_dim", lambda m, x: m.std(x, dim=-1), FLOAT),
    red("std_dims_correction0", lambda m, x: x.std(dim=(0, 1), correction=0), FLOAT),
    red("norm_all", lambda m, x: m.norm(x), FLOAT, shapes=FULL),
    red("norm_method", lambda m, x: x.norm(), FLOAT, shapes=FULL[:1]),
    red("norm_p1_dim", lambda m, x: m.norm(x, p=1, dim=1), FLOAT),
    red("norm_p3_dims_keepdim", lambda m, x: m.norm(x, p=3, dim=(0, 2), keepdim=True), FLOAT),
    red("norm_inf", lambda m, x: m.norm(x, p=float("inf"), dim=-1), FLOAT),
    red("norm_neginf", lambda m, x: m.norm(x, p=float("-inf"), dim=0), FLOAT, shapes=DIM[:2]),
    red("norm_p0", lambda m, x: m.norm(x, p=0, dim=1), FLOAT),
    red("logsumexp", lambda m, x: m.logsumexp(x, dim=1), NUM, gen="large"),
    red("logsumexp_dims_keepdim", lambda m, x: m.logsumexp(x, dim=(0, -1), keepdim=True), FLOAT),
    red("logsumexp_inf", lambda m, x: m.logsumexp(x, dim=1), FLOAT, gen="special", grad=False),
    red("all_all", lambda m, x: m.all(x), shapes=FULL),
    red("all_dim", lambda m, x: m.all(x, dim=1)),
    red("all_dim_keepdim", lambda m, x: x.all(dim=-1, keepdim=True)),
    red("any_all", lambda m, x: m.any(x), shapes=FULL),
    red("any_dim", lambda m, x: m.any(x, dim=0)),
    red("any_mask", lambda m, x: m.any(x > 1, dim=2, keepdim=True), NUM),
    red("softmax", lambda m, x: m.softmax(x, dim=1), NUM, gen="large"),
    red("softmax_neg_dim", lambda m, x: m.softmax(x, -1), FLOAT),
    red("softmax_dim0", lambda m, x: F(m).softmax(x, dim=0), FLOAT),
    red("softmax_dtype", lambda m, x: m.softmax(x, dim=2, dtype=m.float64), FLOAT),
    red("softmax_method", lambda m, x: x.softmax(1), FLOAT),
    red("softmax_inf", lambda m, x: m.softmax(x, dim=1), FLOAT, gen="special", grad=False),
    red("log_softmax", lambda m, x: m.log_softmax(x, dim=1), NUM, gen="large"),
    red("log_softmax_neg_dim", lambda m, x: F(m).log_softmax(x, dim=-1), FLOAT),
    red("log_softmax_dtype", lambda m, x: m.log_softmax(x, 0, dtype=m.float64), FLOAT),
    red("cumsum", lambda m, x: m.cumsum(x, dim=1)),
    red("cumsum_neg_dim", lambda m, x: x.cumsum(-1)),
    red("cumsum_dtype", lambda m, x: m.cumsum(x, 0, dtype=m.float64), NUM),
    red("cumsum_0d", lambda m, x: m.cumsum(x, 0), shapes=[((),)]),
    red("cumprod", lambda m, x: m.cumprod(x, dim=1), gen="unit"),
    red("cumprod_neg_dim", lambda m, x: x.cumprod(-1), gen="unit"),
    red("cumprod_with_zero", lambda m, x: m.cumprod(m.relu(x), dim=2), FLOAT, gen="unit"),
    red("cumprod_dtype", lambda m, x: m.cumprod(x, 0, dtype=m.float64), NUM, gen="unit"),
]

ERRORS = [
    ErrCase("sum_dim_out_of_range", lambda m, x: x.sum(dim=3), ((2, 3),)),
    ErrCase("sum_dim_repeated", lambda m, x: x.sum(dim=(1, -1)), ((2, 3),)),
    ErrCase("mean_int", lambda m, x: x.mean(), ((2, 3),), dtype="int64"),
    ErrCase("max_empty", lambda m, x: x.max(), ((0, 3),)),
    ErrCase("max_dim_empty", lambda m, x: m.max(x, dim=0), ((0, 3),)),
    ErrCase("argmax_empty", lambda m, x: m.argmax(x), ((0,),)),
    ErrCase("amax_empty_dim", lambda m, x: m.amax(x, dim=1), ((2, 0),)),
    ErrCase("softmax_dim_out_of_range", lambda m, x: m.softmax(x, dim=2), ((2, 3),)),
    ErrCase("cumsum_dim_out_of_range", lambda m, x: m.cumsum(x, dim=-3), ((2, 3),)),
    ErrCase("logsumexp_dim_out_of_range", lambda m, x: m.logsumexp(x, dim=5), ((2, 3),)),
    ErrCase("var_int", lambda m, x: m.var(x), ((2, 3),), dtype="int64"),
]


@pytest.mark.parametrize("v", params(CASES))
def test_reduce(m, device, v):
    run_variant(m, v, device)


@pytest.mark.parametrize("c", err_params(ERRORS))
def test_reduce_error(m, device, c):
    run_error(m, c, device)


def test_half_var_std_accumulate_in_float32(device):
    # Squared deviations past float16's 65504 (70,000 of them, each 1): PyTorch gives 1, not NaN.
    import adept
    import torch
    x = adept.ones(70000, dtype=adept.float16)
    x[::2] = -1
    t = torch.ones(70000, dtype=torch.float16)
    t[::2] = -1
    for dt, tdt in ((adept.float16, torch.float16), (adept.bfloat16, torch.bfloat16)):
        xv = x.to(dt).to(device)
        assert xv.var().dtype == dt
        assert float(xv.var()) == pytest.approx(float(t.to(tdt).var()), rel=1e-2)
        assert float(xv.std()) == pytest.approx(float(t.to(tdt).std()), rel=1e-2)
