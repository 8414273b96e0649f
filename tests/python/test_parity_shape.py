"""Parity with PyTorch for the view and copying shape ops of include/adept/ops/shape.h, dtype casts
and copies; views are also checked to alias their base (an in-place write shows through)."""
import pytest

from parity import (ALL, FLOAT, NUM, Arg, Case, ErrCase, err_params, functional, params, run_error,
                    run_variant)

F = functional

M2 = [((3, 4),), ((0, 4),), ((1, 4),)]
M3 = [((2, 3, 4),), ((2, 0, 4),), ((1, 3, 1),)]


def shp(name, fn, shapes=M3, dtypes=ALL, gen="normal", **kw):
    return Case(name, fn, shapes, (Arg(gen),), dtypes, **kw)


def alias(name, view, shapes=M3, layouts=True):
    """An in-place write into the view must change the base (the view shares its storage)."""
    def fn(m, x):
        b = x.clone()
        v = view(m, b)
        v = v[0] if isinstance(v, (tuple, list)) else v
        v.mul_(2)
        return b
    return Case(f"{name}_alias", fn, shapes, (Arg(),), ("float32", "int64"), grad=False, layouts=layouts)


def cat_case(name, fn, shapes, dtypes=ALL):
    return Case(name, fn, shapes, (Arg(),) * len(shapes[0]), dtypes)


VIEWS = {
    "view": lambda m, x: x.view(-1),
    "view_2d": lambda m, x: x.view(x.shape[0], -1),
    "view_tuple": lambda m, x: x.view((-1, x.shape[-1])),
    "reshape": lambda m, x: x.reshape(-1, x.shape[0]),
    "reshape_fn": lambda m, x: m.reshape(x, (x.shape[-1], -1)),
    "permute": lambda m, x: x.permute(2, 0, 1),
    "permute_fn_neg": lambda m, x: m.permute(x, (-1, 0, 1)),
    "transpose": lambda m, x: m.transpose(x, 0, -1),
    "transpose_method": lambda m, x: x.transpose(1, 2),
    "movedim": lambda m, x: m.movedim(x, 0, -1),
    "narrow": lambda m, x: m.narrow(x, 2, 1, 2),
    "narrow_neg": lambda m, x: x.narrow(-1, 0, 3),
    "select": lambda m, x: m.select(x, 2, 1),
    "select_neg": lambda m, x: x.select(-1, -1),
    "squeeze": lambda m, x: x.squeeze(),
    "squeeze_dim": lambda m, x: m.squeeze(x, 0),
    "squeeze_dim_neg": lambda m, x: x.squeeze(-1),
    "unsqueeze": lambda m, x: m.unsqueeze(x, 0),
    "unsqueeze_neg": lambda m, x: x.unsqueeze(-1),
    "unsqueeze_mid": lambda m, x: x.unsqueeze(2),
    "flatten": lambda m, x: m.flatten(x),
    "flatten_from": lambda m, x: x.flatten(1),
    "flatten_range": lambda m, x: m.flatten(x, 0, -2),
    "unflatten": lambda m, x: m.unflatten(x, -1, (2, 2)),
    "unflatten_infer": lambda m, x: x.unflatten(2, (-1, 2)),
    "unbind": lambda m, x: m.unbind(x, 1),
    "unbind_method": lambda m, x: x.unbind(),
    "chunk": lambda m, x: m.chunk(x, 2, dim=2),
    "chunk_uneven": lambda m, x: x.chunk(3, -1),
    "split": lambda m, x: m.split(x, 3, dim=2),
    "split_sizes": lambda m, x: x.split([1, 3], dim=-1),
    "as_strided": lambda m, x: m.as_strided(x, (2, 2), (1, 2), 1),
    "as_strided_method": lambda m, x: x.as_strided((3, 2), (4, 1)),
}

# as_strided reads the storage, so its result depends on the layout: contiguous inputs only
STORAGE_DEPENDENT = ("as_strided", "as_strided_method")
CASES = [shp(name, fn, layouts=name not in STORAGE_DEPENDENT) for name, fn in VIEWS.items()]
CASES += [alias(name, fn, layouts=name not in STORAGE_DEPENDENT) for name, fn in VIEWS.items()
          if name not in ("view_tuple",)]
