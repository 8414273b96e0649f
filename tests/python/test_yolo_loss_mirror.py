"""Adept's YOLO11 detection loss against our PyTorch loss mirror (yolo_loss_mirror.py) on the same
model weights (the YOLO11 mirror of test_yolo_mirror.py): equal assignments, equal loss items and
equal gradients of every parameter for a fixed batch that includes an image without targets, plus
a batch without any targets. This is the test that catches training bugs."""
import numpy as np
import pytest
import torch

import adept
import adept.models
from test_yolo_mirror import make_pair
from yolo_loss_mirror import assign, detection_loss, make_anchors

torch.set_num_threads(1)

# Image 1 has no targets; boxes of several sizes and classes, one near a border, two overlapping.
TARGETS = np.array([[0, 1, 0.50, 0.50, 0.40, 0.60],
                    [0, 2, 0.25, 0.30, 0.20, 0.25],
                    [0, 0, 0.55, 0.45, 0.30, 0.35],
                    [2, 0, 0.70, 0.60, 0.50, 0.50],
                    [2, 2, 0.12, 0.88, 0.22, 0.20],
                    [2, 1, 0.40, 0.30, 0.70, 0.15]], dtype=np.float32)

# (nc, image shape, dtype, rtol of the loss items, rtol of the gradients): float32 as trained, and
# float64 where both sides agree to rounding.
CASES = [(80, (64, 64), np.float32, 1e-4, 1e-3), (80, (128, 96), np.float32, 1e-4, 1e-3),
         (3, (64, 64), np.float32, 1e-4, 1e-3), (3, (128, 96), np.float32, 1e-4, 1e-3),
         (3, (64, 96), np.float64, 1e-10, 1e-8)]


def run_pair(nc, shape, seed, targets, dtype=np.float32):
    ours, mirror = make_pair("n", nc, seed)
    if dtype == np.float64:
        ours.double()
        mirror.double()
    ours.train()
    mirror.train()
    x = np.random.default_rng(seed + 1).uniform(0, 1, (3, 3) + shape).astype(dtype)
    t = targets.copy()
    t[:, 1] = t[:, 1] % nc
    maps = ours(adept.from_numpy(x))
    ref = mirror(torch.from_numpy(x))
    return ours, mirror, maps, ref, t


def compare_gradients(ours, mirror, rtol=1e-3, floor=1e-6):
    theirs = dict(mirror.named_parameters())
    grads = {k: (t.grad.numpy() if t.grad is not None else np.zeros(tuple(t.shape)))
             for k, t in theirs.items() if t.requires_grad}
    global_max = max(float(np.abs(g).max()) for g in grads.values())
    assert global_max > 0
    for k, p in ours.named_parameters():
        if k not in grads:
            continue
        g = p.grad.numpy() if p.grad is not None else np.zeros(tuple(p.shape))
        tg = grads[k]
        np.testing.assert_allclose(g, tg, rtol=rtol, atol=rtol * float(np.abs(tg).max()) + floor * global_max,
                                   err_msg=k)


@pytest.mark.parametrize("nc,shape,dtype,rtol,grad_rtol", CASES)
def test_loss_items_and_gradients_equal(nc, shape, dtype, rtol, grad_rtol):
    ours, mirror, maps, ref, t = run_pair(nc, shape, seed=21, targets=TARGETS, dtype=dtype)
    loss, items = adept.models.DetectionLoss(ours)(maps, adept.from_numpy(t))
    ref_loss, ref_items = detection_loss(ref, torch.from_numpy(t), nc)
    assert float(ref_items.min()) > 0  # every term is exercised
    np.testing.assert_allclose(items.numpy(), ref_items.numpy(), rtol=rtol)
    np.testing.assert_allclose(loss.item(), ref_loss.item(), rtol=rtol)
    loss.backward()
    ref_loss.backward()
    compare_gradients(ours, mirror, rtol=grad_rtol, floor=1e-6 if dtype == np.float32 else 1e-12)


def test_assignment_equal():
    ours, mirror, maps, ref, t = run_pair(3, (128, 96), seed=22, targets=TARGETS)
    B, nc, R = 3, 3, 16
    pred = torch.cat([r.detach().flatten(2) for r in ref], 2).permute(0, 2, 1)
    A = pred.shape[1]
    anchors, st = make_anchors([r.shape[2:] for r in ref], (8, 16, 32), torch.float32)
    dist = (pred[..., :4 * R].reshape(B, A, 4, R).softmax(-1) * torch.arange(R, dtype=torch.float32)).sum(-1)
    pboxes = torch.cat([anchors - dist[..., :2], anchors + dist[..., 2:]], -1) * st
    scores = pred[..., 4 * R:].sigmoid()
    labels = torch.tensor([[1, 2, 0], [0, 0, 0], [0, 2, 1]])
    gt = torch.tensor(t[:, 2:]).reshape(2, 3, 4) * torch.tensor([96.0, 128.0, 96.0, 128.0])
    gt = torch.cat([gt[..., :2] - gt[..., 2:] / 2, gt[..., :2] + gt[..., 2:] / 2], -1)
    gboxes = torch.stack([gt[0], torch.zeros(3, 4), gt[1]])
    mask = torch.tensor([[True] * 3, [False] * 3, [True] * 3])
    fg, idx, tb, ts = assign(scores, pboxes, anchors * st, labels, gboxes, mask)
    a_fg, a_idx, a_tb, a_ts = adept.models._C._models.task_aligned_assign(
        *(adept.from_numpy(v.numpy()) for v in (scores, pboxes, anchors * st, labels, gboxes, mask)))
    assert int(fg.sum()) > 5
    np.testing.assert_array_equal(a_fg.numpy(), fg.numpy())
    np.testing.assert_array_equal(a_idx.numpy(), idx.numpy())
    np.testing.assert_allclose(a_tb.numpy(), tb.numpy())
    np.testing.assert_allclose(a_ts.numpy(), ts.numpy(), rtol=1e-5, atol=1e-7)


def test_batch_without_targets_equal():
    ours, mirror, maps, ref, t = run_pair(3, (64, 64), seed=23, targets=TARGETS[:0])
    loss, items = adept.models.DetectionLoss(ours)(maps, adept.from_numpy(t))
    ref_loss, ref_items = detection_loss(ref, torch.from_numpy(t), 3)
    assert items.numpy()[0] == 0 and items.numpy()[2] == 0 and np.isfinite(loss.item())
    np.testing.assert_allclose(items.numpy(), ref_items.numpy(), rtol=1e-4)
    loss.backward()
    ref_loss.backward()
    compare_gradients(ours, mirror)


def test_class_weights_equal():
    ours, mirror, maps, ref, t = run_pair(3, (64, 64), seed=24, targets=TARGETS)
    w = np.array([0.5, 2.0, 1.0], np.float32)
    crit = adept.models.DetectionLoss(ours)
    crit.class_weights = adept.from_numpy(w)
    _, items = crit(maps, adept.from_numpy(t))
    _, ref_items = detection_loss(ref, torch.from_numpy(t), 3, class_weights=torch.from_numpy(w))
    np.testing.assert_allclose(items.numpy(), ref_items.numpy(), rtol=1e-4)
