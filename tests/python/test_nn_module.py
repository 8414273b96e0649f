"""adept.nn.Module and the layer classes against torch.nn: names, order, state_dict, repr,
forward/backward of every layer (weights copied through state_dict), default init, Python
subclasses (attribute registration, overrides reached from C++ containers, lifetime)."""
import collections
import gc
import math

import numpy as np
import pytest
import torch

RNG = np.random.default_rng(0)


def rand(*shape, lo=-1.0, hi=1.0, dtype=np.float32):
    return RNG.uniform(lo, hi, size=shape).astype(dtype)


def A(m, arr, requires_grad=False):
    t = m.tensor(np.array(arr, order="C"))
    if requires_grad:
        t.requires_grad_(True)
    return t


def T(arr, requires_grad=False):
    return torch.tensor(np.array(arr, order="C"), requires_grad=requires_grad)


def npy(t):
    return t.detach().numpy()


def copy_weights(tmod, amod, m):
    """torch state_dict -> adept load_state_dict (strict), through numpy."""
    sd = collections.OrderedDict((k, A(m, v.detach().numpy())) for k, v in tmod.state_dict().items())
    res = amod.load_state_dict(sd)
    assert list(res.missing_keys) == [] and list(res.unexpected_keys) == []


def check_module(m, tmod, amod, inputs, extra=(), rtol=1e-5, atol=1e-5, train=True):
    """Same forward and same gradients (input and parameters) for torch and adept modules."""
    copy_weights(tmod, amod, m)
    tmod.train(train)
    amod.train(train)
    tin = [T(x, requires_grad=x.dtype.kind == "f") for x in inputs]
    ain = [A(m, x, requires_grad=x.dtype.kind == "f") for x in inputs]
    tout = tmod(*tin, *extra)
    aout = amod(*ain, *extra)
    np.testing.assert_allclose(npy(aout), npy(tout), rtol=rtol, atol=atol)
    g = rand(*tout.shape) if tout.dim() else np.float32(1.3)
    tout.backward(T(g))
    aout.backward(A(m, g))
    for tx, ax in zip(tin, ain):
        if tx.requires_grad:
            np.testing.assert_allclose(npy(ax.grad), npy(tx.grad), rtol=rtol, atol=atol)
    tp = dict(tmod.named_parameters())
    for name, p in amod.named_parameters():
        np.testing.assert_allclose(npy(p.grad), npy(tp[name].grad), rtol=rtol, atol=atol, err_msg=name)
    for (tn, tb), (an, ab) in zip(tmod.named_buffers(), amod.named_buffers()):
        assert tn == an
        np.testing.assert_allclose(npy(ab), npy(tb), rtol=rtol, atol=atol, err_msg=tn)
    return aout


# ----------------------------------------------------------------------------------------------
# a small model built the same way in both libraries