CASES += [
    shp("t", lambda m, x: x.t(), M2),
    shp("t_fn", lambda m, x: m.t(x), M2),
    shp("t_1d", lambda m, x: x.t(), [((4,),)]),
    shp("view_0d", lambda m, x: x.view(1, 1), [((),)]),
    shp("flatten_0d", lambda m, x: x.flatten(), [((),)]),
    shp("unsqueeze_0d", lambda m, x: x.unsqueeze(0), [((),)]),
    shp("expand", lambda m, x: x.expand(2, 3, 4), [((1, 3, 1),), ((1, 3, 0),)]),
    shp("expand_new_dims", lambda m, x: x.expand((5, -1, -1, 4)), [((1, 3, 1),)]),
    shp("expand_0d", lambda m, x: x.expand(2, 3), [((),)]),
    shp("expand_as", lambda m, x: x.expand_as(m.zeros(4, 2, 3, 5)), [((1, 3, 1),)]),
    shp("broadcast_to", lambda m, x: m.broadcast_to(x, (2, 3, 4)), [((3, 1),), ((4,),)]),
    shp("contiguous", lambda m, x: x.contiguous(), M3),
    shp("clone", lambda m, x: m.clone(x), M3),
    shp("clone_keeps_dense_strides", lambda m, x: (x.clone().stride(), x.clone().is_contiguous()), M3[:1]),
    shp("detach", lambda m, x: x.detach(), M3),
    alias("t", lambda m, x: x.t(), M2),
    # dtype conversion (float -> integer truncates toward zero; NaN -> bool is True)
    *[shp(f"to_{d}", (lambda d: lambda m, x: x.to(getattr(m, d)))(d), M2, ALL,
          gen="nonneg_large" if d == "uint8" else "large") for d in ALL],
    shp("to_bool_special", lambda m, x: x.to(m.bool), M2, FLOAT, gen="special"),
    shp("to_same_dtype", lambda m, x: x.to(x.dtype), M2, ALL),
    # copying shape ops
    cat_case("cat", lambda m, x, y: m.cat([x, y]), [((2, 3), (4, 3)), ((0, 3), (2, 3)), ((2, 3, 1), (1, 3, 1))]),
    cat_case("cat_dim1", lambda m, x, y: m.cat((x, y), dim=1), [((2, 3), (2, 1)), ((2, 0), (2, 2)), ((0, 2), (0, 1))]),
    cat_case("cat_neg_dim3", lambda m, x, y, z: m.cat([x, y, z], -1),
             [((2, 3, 1), (2, 3, 2), (2, 3, 3)), ((1, 0, 2), (1, 0, 1), (1, 0, 0))]),
    cat_case("cat_skip_1d_empty", lambda m, x, y: m.cat([x, y], dim=0), [((2, 3), (0,)), ((0,), (3, 2))]),
    cat_case("cat_one", lambda m, x: m.cat([x], dim=1), [((2, 3),)]),
    Case("cat_promote", lambda m, x, y: m.cat([x, y]), [((2, 3), (1, 3))], (Arg(), Arg(dtype="float64")), NUM),
    cat_case("stack", lambda m, x, y: m.stack([x, y]), [((2, 3), (2, 3)), ((0, 3), (0, 3)), ((), ())]),
    cat_case("stack_dim_neg", lambda m, x, y, z: m.stack((x, y, z), dim=-1), [((2, 3), (2, 3), (2, 3))]),
    cat_case("stack_dim1", lambda m, x, y: m.stack([x, y], 1), [((2, 3), (2, 3))]),
    shp("flip", lambda m, x: m.flip(x, (0,))),
    shp("flip_dims", lambda m, x: x.flip((-1, 1))),
    shp("flip_all", lambda m, x: m.flip(x, (0, 1, 2))),
    shp("roll", lambda m, x: m.roll(x, 1, 0)),
    shp("roll_dims", lambda m, x: m.roll(x, (1, -2), (2, 1))),
    shp("roll_flat", lambda m, x: m.roll(x, 5)),
    shp("roll_neg_dim_big_shift", lambda m, x: x.roll(-7, -1)),
    shp("repeat", lambda m, x: x.repeat(2, 1, 3)),
    shp("repeat_more_dims", lambda m, x: x.repeat(2, 1, 1, 2)),
    shp("repeat_zero", lambda m, x: x.repeat(1, 0, 2)),
    shp("tile", lambda m, x: m.tile(x, (2,))),
    shp("tile_more", lambda m, x: x.tile((2, 1, 1, 3))),
    shp("pad_constant", lambda m, x: F(m).pad(x, (1, 2))),
    shp("pad_constant_value", lambda m, x: F(m).pad(x, (1, 1, 2, 0), value=1.5), dtypes=FLOAT),
    shp("pad_constant_int_value", lambda m, x: F(m).pad(x, (0, 1, 1, 1), value=3), dtypes=NUM),
    shp("pad_constant_3d", lambda m, x: F(m).pad(x, (1, 0, 0, 1, 2, 1), mode="constant")),
    shp("pad_crop", lambda m, x: F(m).pad(x, (-1, 2, 0, -1))),
    shp("pad_reflect", lambda m, x: F(m).pad(x, (2, 1), mode="reflect"), dtypes=FLOAT),
    shp("pad_reflect_2d", lambda m, x: F(m).pad(x, (1, 2, 2, 1), mode="reflect"), [((2, 3, 4),)], FLOAT),
    shp("pad_replicate", lambda m, x: F(m).pad(x, (2, 1), mode="replicate"), dtypes=FLOAT),
    shp("pad_replicate_2d", lambda m, x: F(m).pad(x, (0, 3, 2, 1), mode="replicate"), [((2, 3, 4),)], FLOAT),
    shp("pad_circular", lambda m, x: F(m).pad(x, (2, 1), mode="circular"), [((2, 3, 4),)], FLOAT),
    shp("pad_circular_2d", lambda m, x: F(m).pad(x, (1, 2, 1, 0), mode="circular"), [((1, 2, 3, 4),)], FLOAT),
    Case("meshgrid_ij", lambda m, x, y: m.meshgrid(x, y, indexing="ij"), [((3,), (4,)), ((0,), (2,))],
         (Arg(), Arg()), ALL),
    Case("meshgrid_xy", lambda m, x, y, z: m.meshgrid(x, y, z, indexing="xy"), [((3,), (4,), (2,))],
         (Arg(), Arg(), Arg()), ALL),
    Case("meshgrid_list", lambda m, x, y: m.meshgrid([x, y], indexing="ij"), [((2,), (3,))], (Arg(), Arg()), NUM),
    shp("tril", lambda m, x: m.tril(x), M2 + M3),
    shp("tril_diag", lambda m, x: x.tril(1), M2 + M3),
    shp("triu", lambda m, x: m.triu(x), M2 + M3),
    shp("triu_neg_diag", lambda m, x: m.triu(x, diagonal=-1), M2 + M3),
    shp("triu_far_diag", lambda m, x: m.triu(x, 10), M2),
]

