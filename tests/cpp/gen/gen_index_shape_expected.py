#!/usr/bin/python3
"""Generates tests/cpp/gen/index_shape_expected.h: seeded random inputs and PyTorch's outputs for
tests/cpp/test_index_ops.cpp and tests/cpp/test_shape_copy.cpp. Re-run after changing a case:

    /usr/bin/python3 tests/cpp/gen/gen_index_shape_expected.py

Each literal is a (name, dtype, shape, flat row-major values) entry; the C++ tests build the same
expression on the `*_in` literal and compare with the named output (and `*_grad` gradients).
"""
import math
import os

import torch
import torch.nn.functional as F

torch.manual_seed(1234)
LITS = []


def lit(name, t):
    t = t.detach()
    LITS.append((name, str(t.dtype).replace("torch.", ""), list(t.shape), t.reshape(-1).tolist()))
    return t


def randn(name, *shape):
    return lit(name, torch.randn(*shape, dtype=torch.float64))


def randint(name, hi, *shape):
    return lit(name, torch.randint(0, hi, shape, dtype=torch.int64))


def grad_of(name, fn, *inputs):
    """Literal of d(sum(fn(*inputs) * w))/d input_k, w a fixed weight literal."""
    ins = [i.clone().requires_grad_() for i in inputs]
    out = fn(*ins)
    w = torch.linspace(-1.0, 2.0, out.numel(), dtype=out.dtype).reshape(out.shape)
    (out * w).sum().backward()
    for k, i in enumerate(ins):
        lit(f"{name}_grad{k}", i.grad)


# ---- index (read) ----
x = randn("idx_a_in", 4, 5, 6)
lit("idx_basic_mix", x[1:, None, ..., -2])
x = randn("idx_b_in", 5, 6)
lit("idx_slice_step", x[::2, 1::3])
x = randn("idx_c_in", 3, 4, 5)
lit("idx_adjacent", x[:, torch.tensor([[0, 2], [3, -1]]), torch.tensor([1, 3])])
lit("idx_separated", x[torch.tensor([0, 2]), :, torch.tensor([1, -1])])
lit("idx_select_then_adv", x[0, :, torch.tensor([1, 2])])
lit("idx_mask_and_int", x[:, torch.tensor([True, False, True, True]), torch.tensor([[0], [2]])])
lit("idx_ellipsis_neg", x[..., torch.tensor([-1, 0])])
lit("idx_none_between", x[torch.tensor([0, 1]), None, torch.tensor([2, 0])])
m = randn("idx_d_in", 3, 4)
lit("idx_mask_full", m[m > 0])
x = randn("idx_e_in", 3, 4, 2)
lit("idx_mask_partial", x[x[..., 0] > 0])
x = randn("idx_f_in", 2, 3)
lit("idx_bool_scalars", x[None, True, 1])
lit("idx_false_adv", x[False, :, torch.tensor([0])])
x = randn("idx_g_in", 4, 5)
lit("idx_transposed", x.t()[torch.tensor([1, 3]), 1:])
x = randn("idx_h_in", 3, 1)
lit("idx_expanded", x.expand(3, 4)[torch.tensor([0, 2]), torch.tensor([1, 3])])
x = randn("idx_i_in", 3, 0)
lit("idx_zero_size", x[torch.tensor([0, 2])])
x = randn("idx_j_in", 4, 3)
grad_of("idx_dup", lambda t: t[torch.tensor([0, 2, 0]), 1:], x)

# ---- index_put ----
x = randn("put_a_in", 3, 4)
y = x.clone(); y[y > 0] = 0; lit("put_mask_scalar", y)
x = randn("put_b_in", 4, 6); v = randn("put_b_val", 4, 3)
y = x.clone(); y[:, 1::2] = v; lit("put_slice_tensor", y)
x = randn("put_c_in", 3, 4, 5); v = randn("put_c_val", 4)
y = x.clone(); y[torch.tensor([0, 2]), :, torch.tensor([1, 3])] = v; lit("put_broadcast", y)
x = randn("put_d_in", 5); v = randn("put_d_val", 5)
idx = torch.tensor([0, 1, 0, 4, 0])
lit("put_accumulate", x.index_put((idx,), v, accumulate=True))
grad_of("put_acc", lambda a, b: a.index_put((idx,), b, accumulate=True), x, v)
x = randn("put_e_in", 4, 5); v = randn("put_e_val", 2)
y = x.clone(); y.t()[torch.tensor([0, 4]), 1] = v; lit("put_transposed", y)
x = randn("put_f_in", 3, 4)
y = x.clone(); y[:, 0] = 5; lit("put_basic_view", y)
x = randn("put_g_in", 4, 3); v = randn("put_g_val", 2, 3)
grad_of("put_rows", lambda a, b: a.index_put((torch.tensor([3, 1]),), b), x, v)