def build_pair(m):
    class TNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
            self.bn = torch.nn.BatchNorm2d(4)
            self.act = torch.nn.SiLU()
            self.pool = torch.nn.AdaptiveAvgPool2d(1)
            self.head = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(4, 5), torch.nn.ReLU(),
                                            torch.nn.Linear(5, 2))
            self.scale = torch.nn.Parameter(torch.ones(2))
            self.register_buffer("offset", torch.zeros(2))
            self.register_buffer("tmp", torch.zeros(1), persistent=False)

        def forward(self, x):
            return self.head(self.pool(self.act(self.bn(self.conv(x))))) * self.scale + self.offset

    class ANet(m.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = m.nn.Conv2d(3, 4, 3, padding=1)
            self.bn = m.nn.BatchNorm2d(4)
            self.act = m.nn.SiLU()
            self.pool = m.nn.AdaptiveAvgPool2d(1)
            self.head = m.nn.Sequential(m.nn.Flatten(), m.nn.Linear(4, 5), m.nn.ReLU(), m.nn.Linear(5, 2))
            self.scale = m.nn.Parameter(m.ones(2))
            self.register_buffer("offset", m.zeros(2))
            self.register_buffer("tmp", m.zeros(1), persistent=False)

        def forward(self, x):
            return self.head(self.pool(self.act(self.bn(self.conv(x))))) * self.scale + self.offset

    TNet.__name__ = ANet.__name__ = "Net"
    return TNet(), ANet()


def test_model_names_order_state_dict_repr(m):
    tnet, anet = build_pair(m)
    tnames = [(n, tuple(p.shape)) for n, p in tnet.named_parameters()]
    anames = [(n, tuple(p.shape)) for n, p in anet.named_parameters()]
    assert anames == tnames
    assert list(anet.state_dict().keys()) == list(tnet.state_dict().keys())
    assert "bn.num_batches_tracked" in anet.state_dict()
    assert anet.state_dict()["bn.num_batches_tracked"].dtype == m.int64
    assert [n for n, _ in anet.named_buffers()] == [n for n, _ in tnet.named_buffers()]
    assert [n for n, _ in anet.named_modules()] == [n for n, _ in tnet.named_modules()]
    assert [n for n, _ in anet.named_children()] == [n for n, _ in tnet.named_children()]
    assert repr(anet) == repr(tnet)
    assert isinstance(anet.scale, m.nn.Parameter) and isinstance(anet.scale, m.Tensor)
    assert anet.scale is anet.scale
    assert anet.scale is list(anet.parameters())[0]  # the root's own parameters come first, as torch
    assert anet.head[1] is anet.head[1]


def test_model_forward_backward_and_training_step(m):
    tnet, anet = build_pair(m)
    x = rand(2, 3, 5, 5)
    check_module(m, tnet, anet, [x], rtol=1e-4, atol=1e-5)
    assert int(anet.bn.num_batches_tracked.item()) == 1
    # eval mode uses the running stats
    check_module(m, tnet, anet, [x], rtol=1e-4, atol=1e-5, train=False)


def test_state_dict_round_trip_and_sharing(m):
    _, a = build_pair(m)
    _, b = build_pair(m)
    sd = a.state_dict()
    assert isinstance(sd, collections.OrderedDict)
    assert "tmp" not in sd
    assert not sd["conv.weight"].requires_grad
    res = b.load_state_dict({k: v.clone() for k, v in sd.items()})
    assert res == (list(), list()) and res.missing_keys == [] and res.unexpected_keys == []
    for k, v in b.state_dict().items():
        np.testing.assert_array_equal(npy(v), npy(sd[k]))
    # state_dict tensors share storage with the module
    with m.no_grad():
        sd["scale"].fill_(3.0)
    assert float(a.scale[0].item()) == 3.0


def test_load_state_dict_strict_errors(m):
    tnet, anet = build_pair(m)
    bad = collections.OrderedDict((k, v) for k, v in anet.state_dict().items() if k not in ("scale", "conv.bias"))
    bad["extra"] = m.zeros(1)
    bad["conv.weight"] = m.zeros(2, 3, 3, 3)
    tbad = collections.OrderedDict((k, torch.tensor(npy(v))) for k, v in bad.items())
    with pytest.raises(RuntimeError) as te:
        tnet.load_state_dict(tbad)
    with pytest.raises(RuntimeError) as ae:
        anet.load_state_dict(bad)
    expect = str(te.value).replace("torch.Size(", "").replace("])", "]")
    assert str(ae.value) == expect
    with pytest.raises(RuntimeError, match="size mismatch for conv.weight"):
        anet.load_state_dict(bad, strict=False)
    bad["conv.weight"] = m.zeros(4, 3, 3, 3)
    res = anet.load_state_dict(bad, strict=False)
    tres = tnet.load_state_dict(collections.OrderedDict((k, torch.tensor(npy(v))) for k, v in bad.items()), strict=False)
    assert res.missing_keys == tres.missing_keys and res.unexpected_keys == tres.unexpected_keys
    with pytest.raises(TypeError):
        anet.load_state_dict({"scale": np.ones(2)})


def test_to_dtype_keeps_parameter_objects(m):
    _, net = build_pair(m)
    params = list(net.parameters())
    ids = [id(p) for p in params]
    out = net(A(m, rand(2, 3, 5, 5)))
    out.sum().backward()
    assert net.double() is net
    assert [id(p) for p in net.parameters()] == ids
    assert all(p.dtype == m.float64 for p in params)
    assert all(p.grad.dtype == m.float64 for p in params)
    assert net.bn.num_batches_tracked.dtype == m.int64
    assert net.offset.dtype == m.float64
    net.to(m.float32)
    assert params[0].dtype == m.float32
    net.to("cpu")
    net.to(dtype=m.float64, device="cpu")
    assert params[0].dtype == m.float64
    net.float()
    with pytest.raises(TypeError):
        net.to(m.int64)
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
    net(A(m, rand(2, 3, 5, 5))).sum().backward()
    net.zero_grad(set_to_none=False)
    assert all(float(p.grad.abs().sum().item()) == 0.0 for p in net.parameters())


def test_train_eval_requires_grad_apply(m):
    tnet, net = build_pair(m)
    assert net.training
    assert net.eval() is net
    assert not net.training and not net.head[1].training
    net.train()
    assert net.head[3].training
    net.head.train(False)
    assert net.training and not net.head[0].training
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())
    net.requires_grad_()
    seen, tseen = [], []
    net.apply(lambda mod: seen.append(type(mod).__name__))
    tnet.apply(lambda mod: tseen.append(type(mod).__name__))
    assert seen == tseen
    assert net.apply(lambda mod: None) is net


