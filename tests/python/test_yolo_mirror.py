"""Adept's YOLO11 against the PyTorch mirror (yolo_mirror.py) with identical weights: equal state-dict
keys, eval-mode decoded outputs, train-mode raw maps, BN running stats after a training forward and
gradients of a weighted sum of the raw maps with respect to every parameter."""
import numpy as np
import pytest
import torch

import adept
import adept.models
from yolo_mirror import Yolo11 as TorchYolo11

# One torch thread: with several, torch's OpenMP pool spins and starves Adept's own pool on a
# shared machine (both ran 10-50x slower).
torch.set_num_threads(1)

CASES = [("n", (64, 64)), ("n", (96, 128)), ("s", (64, 64)), ("s", (96, 128))]


def make_pair(scale, nc, seed):
    """An Adept model with random weights (BN affine and running stats and the class biases also
    randomised, so eval mode exercises them) and the torch mirror loaded with the same values."""
    adept.manual_seed(seed)
    ours = adept.models.yolo11(scale, nc)
    rng = np.random.default_rng(seed)
    state = {k: v.numpy().copy() for k, v in ours.state_dict().items()}
    for k, v in state.items():
        if k.endswith("bn.weight"):
            state[k] = rng.uniform(0.5, 1.5, v.shape).astype(v.dtype)
        elif k.endswith("bn.bias") or k.endswith("running_mean"):
            state[k] = rng.uniform(-0.3, 0.3, v.shape).astype(v.dtype)
        elif k.endswith("running_var"):
            state[k] = rng.uniform(0.5, 2.0, v.shape).astype(v.dtype)
        elif k.startswith("model.23.cv3.") and k.endswith(".2.bias"):
            state[k] = rng.uniform(-3.0, 1.0, v.shape).astype(v.dtype)
    ours.load_state_dict({k: adept.from_numpy(v) for k, v in state.items()})
    mirror = TorchYolo11(scale, nc)
    theirs = mirror.state_dict()
    assert set(theirs) == set(state)
    for k, v in theirs.items():
        assert tuple(v.shape) == state[k].shape, k
    mirror.load_state_dict({k: torch.from_numpy(v) for k, v in state.items()})
    return ours, mirror


def images(shape, seed):
    return np.random.default_rng(seed).uniform(0, 1, (2, 3) + shape).astype(np.float32)


def assert_close(ours, theirs, rtol=1e-4, atol=1e-4, what=""):
    np.testing.assert_allclose(ours.detach().numpy() if hasattr(ours, "detach") else ours,
                               theirs.detach().numpy(), rtol=rtol, atol=atol, err_msg=what)


def test_initial_state_matches_the_sheet():
    ours = adept.models.yolo11("n", 80)
    mirror = TorchYolo11("n", 80)
    assert sum(p.numel() for p in ours.parameters()) == 2624080
    assert sum(p.numel() for p in mirror.parameters()) == 2624080
    sd = ours.state_dict()
    msd = mirror.state_dict()
    for k in msd:  # initial (non-random) tensors agree: BN, DFL, head biases
        if "bn." in k or "dfl" in k or k.endswith(".2.bias"):
            np.testing.assert_allclose(sd[k].numpy(), msd[k].numpy(), rtol=1e-6, err_msg=k)
    assert not ours.model[23].dfl.conv.weight.requires_grad


