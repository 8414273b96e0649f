"""adept.onnx.load on models exported by PyTorch (Debian's torch 1.13, torch.onnx.export at opsets <= 17):
outputs equal to torch's, gradients reaching the imported parameters, state_dict keys of the exporter,
and the errors (every unsupported op at once, malformed bytes, wrong inputs)."""
import io

import numpy as np
import pytest
import torch

import adept


def export(model, args, opset=17, **kw):
    f = io.BytesIO()
    torch.onnx.export(model, args, f, opset_version=opset, **kw)
    return f.getvalue()


def to_adept(t, device="cpu"):
    return adept.from_numpy(t.detach().numpy().copy()).to(device)


class SmallCNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8 * 4 * 4, 5)

    def forward(self, x):
        x = torch.nn.functional.max_pool2d(torch.relu(self.conv(x)), 2)
        return self.fc(x.flatten(1))


class MobileBlock(torch.nn.Module):
    """Depthwise + pointwise convs with BatchNorm and hardswish, a nearest upsample, a concat, a global pool
    and two outputs."""

    def __init__(self):
        super().__init__()
        self.dw = torch.nn.Conv2d(4, 4, 3, stride=2, padding=1, groups=4, bias=False)
        self.bn = torch.nn.BatchNorm2d(4)
        self.pw = torch.nn.Conv2d(4, 6, 1)
        self.up = torch.nn.Upsample(scale_factor=2, mode="nearest")

    def forward(self, x):
        y = torch.nn.functional.hardswish(self.bn(self.dw(x)))
        z = torch.cat([self.up(self.pw(y)), x], dim=1)
        return z, torch.nn.functional.adaptive_avg_pool2d(z, 1).flatten(1).softmax(-1)


def test_small_cnn_outputs_and_gradients_match_torch(device):
    torch.manual_seed(0)
    net = SmallCNN()
    x = torch.randn(2, 3, 8, 8)
    model = adept.onnx.load(export(net, (x,), input_names=["x"], output_names=["y"], do_constant_folding=False))
    assert isinstance(model, adept.nn.Module)
    assert model.input_names == ["x"] and model.output_names == ["y"] and model.opset == 17
    # The exporter's initializer names are the state_dict keys; floating-point ones are parameters.
    assert sorted(k for k, _ in model.named_parameters()) == sorted(k for k, _ in net.named_parameters())
    model.to(device)
    xa = to_adept(x, device)
    y = model(xa)
    ref = net(x)
    np.testing.assert_allclose(y.detach().cpu().numpy(), ref.detach().numpy(), rtol=1e-4, atol=1e-5)
    y.sum().backward()
    ref.sum().backward()
    params = dict(model.named_parameters())
    for name, p in net.named_parameters():
        np.testing.assert_allclose(params[name].grad.cpu().numpy(), p.grad.numpy(), rtol=1e-4, atol=1e-5,
                                   err_msg=name)


def test_fine_tuning_step_changes_the_output(device):
    torch.manual_seed(1)
    model = adept.onnx.load(export(SmallCNN(), (torch.randn(4, 3, 8, 8),), do_constant_folding=False)).to(device)
    x = adept.randn(4, 3, 8, 8).to(device)
    opt = adept.optim.SGD(model.parameters(), lr=0.1)
    before = model(x).square().mean()
    opt.zero_grad()
    before.backward()
    opt.step()
    after = model(x).square().mean()
    assert after.item() < before.item()