# ----------------------------------------------------------------------------------------------
# Python subclasses

def test_setattr_getattr_semantics(m):
    nn = m.nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(m.ones(2))
            self.register_buffer("rm", m.zeros(2))
            self.child = nn.Linear(2, 2)
            self.plain = 3

    mod = M()
    assert [n for n, _ in mod.named_parameters()] == ["w", "child.weight", "child.bias"]
    assert mod.plain == 3 and "plain" not in dict(mod.named_parameters())
    with pytest.raises(TypeError, match="cannot assign"):
        mod.w = m.zeros(2)  # a plain tensor to a parameter name
    mod.w = None
    assert mod.w is None and [n for n, _ in mod.named_parameters()] == ["child.weight", "child.bias"]
    mod.rm = m.ones(3)  # buffers take plain tensors
    assert tuple(mod.rm.shape) == (3,)
    with pytest.raises(TypeError):
        mod.rm = 5
    with pytest.raises(TypeError):
        mod.child = 5
    mod.child = None
    assert mod.child is None and list(mod.children()) == []
    mod.child = nn.ReLU()
    assert isinstance(mod.child, nn.ReLU)
    del mod.child
    with pytest.raises(AttributeError):
        mod.child
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        mod.nothing
    p = nn.Parameter(m.zeros(1))
    mod.q = p
    assert mod.q is p and p.requires_grad
    assert not nn.Parameter(m.zeros(1), requires_grad=False).requires_grad
    assert repr(p).startswith("Parameter containing:")
    mod.training = False
    assert not mod.training

    class Early(nn.Module):
        def __init__(self):
            self.fc = nn.Linear(1, 1)

    with pytest.raises((AttributeError, TypeError)):
        Early()


def test_forward_call_kwargs_and_missing_forward(m):
    nn = m.nn

    class Two(nn.Module):
        def forward(self, a, b=1.0, *, scale=2.0):
            return (a + b) * scale

    out = Two()(m.ones(2), b=2.0, scale=3.0)
    np.testing.assert_allclose(npy(out), [9.0, 9.0])

    class NoForward(nn.Module):
        pass

    with pytest.raises(NotImplementedError):
        NoForward()(m.ones(1))


def test_extra_repr_override_and_subclass_names(m):
    nn = m.nn

    class Block(nn.Module):
        def __init__(self, k):
            super().__init__()
            self.k = k
            self.fc = nn.Linear(2, 2)

        def extra_repr(self):
            return f"k={self.k}"

    class TBlock(torch.nn.Module):
        def __init__(self, k):
            super().__init__()
            self.k = k
            self.fc = torch.nn.Linear(2, 2)

        def extra_repr(self):
            return f"k={self.k}"

    TBlock.__name__ = "Block"
    a = nn.Sequential(Block(3), nn.ModuleList([nn.ReLU(), Block(4)]), nn.ModuleDict({"x": nn.Tanh()}))
    t = torch.nn.Sequential(TBlock(3), torch.nn.ModuleList([torch.nn.ReLU(), TBlock(4)]),
                            torch.nn.ModuleDict({"x": torch.nn.Tanh()}))
    assert repr(a) == repr(t)

    class MyLinear(nn.Linear):
        def forward(self, x):
            return super().forward(x) * 2

    ml = MyLinear(3, 2)
    assert repr(ml) == "MyLinear(in_features=3, out_features=2, bias=True)"
    x = m.ones(1, 3)
    np.testing.assert_allclose(npy(ml(x)), npy(nn.Sequential(ml)(x)))
    np.testing.assert_allclose(npy(ml(x)), 2 * npy(x @ ml.weight.t() + ml.bias), rtol=1e-6)