ERRORS = [
    ErrCase("view_bad_numel", lambda m, x: x.view(5, -1), ((3, 4),)),
    ErrCase("view_two_infer", lambda m, x: x.view(-1, -1), ((3, 4),)),
    ErrCase("view_non_contiguous", lambda m, x: x.t().view(-1), ((3, 4),)),
    ErrCase("reshape_bad_numel", lambda m, x: m.reshape(x, (7,)), ((3, 4),)),
    ErrCase("permute_not_a_permutation", lambda m, x: x.permute(0, 0), ((3, 4),)),
    ErrCase("permute_wrong_len", lambda m, x: x.permute(1, 0, 2), ((3, 4),)),
    ErrCase("transpose_dim_out_of_range", lambda m, x: x.transpose(0, 2), ((3, 4),)),
    ErrCase("narrow_too_long", lambda m, x: x.narrow(1, 2, 3), ((3, 4),)),
    ErrCase("select_index_out_of_range", lambda m, x: x.select(0, 3), ((3, 4),)),
    ErrCase("expand_bad_size", lambda m, x: x.expand(2, 4), ((3,),)),
    ErrCase("expand_fewer_dims", lambda m, x: x.expand(3), ((2, 3),)),
    ErrCase("unsqueeze_out_of_range", lambda m, x: x.unsqueeze(3), ((3, 4),)),
    ErrCase("unflatten_bad_sizes", lambda m, x: x.unflatten(1, (3, 2)), ((3, 4),)),
    ErrCase("chunk_zero", lambda m, x: x.chunk(0), ((3, 4),)),
    ErrCase("split_sizes_bad_sum", lambda m, x: x.split([1, 1], dim=1), ((3, 4),)),
    ErrCase("cat_shape_mismatch", lambda m, x, y: m.cat([x, y], dim=0), ((2, 3), (2, 4))),
    ErrCase("cat_empty_list", lambda m: m.cat([]), ()),
    ErrCase("cat_dim_out_of_range", lambda m, x, y: m.cat([x, y], dim=2), ((2, 3), (2, 3))),
    ErrCase("stack_shape_mismatch", lambda m, x, y: m.stack([x, y]), ((2, 3), (3, 2))),
    ErrCase("flip_repeated_dim", lambda m, x: x.flip((0, 0)), ((3, 4),)),
    ErrCase("roll_shifts_dims_mismatch", lambda m, x: m.roll(x, (1, 2), (0,)), ((3, 4),)),
    ErrCase("repeat_too_few", lambda m, x: x.repeat(2), ((3, 4),)),
    ErrCase("pad_odd_length", lambda m, x: F(m).pad(x, (1, 2, 3)), ((3, 4),)),
    ErrCase("pad_reflect_too_large", lambda m, x: F(m).pad(x, (5, 5), mode="reflect"), ((3, 4),)),
    ErrCase("pad_bad_mode", lambda m, x: F(m).pad(x, (1, 1), mode="wrap"), ((3, 4),)),
    ErrCase("tril_1d", lambda m, x: m.tril(x), ((4,),)),
    ErrCase("meshgrid_2d_input", lambda m, x, y: m.meshgrid(x, y, indexing="ij"), ((2, 2), (3,))),
    ErrCase("as_strided_out_of_bounds", lambda m, x: x.as_strided((4, 4), (4, 1)), ((3, 4),)),
]


@pytest.mark.parametrize("v", params(CASES))
def test_shape(m, device, v):
    run_variant(m, v, device)


@pytest.mark.parametrize("c", err_params(ERRORS))
def test_shape_error(m, device, c):
    run_error(m, c, device)