def test_mobile_block_two_outputs_match_torch(device):
    torch.manual_seed(2)
    net = MobileBlock().eval()
    with torch.no_grad():
        net.bn.running_mean.uniform_(-1, 1)
        net.bn.running_var.uniform_(0.5, 2)
    x = torch.randn(2, 4, 8, 8)
    model = adept.onnx.load(export(net, (x,), opset=14)).to(device)
    z, p = model(to_adept(x, device))
    rz, rp = net(x)
    np.testing.assert_allclose(z.detach().cpu().numpy(), rz.detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(p.detach().cpu().numpy(), rp.detach().numpy(), rtol=1e-4, atol=1e-6)


def test_state_dict_round_trip():
    torch.manual_seed(3)
    data = export(SmallCNN(), (torch.randn(1, 3, 8, 8),), do_constant_folding=False)
    a, b = adept.onnx.load(data), adept.onnx.load(data)
    with adept.no_grad():
        for p in b.parameters():
            p.zero_()
    b.load_state_dict(a.state_dict())
    x = adept.randn(1, 3, 8, 8)
    np.testing.assert_array_equal(a(x).detach().numpy(), b(x).detach().numpy())


def test_two_unsupported_ops_raise_one_error_naming_both():
    class Bad(torch.nn.Module):
        def forward(self, x):
            grid = torch.zeros(1, 2, 2, 2)
            return torch.nn.functional.grid_sample(x, grid, align_corners=False) + torch.det(x[0, 0, :3, :3])

    with pytest.raises(adept.onnx.UnsupportedError) as e:
        adept.onnx.load(export(Bad(), (torch.randn(1, 1, 4, 4),)))
    assert isinstance(e.value, NotImplementedError)
    msg = str(e.value)
    assert "GridSample" in msg and "Det" in msg and "opset 17" in msg
    assert sorted(item[0] for item in e.value.items) == ["Det", "GridSample"]


def test_conv3d_and_an_einsum_diagonal_are_listed_at_load_with_the_unsupported_ops():
    """A 3-d Conv and an Einsum with a label repeated in one operand ("ii->i") were found only at the first
    forward; they are refused at load, in the one error that lists every unsupported node."""
    class Bad(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv3d(1, 2, 3)

        def forward(self, x, m):
            return self.conv(x), torch.einsum("ii->i", m), torch.det(m)

    with pytest.raises(adept.onnx.UnsupportedError) as e:
        adept.onnx.load(export(Bad(), (torch.randn(1, 1, 4, 4, 4), torch.randn(3, 3))))
    msg = str(e.value)
    assert "a 3-d convolution (1-d and 2-d are supported)" in msg, msg
    assert "equation 'ii->i' repeats label 'i' within one operand (a diagonal)" in msg, msg
    assert sorted(item[0] for item in e.value.items) == ["Conv", "Det", "Einsum"]


def test_half_runs_the_imported_model_in_float16(device):
    """model.half() / .to(float16): the graph input is expected in float16 and the exporter's Constant nodes
    (here the 0.5, the 1e-5 of the normalization and the interpolation's scales) follow the module, so the
    output is float16 and close to float32's."""
    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
            self.norm = torch.nn.GroupNorm(2, 4)

        def forward(self, x):
            y = self.norm(self.conv(x))
            return torch.nn.functional.interpolate(y, scale_factor=2.0) * 0.5 + y.mean()

    torch.manual_seed(11)
    net = Net().eval()
    x = torch.randn(1, 3, 8, 8)
    want = net(x).detach().numpy()
    for convert in (lambda m: m.half(), lambda m: m.to(adept.float16)):
        model = adept.onnx.load(export(net, (x,), input_names=["x"], do_constant_folding=False)).to(device)
        convert(model)
        assert all(p.dtype == adept.float16 for p in model.parameters())
        y = model(to_adept(x, device).half())
        assert y.dtype == adept.float16
        np.testing.assert_allclose(y.detach().float().cpu().numpy(), want, rtol=1e-2, atol=1e-2)
        with pytest.raises(adept.DtypeError, match="'x' must be float16, got float32 .the model declares float32"):
            model(to_adept(x, device))


def test_half_and_double_follow_on_a_graph_without_floating_point_parameters(device):
    """Relu -> nearest Upsample has no floating-point initializer (the scales are a Constant): half() / double()
    / to(dtype) still switch the graph's float dtype (they used to be ignored: a float16 input was refused as
    "must be float32")."""
    net = torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Upsample(scale_factor=2))
    x = torch.rand(1, 1, 2, 2) - 0.5
    data = export(net, (x,), input_names=["x"])
    want = net(x).numpy()
    for convert, dtype in ((lambda m: m.half(), adept.float16), (lambda m: m.double(), adept.float64),
                           (lambda m: m.to(adept.float16), adept.float16)):
        model = adept.onnx.load(data).to(device)
        assert not list(model.parameters())
        convert(model)
        y = model(to_adept(x, device).to(dtype))
        assert y.dtype == dtype
        np.testing.assert_allclose(y.float().cpu().numpy(), want, rtol=1e-3, atol=1e-3)
        with pytest.raises(adept.DtypeError, match="'x' must be"):
            model(to_adept(x, device))
        model.float()
        assert model(to_adept(x, device)).dtype == adept.float32


def test_load_takes_a_path_bytes_or_a_file_object(tmp_path):
    torch.manual_seed(10)
    data = export(SmallCNN(), (torch.randn(1, 3, 8, 8),))
    (tmp_path / "m.onnx").write_bytes(data)
    x = adept.randn(1, 3, 8, 8)
    want = adept.onnx.load(data)(x).detach().numpy()
    for source in (tmp_path / "m.onnx", str(tmp_path / "m.onnx"), io.BytesIO(data), bytearray(data)):
        np.testing.assert_array_equal(adept.onnx.load(source)(x).detach().numpy(), want)
    with pytest.raises(TypeError, match="binary file object"):
        adept.onnx.load(io.StringIO("text"))


def test_malformed_bytes_and_files_raise_io_errors(tmp_path):
    data = export(SmallCNN(), (torch.randn(1, 3, 8, 8),))
    with pytest.raises(OSError, match="not an ONNX model"):
        adept.onnx.load(data[: len(data) // 2])
    with pytest.raises(OSError, match="not an ONNX model"):
        adept.onnx.load(b"\xff" * 64)
    missing = tmp_path / "missing.onnx"
    with pytest.raises(OSError, match="missing.onnx"):
        adept.onnx.load(missing)
    with pytest.raises(TypeError):
        adept.onnx.load(3)


def test_wrong_inputs_name_the_graph_input():
    model = adept.onnx.load(export(SmallCNN(), (torch.randn(2, 3, 8, 8),), input_names=["image"]))
    with pytest.raises(ValueError, match="takes 1 input"):
        model(adept.randn(2, 3, 8, 8), adept.randn(2, 3, 8, 8))
    with pytest.raises(TypeError, match="'image' must be float32, got int64"):
        model(adept.zeros(2, 3, 8, 8, dtype=adept.int64))
    with pytest.raises(adept.ShapeError, match="'image' must have rank 4"):
        model(adept.randn(3, 8, 8))


class TinyUNet(torch.nn.Module):
    """Encoder / decoder with a transposed convolution, a bilinear resize, a skip concat and a residual add."""

    def __init__(self):
        super().__init__()
        self.enc = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.down = torch.nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.up = torch.nn.ConvTranspose2d(16, 8, 2, stride=2)
        self.head = torch.nn.Conv2d(16, 2, 1)

    def forward(self, x):
        e = torch.relu(self.enc(x))
        d = torch.relu(self.down(e))
        u = torch.cat([self.up(d), e], dim=1)
        y = self.head(u)
        return torch.nn.functional.interpolate(y, scale_factor=2, mode="bilinear", align_corners=False) + 1


@pytest.mark.parametrize("opset", [11, 13, 17])
def test_unet_with_conv_transpose_and_bilinear_resize_matches_torch(device, opset):
    torch.manual_seed(4)
    net = TinyUNet()
    x = torch.randn(1, 3, 12, 10)
    model = adept.onnx.load(export(net, (x,), opset=opset, do_constant_folding=False)).to(device)
    y = model(to_adept(x, device))
    ref = net(x)
    np.testing.assert_allclose(y.detach().cpu().numpy(), ref.detach().numpy(), rtol=1e-4, atol=1e-5)
    y.square().sum().backward()
    ref.square().sum().backward()
    params = dict(model.named_parameters())
    for name, p in net.named_parameters():
        np.testing.assert_allclose(params[name].grad.cpu().numpy(), p.grad.numpy(), rtol=1e-3, atol=1e-4,
                                   err_msg=name)


def test_batchnorm_exported_in_training_mode_normalizes_by_batch_and_updates_running_mean():
    torch.manual_seed(5)
    net = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.SiLU())
    x = torch.randn(2, 3, 6, 6)
    data = export(net, (x,), opset=15, training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)
    model = adept.onnx.load(data)
    assert "1.running_mean" in dict(model.named_buffers())
    y = model(to_adept(x))
    ref = net.train()(x)  # torch's training step: batch statistics, running stats updated
    np.testing.assert_allclose(y.detach().numpy(), ref.detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(dict(model.named_buffers())["1.running_mean"].numpy(), net[1].running_mean.numpy(),
                               rtol=1e-5, atol=1e-6)


class Rearrange(torch.nn.Module):
    """PixelShuffle (DepthToSpace, CRD) and cumsum (CumSum) as exported by torch."""

    def forward(self, x):
        return torch.nn.functional.pixel_shuffle(x, 2), torch.cumsum(x, 1), torch.cumsum(x.flip(3), 3).flip(3)


def test_depth_to_space_and_cumsum_match_torch(device):
    torch.manual_seed(6)
    x = torch.randn(1, 8, 3, 5)
    model = adept.onnx.load(export(Rearrange(), (x,))).to(device)
    for got, want in zip(model(to_adept(x, device)), Rearrange()(x)):
        np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-5, atol=1e-5)


def test_yolo11n_mirror_exported_in_training_mode_matches_torch_and_fine_tunes():
    """The PyTorch mirror of YOLO11n (tests/python/yolo_mirror.py: C2PSA attention exports as Einsum),
    exported in training mode so BatchNorm stays trainable: the three raw head maps equal torch's, and SGD
    steps on Adept's detection loss lower it. (The loss of a fresh model on one batch is noisy as the assigner
    changes its picks, for Adept's own YOLO11 too, so only the first steps are compared.)"""
    from yolo_mirror import Yolo11 as TorchYolo11

    torch.manual_seed(7)
    net = TorchYolo11("n", 4).train()
    x = torch.rand(2, 3, 64, 64)
    model = adept.onnx.load(export(net, (x,), training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False))
    maps = model(to_adept(x))
    assert len(maps) == 3
    for got, want in zip(maps, net(x)):
        assert tuple(got.shape) == tuple(want.shape)
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-3, atol=1e-3)
    targets = adept.tensor([[0, 1, 0.5, 0.5, 0.4, 0.3], [1, 3, 0.3, 0.6, 0.2, 0.5]])
    crit = adept.models.DetectionLoss(4)
    opt = adept.optim.SGD(model.parameters(), lr=0.01)
    losses = []
    for _ in range(3):
        loss, _ = crit(list(model(to_adept(x))), targets)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert max(losses[1:]) < losses[0], losses


@pytest.mark.parametrize("equation,shapes", [
    ("bhdn,bhdm->bhnm", [(2, 2, 3, 4), (2, 2, 3, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("bij->bji", [(2, 3, 4)]),
    ("i,i->", [(4,), (4,)]),
    ("ab,bc,cd->ad", [(2, 3), (3, 4), (4, 5)]),
])
def test_einsum_matches_torch(equation, shapes):
    class E(torch.nn.Module):
        def forward(self, *xs):
            return torch.einsum(equation, *xs)

    torch.manual_seed(8)
    xs = [torch.randn(*s) for s in shapes]
    model = adept.onnx.load(export(E(), tuple(xs)))
    got = model(*[to_adept(x) for x in xs])
    np.testing.assert_allclose(got.numpy(), E()(*xs).numpy(), rtol=1e-5, atol=1e-5)


class ResidualNet(torch.nn.Module):
    """ResNet-style: stem, a basic block with a projection shortcut, global average pool, linear head."""

    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 7, 2, 3, bias=False), torch.nn.BatchNorm2d(8),
                                        torch.nn.ReLU(), torch.nn.MaxPool2d(3, 2, 1))
        self.body = torch.nn.Sequential(torch.nn.Conv2d(8, 16, 3, 2, 1, bias=False), torch.nn.BatchNorm2d(16),
                                        torch.nn.ReLU(), torch.nn.Conv2d(16, 16, 3, 1, 1, bias=False),
                                        torch.nn.BatchNorm2d(16))
        self.short = torch.nn.Sequential(torch.nn.Conv2d(8, 16, 1, 2, bias=False), torch.nn.BatchNorm2d(16))
        self.fc = torch.nn.Linear(16, 10)

    def forward(self, x):
        x = self.stem(x)
        x = torch.relu(self.body(x) + self.short(x))
        return self.fc(torch.flatten(torch.nn.functional.adaptive_avg_pool2d(x, 1), 1))


class MiscOps(torch.nn.Module):
    """Ops the node tests do not cover: LayerNormalization, InstanceNormalization, ScatterElements, TopK, Tile,
    reflect / edge Pad."""

    def __init__(self):
        super().__init__()
        self.ln = torch.nn.LayerNorm(5)
        self.inorm = torch.nn.InstanceNorm2d(3, affine=True)

    def forward(self, x):
        idx = torch.tensor([[0, 2, 1, 4, 3]]).expand(3 * 4, 5).reshape(3, 4, 5)
        scattered = torch.zeros(3, 4, 5).scatter(2, idx, x[0])
        values, indices = torch.topk(x[0], 2, dim=-1)
        padded = torch.nn.functional.pad(x, (1, 2, 2, 1), mode="reflect")
        edge = torch.nn.functional.pad(x, (2, 0, 0, 1), mode="replicate")
        return self.ln(x), self.inorm(x), scattered, values, indices, x.repeat(1, 2, 1, 3), padded, edge


@pytest.mark.parametrize("net,shape", [(ResidualNet, (2, 3, 32, 32)), (MiscOps, (1, 3, 4, 5))])
def test_more_torch_exports_match(device, net, shape):
    torch.manual_seed(9)
    net = net().eval()
    for mod in net.modules():
        if isinstance(mod, torch.nn.BatchNorm2d):
            with torch.no_grad():
                mod.running_mean.uniform_(-0.5, 0.5)
                mod.running_var.uniform_(0.5, 1.5)
    x = torch.randn(*shape)
    model = adept.onnx.load(export(net, (x,))).to(device)
    got = model(to_adept(x, device))
    want = net(x)
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.detach().cpu().numpy(), w.detach().numpy(), rtol=1e-4, atol=1e-5)