def test_cpp_container_calls_python_override_and_keeps_it_alive(m):
    nn = m.nn

    class MyMod(nn.Module):
        def __init__(self, factor):
            super().__init__()
            self.factor = factor  # a plain Python attribute
            self.calls = []

        def forward(self, x):
            self.calls.append(1)
            return x * self.factor

    seq = nn.Sequential()
    mod = MyMod(3.0)
    seq.append(mod)
    calls = mod.calls
    del mod
    gc.collect()
    x = m.ones(2)
    np.testing.assert_allclose(npy(seq(x)), [3.0, 3.0])
    assert calls == [1]
    assert seq[0].factor == 3.0 and type(seq[0]).__name__ == "MyMod"
    assert "MyMod()" in repr(seq)

    # a C++ parent (register_module through setattr) and ModuleList/ModuleDict hold them too
    parent = nn.Module()
    parent.inner = MyMod(5.0)
    lst = nn.ModuleList([MyMod(7.0)])
    dct = nn.ModuleDict({"k": MyMod(11.0)})
    gc.collect()
    np.testing.assert_allclose(npy(parent.inner(x)), [5.0, 5.0])
    np.testing.assert_allclose(npy(nn.Sequential(lst[0], dct["k"])(x)), [77.0, 77.0])

    # the module dies with its last C++ holder
    import weakref
    mod2 = MyMod(2.0)
    ref = weakref.ref(mod2)
    holder = nn.Sequential(mod2)
    del mod2
    gc.collect()
    assert ref() is not None
    del holder
    gc.collect()
    assert ref() is None


def test_containers(m):
    nn = m.nn
    l1, l2, l3 = nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)
    seq = nn.Sequential(l1, l2, l3)
    tseq = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    check_module(m, tseq, seq, [rand(5, 3)])
    assert len(seq) == 3 and seq[-1] is l3 and seq[0] is l1
    sl = seq[1:]
    assert isinstance(sl, nn.Sequential) and len(sl) == 2 and sl[0] is l2
    assert [n for n, _ in sl.named_children()] == [n for n, _ in tseq[1:].named_children()]
    assert [type(c).__name__ for c in seq] == ["Linear", "Tanh", "Linear"]
    with pytest.raises(IndexError):
        seq[3]
    seq.append(nn.ReLU())
    assert len(seq) == 4
    del seq[0]
    tseq.append(torch.nn.ReLU())
    del tseq[0]
    assert [n for n, _ in seq.named_children()] == [n for n, _ in tseq.named_children()] == ["0", "1", "2"]
    assert seq[0] is l2
    od = nn.Sequential(collections.OrderedDict([("a", nn.ReLU()), ("b", nn.Tanh())]))
    assert [n for n, _ in od.named_children()] == ["a", "b"]
    del od[0]  # torch renames the remaining named children too
    tod = torch.nn.Sequential(collections.OrderedDict([("a", torch.nn.ReLU()), ("b", torch.nn.Tanh())]))
    del tod[0]
    assert [n for n, _ in od.named_children()] == [n for n, _ in tod.named_children()]
    with pytest.raises(TypeError):
        nn.Sequential(3)

    ml = nn.ModuleList([nn.ReLU()])
    ml.append(nn.Tanh()).extend([nn.Sigmoid()])
    ml.insert(0, nn.Identity())
    assert [type(x).__name__ for x in ml] == ["Identity", "ReLU", "Tanh", "Sigmoid"]
    assert [n for n, _ in ml.named_children()] == ["0", "1", "2", "3"]
    assert len(ml[1:3]) == 2 and isinstance(ml[1:3], nn.ModuleList)
    assert isinstance(ml[-1], nn.Sigmoid)

    md = nn.ModuleDict({"b": nn.ReLU(), "a": nn.Tanh()})
    md["c"] = nn.Linear(1, 1)
    assert list(md) == ["b", "a", "c"] and list(md.keys()) == ["b", "a", "c"]
    assert "a" in md and len(md) == 3
    assert isinstance(md.pop("a"), nn.Tanh) and "a" not in md
    with pytest.raises(KeyError):
        md["zzz"]
    assert [n for n, _ in md.named_parameters()] == ["c.weight", "c.bias"]


# ----------------------------------------------------------------------------------------------
# every layer against torch