@pytest.mark.parametrize("scale,shape", CASES)
def test_eval_outputs_equal(scale, shape):
    ours, mirror = make_pair(scale, 80, seed=1)
    ours.eval()
    mirror.eval()
    x = images(shape, 2)
    out = ours(adept.from_numpy(x))
    with torch.no_grad():
        ref = mirror(torch.from_numpy(x))
    anchors = sum((shape[0] // s) * (shape[1] // s) for s in (8, 16, 32))
    assert tuple(out.shape) == (2, 84, anchors) == tuple(ref.shape)
    assert_close(out[:, :4], ref[:, :4], rtol=1e-4, atol=1e-3, what="boxes")
    assert_close(out[:, 4:], ref[:, 4:], what="class scores")
    assert float(ref[:, 4:].std()) > 1e-3  # the scores are not saturated


# float32 rounding is amplified by batch statistics over few values (P5 is 2x2 at 64x64), hence
# atol 5e-4 there; the float64 case shows the computations agree to rounding.
TRAIN_CASES = ([(scale, shape, np.float32, 1e-4, 5e-4) for scale, shape in CASES]
               + [("n", (64, 96), np.float64, 1e-9, 1e-9)])


@pytest.mark.parametrize("scale,shape,dtype,rtol,atol", TRAIN_CASES)
def test_train_maps_and_running_stats_equal(scale, shape, dtype, rtol, atol):
    ours, mirror = make_pair(scale, 7, seed=3)
    if dtype == np.float64:
        ours.double()
        mirror.double()
    ours.train()
    mirror.train()
    x = images(shape, 4).astype(dtype)
    maps = ours(adept.from_numpy(x))
    with torch.no_grad():
        ref = mirror(torch.from_numpy(x))
    assert len(maps) == len(ref) == 3
    for i, (m, r) in enumerate(zip(maps, ref)):
        assert tuple(m.shape) == tuple(r.shape) == (2, 64 + 7, shape[0] // 8 >> i, shape[1] // 8 >> i)
        assert_close(m, r, rtol=rtol, atol=atol, what=f"map {i}")
    theirs = mirror.state_dict()
    for k, v in ours.state_dict().items():
        if "running" in k or "num_batches" in k:
            np.testing.assert_allclose(v.numpy(), theirs[k].numpy(), rtol=rtol, atol=atol / 10, err_msg=k)


# Some gradients are zero in exact arithmetic (a per-channel bias followed only by 1x1 convs and a
# training-mode BN, which removes per-channel shifts); both sides then hold rounding noise, so the
# absolute tolerance includes a small fraction of the model's largest gradient.
GRAD_CASES = [("n", (64, 64), np.float32, 1e-3, 1e-7), ("s", (96, 128), np.float32, 1e-3, 1e-7),
              ("n", (64, 96), np.float64, 1e-8, 1e-13)]


@pytest.mark.parametrize("scale,shape,dtype,rtol,floor", GRAD_CASES)
def test_gradients_equal(scale, shape, dtype, rtol, floor):
    ours, mirror = make_pair(scale, 5, seed=5)
    if dtype == np.float64:
        ours.double()
        mirror.double()
    x = images(shape, 6).astype(dtype)
    maps = ours(adept.from_numpy(x))
    ref = mirror(torch.from_numpy(x))
    rng = np.random.default_rng(7)
    weights = [rng.standard_normal(tuple(r.shape)).astype(dtype) for r in ref]
    loss = sum((m * adept.from_numpy(w)).sum() for m, w in zip(maps, weights))
    ref_loss = sum((r * torch.from_numpy(w)).sum() for r, w in zip(ref, weights))
    loss.backward()
    ref_loss.backward()
    np.testing.assert_allclose(loss.item(), ref_loss.item(), rtol=rtol)
    theirs = dict(mirror.named_parameters())
    assert set(k for k, _ in ours.named_parameters()) == set(theirs)
    global_max = max(float(t.grad.abs().max()) for t in theirs.values() if t.grad is not None)
    for k, p in ours.named_parameters():
        t = theirs[k]
        if not t.requires_grad:  # the frozen DFL weights
            assert p.grad is None and not p.requires_grad, k
            continue
        g, tg = p.grad.numpy(), t.grad.numpy()
        np.testing.assert_allclose(g, tg, rtol=rtol, atol=rtol * float(np.abs(tg).max()) + floor * global_max,
                                   err_msg=k)


def replace_activations(model, make):
    """Sets every Conv block's `act` child to make() (what a user does to try another activation)."""
    for name in [n for n, _ in model.named_modules() if n.endswith(".act")]:
        parent = model
        for part in name.split(".")[:-1]:
            parent = parent[int(part)] if part.isdigit() else getattr(parent, part)
        parent.act = make()


@pytest.mark.parametrize("train", [False, True], ids=["eval", "train"])
def test_replaced_activations_are_used(train):
    # Conv runs the `act` child it holds now (in training, and folded with BN in evaluation), like the mirror.
    ours, mirror = make_pair("n", 80, seed=8)
    replace_activations(ours, adept.nn.Hardswish)
    replace_activations(mirror, torch.nn.Hardswish)
    ours.train(train)
    mirror.train(train)
    x = images((64, 64), 9)
    with adept.no_grad():
        out = ours(adept.from_numpy(x))
    with torch.no_grad():
        ref = mirror(torch.from_numpy(x))
    for o, r in zip(out if train else [out], ref if train else [ref]):
        assert_close(o, r, rtol=1e-4, atol=1e-3)


def test_summary():
    s = adept.models.summary(adept.models.yolo11("n", 80), imgsz=640, verbose=False)
    assert s["params"] == 2624080 and s["gradients"] == 2624064
    assert abs(s["gflops"] - 6.48) < 0.01
    assert [r["params"] for r in s["layers"]][:3] == [464, 4672, 6640]
    assert s["layers"][23]["from"] == [16, 19, 22] and s["layers"][23]["module"] == "Detect"


def test_bad_input_raises():
    model = adept.models.yolo11("n", 80)
    with pytest.raises(ValueError):
        model(adept.zeros(1, 3, 64, 48))
    with pytest.raises(ValueError):
        adept.models.yolo11("q", 80)