# ---- sort / argsort / topk ----
x = randn("sort_a_in", 4, 6)
vals, ind = torch.sort(x); lit("sort_a_v", vals); lit("sort_a_i", ind)
vals, ind = torch.sort(x, 0, descending=True); lit("sort_a_d0_v", vals); lit("sort_a_d0_i", ind)
vals, ind = torch.sort(x.t(), -1); lit("sort_a_t_v", vals); lit("sort_a_t_i", ind)
grad_of("sort_a", lambda t: torch.sort(t, 0)[0], x)
x = randint("sort_b_in", 3, 3, 7)
vals, ind = torch.sort(x, stable=True); lit("sort_b_v", vals); lit("sort_b_i", ind)
vals, ind = torch.sort(x, descending=True, stable=True); lit("sort_b_desc_v", vals); lit("sort_b_desc_i", ind)
x = lit("sort_c_in", torch.tensor([3.0, math.nan, 1.0, -math.inf, 0.5, math.nan, math.inf], dtype=torch.float64))
vals, ind = torch.sort(x); lit("sort_c_v", vals); lit("sort_c_i", ind)
vals, ind = torch.sort(x, descending=True); lit("sort_c_desc_v", vals); lit("sort_c_desc_i", ind)
x = randn("topk_a_in", 4, 6)
vals, ind = torch.topk(x, 3, dim=1); lit("topk_a_v", vals); lit("topk_a_i", ind)
vals, ind = torch.topk(x, 2, dim=0, largest=False); lit("topk_a_small_v", vals); lit("topk_a_small_i", ind)
vals, ind = torch.topk(x.t(), 2, dim=-1); lit("topk_a_t_v", vals); lit("topk_a_t_i", ind)
grad_of("topk_a", lambda t: torch.topk(t, 3, dim=1)[0], x)
lit("argsort_a", torch.argsort(x, dim=0, descending=True))

# ---- unique / nonzero / masked_select / one_hot ----
x = randint("uniq_a_in", 5, 3, 4)
u, inv, cnt = torch.unique(x, return_inverse=True, return_counts=True)
lit("uniq_a_v", u); lit("uniq_a_inv", inv); lit("uniq_a_cnt", cnt)
x = lit("uniq_b_in", torch.tensor([[1, 2, 1], [1, 2, 1], [0, 5, 0], [1, 2, 1], [0, 4, 9]]))
u, inv, cnt = torch.unique(x, dim=0, return_inverse=True, return_counts=True)
lit("uniq_b_d0_v", u); lit("uniq_b_d0_inv", inv); lit("uniq_b_d0_cnt", cnt)
u, inv, cnt = torch.unique(x, dim=1, return_inverse=True, return_counts=True)
lit("uniq_b_d1_v", u); lit("uniq_b_d1_inv", inv); lit("uniq_b_d1_cnt", cnt)
x = randint("nz_a_in", 2, 3, 4, 2)
lit("nz_a", torch.nonzero(x))
lit("nz_a_t", torch.nonzero(x.transpose(0, 2)))
x = randn("msel_a_in", 3, 4); m = randint("msel_a_mask", 2, 4).bool()
lit("msel_a_mask_bool", m)
lit("msel_a", torch.masked_select(x, m))
grad_of("msel_a", lambda t: torch.masked_select(t, m), x)
x = lit("onehot_in", torch.tensor([[0, 3], [2, 1]]))
lit("onehot_auto", F.one_hot(x))
lit("onehot_5", F.one_hot(x, 5))

# ---- roll / repeat / tile / meshgrid / tril / triu ----
x = randn("roll_a_in", 3, 4)
lit("roll_a_2d", torch.roll(x, (1, -2), (0, 1)))
lit("roll_a_flat", torch.roll(x, 3))
lit("roll_a_t", torch.roll(x.t(), 5, 0))
grad_of("roll_a", lambda t: torch.roll(t, (1, -2), (0, 1)), x)
x = randn("rep_a_in", 2, 3)
lit("rep_a", x.repeat(2, 1, 2))
lit("rep_a_t", x.t().repeat(1, 3))
lit("tile_a", x.tile((2,)))
lit("tile_a_more", x.tile((2, 1, 2)))
grad_of("rep_a", lambda t: t.repeat(2, 1, 2), x)
a = randn("mesh_a", 2); b = randn("mesh_b", 3)
gi = torch.meshgrid(a, b, indexing="ij"); lit("mesh_ij0", gi[0]); lit("mesh_ij1", gi[1])
gx = torch.meshgrid(a, b, indexing="xy"); lit("mesh_xy0", gx[0]); lit("mesh_xy1", gx[1])
x = randn("tri_a_in", 2, 3, 4)
lit("tril_a", torch.tril(x)); lit("tril_a_m1", torch.tril(x, -1)); lit("triu_a_2", torch.triu(x, 2))
lit("triu_a_t", torch.triu(x.transpose(1, 2), 1))
grad_of("tril_a", lambda t: torch.tril(t, 1), x)


def fmt(v):
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, float) and math.isnan(v):
        return "NAN"
    if isinstance(v, float) and math.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    return repr(v)


out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "index_shape_expected.h")
with open(out, "w") as f:
    f.write("// Generated by gen_index_shape_expected.py (PyTorch %s); do not edit.\n" % torch.__version__)
    f.write("#pragma once\n#include <cmath>\n#include <map>\n#include <string>\n#include <vector>\n\n")
    f.write("struct TorchLiteral { const char* dtype; std::vector<int64_t> shape; std::vector<double> data; };\n\n")
    f.write("inline const std::map<std::string, TorchLiteral>& torch_literals() {\n")
    f.write("  static const std::map<std::string, TorchLiteral> m = {\n")
    for name, dt, shape, data in LITS:
        f.write('    {"%s", {"%s", {%s}, {%s}}},\n' % (name, dt, ", ".join(map(str, shape)),
                                                   ", ".join(fmt(v) for v in data)))
    f.write("  };\n  return m;\n}\n")
print("wrote", out, len(LITS), "literals")