def layer_cases():
    # (name, args, kwargs, input shapes)
    return [
        ("Linear", (4, 3), {}, [(5, 4)]),
        ("Linear", (4, 3), {"bias": False}, [(2, 5, 4)]),
        ("Identity", (), {}, [(3, 2)]),
        ("Flatten", (), {}, [(2, 3, 4)]),
        ("Flatten", (0, 1), {}, [(2, 3, 4)]),
        ("ReLU", (), {}, [(4, 5)]),
        ("SiLU", (), {}, [(4, 5)]),
        ("Sigmoid", (), {}, [(4, 5)]),
        ("Tanh", (), {}, [(4, 5)]),
        ("GELU", (), {}, [(4, 5)]),
        ("GELU", (), {"approximate": "tanh"}, [(4, 5)]),
        ("LeakyReLU", (), {}, [(4, 5)]),
        ("LeakyReLU", (0.2,), {}, [(4, 5)]),
        ("Hardswish", (), {}, [(4, 5)]),
        ("LogSigmoid", (), {}, [(4, 5)]),
        ("Hardshrink", (), {}, [(4, 5)]),
        ("Hardshrink", (0.25,), {}, [(4, 5)]),
        ("ELU", (), {}, [(4, 5)]),
        ("ELU", (0.5,), {}, [(4, 5)]),
        ("Mish", (), {}, [(4, 5)]),
        ("Hardsigmoid", (), {}, [(4, 5)]),
        ("Hardtanh", (-0.5, 2.0), {}, [(4, 5)]),
        ("ReLU6", (), {}, [(4, 5)]),
        ("Softplus", (2.0, 1.5), {}, [(4, 5)]),
        ("Softmax", (1,), {}, [(4, 5)]),
        ("LogSoftmax", (), {"dim": -1}, [(2, 4, 5)]),
        ("Dropout", (), {"p": 0.0}, [(4, 5)]),
        ("Conv2d", (3, 4, 3), {}, [(2, 3, 6, 6)]),
        ("Conv2d", (4, 6, (3, 2)), {"stride": 2, "padding": (1, 0), "dilation": 1, "groups": 2, "bias": False},
         [(2, 4, 7, 7)]),
        ("Conv2d", (3, 2, 3), {"padding": "same", "dilation": 2}, [(1, 3, 6, 6)]),
        ("Conv2d", (3, 2, 3), {"padding": 1, "padding_mode": "reflect"}, [(1, 3, 5, 5)]),
        ("Conv2d", (3, 2, 3), {"padding": 1, "padding_mode": "circular"}, [(1, 3, 5, 5)]),
        ("ConvTranspose2d", (4, 3, 3), {}, [(2, 4, 4, 4)]),
        ("ConvTranspose2d", (4, 2, 3), {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2},
         [(1, 4, 3, 3)]),
        ("MaxPool2d", (2,), {}, [(2, 3, 6, 6)]),
        ("MaxPool2d", (3,), {"stride": 2, "padding": 1, "ceil_mode": True}, [(1, 2, 7, 7)]),
        ("AvgPool2d", (2,), {}, [(2, 3, 6, 6)]),
        ("AvgPool2d", ((3, 2),), {"stride": 1, "padding": 1, "count_include_pad": False}, [(1, 2, 5, 5)]),
        ("AdaptiveAvgPool2d", (1,), {}, [(2, 3, 5, 5)]),
        ("AdaptiveAvgPool2d", ((2, None),), {}, [(2, 3, 5, 4)]),
        ("Upsample", (), {"scale_factor": 2}, [(1, 2, 3, 3)]),
        ("Upsample", (), {"size": (5, 4), "mode": "bilinear", "align_corners": False}, [(1, 2, 3, 3)]),
        ("BatchNorm2d", (3,), {}, [(4, 3, 2, 2)]),
        ("BatchNorm2d", (3,), {"momentum": None, "affine": False}, [(4, 3, 2, 2)]),
        ("BatchNorm1d", (3,), {}, [(5, 3)]),
        ("BatchNorm1d", (3,), {"eps": 1e-3, "track_running_stats": False}, [(5, 3, 4)]),
        ("LayerNorm", (5,), {}, [(2, 3, 5)]),
        ("LayerNorm", ((3, 5),), {"eps": 1e-3, "elementwise_affine": False}, [(2, 3, 5)]),
        ("GroupNorm", (2, 4), {}, [(2, 4, 3, 3)]),
        ("GroupNorm", (1, 4), {"affine": False}, [(2, 4, 5)]),
    ]


@pytest.mark.parametrize("name,args,kwargs,shapes", layer_cases(),
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(layer_cases())])
def test_layer_matches_torch(m, name, args, kwargs, shapes):
    tmod = getattr(torch.nn, name)(*args, **kwargs)
    amod = getattr(m.nn, name)(*args, **kwargs)
    assert repr(amod) == repr(tmod)
    assert [(n, tuple(p.shape)) for n, p in amod.named_parameters()] == \
           [(n, tuple(p.shape)) for n, p in tmod.named_parameters()]
    assert list(amod.state_dict().keys()) == list(tmod.state_dict().keys())
    check_module(m, tmod, amod, [rand(*s) for s in shapes], rtol=1e-4, atol=1e-5)
    if any(isinstance(b, torch.Tensor) for b in tmod.buffers()):
        check_module(m, tmod, amod, [rand(*s) for s in shapes], rtol=1e-4, atol=1e-5, train=False)


@pytest.mark.parametrize("name,args", [("ELU", (0.5,)), ("Mish", ()), ("Hardsigmoid", ()), ("Hardtanh", (-0.5, 2.0)),
                                       ("ReLU6", ()), ("Softplus", (2.0, 1.5))])
def test_activation_layers_empty_and_transposed(m, name, args):
    tmod, amod = getattr(torch.nn, name)(*args), getattr(m.nn, name)(*args)
    assert tuple(amod(m.zeros(0, 5)).shape) == (0, 5)
    x = rand(5, 4, lo=-8.0, hi=8.0)  # past every kink (+-3, 6, the thresholds)
    ta, aa = T(x, requires_grad=True), A(m, x, requires_grad=True)
    tout, aout = tmod(ta.t()), amod(aa.t())
    np.testing.assert_allclose(npy(aout), npy(tout), rtol=1e-5, atol=1e-6)
    g = rand(*tout.shape)
    tout.backward(T(g))
    aout.backward(A(m, g))
    np.testing.assert_allclose(npy(aa.grad), npy(ta.grad), rtol=1e-5, atol=1e-6)


def test_hardtanh_needs_max_above_min(m):
    with pytest.raises(ValueError, match="Hardtanh"):
        m.nn.Hardtanh(1.0, 1.0)


def test_layer_non_contiguous_and_empty_batch(m):
    lin_t, lin_a = torch.nn.Linear(4, 3), m.nn.Linear(4, 3)
    copy_weights(lin_t, lin_a, m)
    x = rand(4, 5)
    np.testing.assert_allclose(npy(lin_a(A(m, x).t())), npy(lin_t(T(x).t())), rtol=1e-5, atol=1e-6)
    assert tuple(lin_a(m.zeros(0, 4)).shape) == (0, 3)
    conv_t, conv_a = torch.nn.Conv2d(3, 2, 3, padding=1), m.nn.Conv2d(3, 2, 3, padding=1)
    copy_weights(conv_t, conv_a, m)
    x = rand(2, 5, 5, 3)
    np.testing.assert_allclose(npy(conv_a(A(m, x).permute(0, 3, 1, 2))), npy(conv_t(T(x).permute(0, 3, 1, 2))),
                               rtol=1e-4, atol=1e-5)


def test_maxpool_indices_and_unpool(m):
    x = rand(1, 2, 4, 4)
    tp, ap = torch.nn.MaxPool2d(2, return_indices=True), m.nn.MaxPool2d(2, return_indices=True)
    tout, tidx = tp(T(x))
    aout, aidx = ap(A(m, x))
    np.testing.assert_array_equal(npy(aidx), npy(tidx))
    tu, au = torch.nn.MaxUnpool2d(2), m.nn.MaxUnpool2d(2)
    assert repr(au) == repr(tu)
    np.testing.assert_allclose(npy(au(aout, aidx)), npy(tu(tout, tidx)))
    np.testing.assert_allclose(npy(au(aout, aidx, output_size=(5, 5))), npy(tu(tout, tidx, output_size=(5, 5))))


def test_conv_transpose_output_size(m):
    t, a = torch.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1), m.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)
    copy_weights(t, a, m)
    x = rand(1, 2, 4, 4)
    np.testing.assert_allclose(npy(a(A(m, x), output_size=[8, 8])), npy(t(T(x), output_size=[8, 8])),
                               rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError):
        a(A(m, x), output_size=[12, 12])


@pytest.mark.parametrize("name,kwargs,target", [
    ("MSELoss", {}, "float"),
    ("MSELoss", {"reduction": "sum"}, "float"),
    ("L1Loss", {"reduction": "none"}, "float"),
    ("SmoothL1Loss", {"beta": 0.5}, "float"),
    ("BCEWithLogitsLoss", {}, "prob"),
    ("BCEWithLogitsLoss", {"pos_weight": "w3", "weight": "w3"}, "prob"),
    ("BCELoss", {"reduction": "sum"}, "prob"),
    ("CrossEntropyLoss", {}, "index"),
    ("CrossEntropyLoss", {"weight": "w3", "ignore_index": 1, "label_smoothing": 0.1}, "index"),
    ("NLLLoss", {"reduction": "sum"}, "index"),
])
def test_losses_match_torch(m, name, kwargs, target):
    w = rand(3, lo=0.5, hi=2.0)
    tk = {k: (T(w) if v == "w3" else v) for k, v in kwargs.items()}
    ak = {k: (A(m, w) if v == "w3" else v) for k, v in kwargs.items()}
    tmod, amod = getattr(torch.nn, name)(**tk), getattr(m.nn, name)(**ak)
    assert repr(amod) == repr(tmod)
    assert list(amod.state_dict().keys()) == list(tmod.state_dict().keys())
    if name == "BCELoss":
        x = rand(4, 3, lo=0.05, hi=0.95)
    elif name == "NLLLoss":
        x = np.log(rand(4, 3, lo=0.1, hi=1.0))
    else:
        x = rand(4, 3, lo=-2, hi=2)
    if target == "index":
        y = RNG.integers(0, 3, size=4).astype(np.int64)
    else:
        y = rand(4, 3, lo=0, hi=1)
    tx, ax = T(x, True), A(m, x, True)
    tout, aout = tmod(tx, T(y)), amod(ax, A(m, y))
    np.testing.assert_allclose(npy(aout), npy(tout), rtol=1e-5, atol=1e-6)
    g = rand(*tout.shape) if tout.dim() else np.float32(1.0)
    tout.backward(T(g))
    aout.backward(A(m, g))
    np.testing.assert_allclose(npy(ax.grad), npy(tx.grad), rtol=1e-5, atol=1e-6)


def test_default_init_statistics(m):
    m.manual_seed(0)
    for ctor, fan_in in [(lambda nn: nn.Linear(200, 300), 200), (lambda nn: nn.Conv2d(16, 32, 3), 16 * 9),
                         (lambda nn: nn.Conv2d(16, 32, 3, groups=4), 4 * 9),
                         (lambda nn: nn.ConvTranspose2d(16, 8, 3), 8 * 9)]:
        a, t = ctor(m.nn), ctor(torch.nn)
        bound = 1 / math.sqrt(fan_in)
        for name in ("weight", "bias"):
            av, tv = npy(getattr(a, name)).ravel(), npy(getattr(t, name)).ravel()
            assert np.abs(av).max() <= bound and np.abs(tv).max() <= bound
        w = npy(a.weight).ravel()  # thousands of draws: spread over the range, std of U(-b, b)
        assert np.abs(w).max() > 0.95 * bound
        assert abs(w.std() - bound / math.sqrt(3)) < 0.05 * bound / math.sqrt(3)
        assert abs(w.mean()) < 0.05 * bound
    m.manual_seed(5)
    w1 = npy(m.nn.Linear(3, 3).weight)
    m.manual_seed(5)
    w2 = npy(m.nn.Linear(3, 3).weight)
    np.testing.assert_array_equal(w1, w2)
    bn = m.nn.BatchNorm2d(3)
    np.testing.assert_array_equal(npy(bn.weight), np.ones(3))
    np.testing.assert_array_equal(npy(bn.running_var), np.ones(3))
    assert bn.num_batches_tracked.dim() == 0 and int(bn.num_batches_tracked.item()) == 0


def test_dropout_module_modes(m):
    d = m.nn.Dropout(0.5)
    x = m.ones(1000)
    y = d(x)
    kept = npy(y)
    assert set(np.unique(kept)).issubset({0.0, 2.0}) and 300 < (kept == 0).sum() < 700
    d.eval()
    np.testing.assert_array_equal(npy(d(x)), npy(x))
    with pytest.raises(ValueError):
        m.nn.Dropout(1.5)


def test_constructor_errors_match_torch_types(m):
    cases = [
        (lambda nn: nn.Conv2d(3, 4, 3, groups=2), ValueError),
        (lambda nn: nn.Conv2d(4, 4, 3, stride=2, padding="same"), ValueError),
        (lambda nn: nn.Conv2d(4, 4, 3, padding="full"), ValueError),
        (lambda nn: nn.Conv2d(4, 4, 3, padding_mode="mirror"), ValueError),
        (lambda nn: nn.GroupNorm(4, 6), ValueError),
        (lambda nn: nn.ConvTranspose2d(4, 4, 3, padding_mode="reflect"), ValueError),
    ]
    for make, err in cases:
        with pytest.raises(err):
            make(torch.nn)
        with pytest.raises(err):
            make(m.nn)
    with pytest.raises(ValueError):
        torch.nn.BatchNorm2d(3)(torch.zeros(2, 3))
    with pytest.raises(ValueError):
        m.nn.BatchNorm2d(3)(m.zeros(2, 3))
    with pytest.raises(TypeError):
        m.nn.Conv2d(3, 4, "x")


def test_interpreter_exit_with_python_modules_held_by_cpp(m):
    """Python subclasses still held by C++ containers at exit: the keep-alive deleters must not
    touch the finalized interpreter (no crash, exit status 0)."""
    import os
    import subprocess
    import sys
    code = ("import adept, adept.nn as nn\n"
            "class M(nn.Module):\n"
            "    def forward(self, x): return x * 2\n"
            "seq = nn.Sequential(M(), nn.Linear(2, 2), M())\n"
            "holder = nn.ModuleList([seq])\n"
            "assert holder[0][0] is seq[0]\n"
            "print(tuple(seq(adept.ones(1, 2)).shape))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "(1, 2)"


def test_state_dict_prefix_is_prepended_verbatim(m):
    seq, tseq = m.nn.Sequential(m.nn.Linear(1, 1)), torch.nn.Sequential(torch.nn.Linear(1, 1))
    for prefix in ("p.", "p", ""):
        assert list(seq.state_dict(prefix=prefix)) == list(tseq.state_dict(prefix=prefix))


def test_load_state_dict_rejects_non_mapping_and_non_str_keys(m):
    lin = m.nn.Linear(2, 1)
    pairs = list(lin.state_dict().items())
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        lin.load_state_dict(pairs)
    with pytest.raises(TypeError, match="keys must be str"):
        lin.load_state_dict({1: m.zeros(1)})


def test_add_module_over_existing_attribute_raises_key_error(m):
    for lib in (m, torch):
        mod = lib.nn.Module()
        mod.x = 3
        with pytest.raises(KeyError, match="attribute 'x' already exists"):
            mod.add_module("x", lib.nn.ReLU())
        with pytest.raises(KeyError, match="attribute 'forward' already exists"):
            mod.add_module("forward", lib.nn.ReLU())
        mod.add_module("y", lib.nn.ReLU())
        mod.add_module("y", lib.nn.Tanh())  # replacing a child is allowed
        assert type(mod.y).__name__ == "Tanh"


def test_data_assignment_replaces_parameter_in_place(m):
    lin = m.nn.Linear(3, 2)
    w = lin.weight
    opt = m.optim.SGD(lin.parameters(), lr=0.5)
    lin.weight.data = m.zeros(2, 3)
    assert lin.weight is w and w.requires_grad and w.grad_fn is None
    assert np.all(npy(w) == 0) and tuple(w.shape) == (2, 3)
    x = A(m, rand(4, 3))
    np.testing.assert_allclose(npy(lin(x)), np.broadcast_to(npy(lin.bias), (4, 2)), rtol=0, atol=0)
    lin(x).sum().backward()
    opt.step()  # the optimizer built before still updates the same tensor
    np.testing.assert_allclose(npy(lin.weight), -0.5 * npy(x).sum(0)[None].repeat(2, 0), rtol=1e-6, atol=1e-6)
    t = m.ones(2)
    t.data = m.zeros(5, dtype=m.float64)  # shape and dtype may change, as torch
    assert tuple(t.shape) == (5,) and t.dtype == m.float64 and not t.requires_grad


def test_sequential_passes_any_object_between_python_children(m):
    class Split(m.nn.Module):
        def forward(self, x):
            return x, x * 2

    class Add(m.nn.Module):
        def forward(self, pair):
            return pair[0] + pair[1]

    seq = m.nn.Sequential(Split(), Add(), m.nn.ReLU())
    x = A(m, rand(3, 2))
    np.testing.assert_allclose(npy(seq(x)), np.maximum(3 * npy(x), 0), rtol=1e-6)


def test_layer_norm_shape_error_message(m):
    with pytest.raises(RuntimeError) as ours:
        m.nn.functional.layer_norm(m.zeros(2, 4), [5])
    with pytest.raises(RuntimeError) as ref:
        torch.nn.functional.layer_norm(torch.zeros(2, 4), [5])
    expected = "expected input with shape [*, 5], but got input of size[2, 4]"
    assert expected in str(ref.value) and expected in str(ours.value)
