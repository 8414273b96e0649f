"""Our own PyTorch implementation of the YOLO11 (v8) detection loss, written from the facts sheet
(../shared/docs/yolo11.md section 4) independently of Adept's C++ code: padded gts, a batched
task-aligned assigner (top-k over the alignment metric; one gt per anchor: its positive gt, or when
several claim it, the in-box gt of largest CIoU), CIoU box loss, DFL and BCE class loss with gains 7.5 / 0.5 / 1.5, normalised by
max(sum of target scores, 1) and multiplied by the batch size."""
import math

import torch
import torch.nn.functional as F


def make_anchors(sizes, strides, dtype, offset=0.5):
    points, stride_list = [], []
    for (h, w), s in zip(sizes, strides):
        sy, sx = torch.meshgrid(torch.arange(h, dtype=dtype) + offset, torch.arange(w, dtype=dtype) + offset,
                                indexing="ij")
        points.append(torch.stack([sx, sy], -1).reshape(-1, 2))
        stride_list.append(torch.full((h * w, 1), float(s), dtype=dtype))
    return torch.cat(points), torch.cat(stride_list)


def ciou(b1, b2, eps=1e-7):
    """CIoU of xyxy boxes (..., 4), broadcast; alpha without gradient."""
    ax1, ay1, ax2, ay2 = b1.unbind(-1)
    bx1, by1, bx2, by2 = b2.unbind(-1)
    w1, h1 = ax2 - ax1, ay2 - ay1 + eps
    w2, h2 = bx2 - bx1, by2 - by1 + eps
    inter = (torch.min(ax2, bx2) - torch.max(ax1, bx1)).clamp(min=0) * \
            (torch.min(ay2, by2) - torch.max(ay1, by1)).clamp(min=0)
    iou = inter / (w1 * h1 + w2 * h2 - inter + eps)
    c2 = (torch.max(ax2, bx2) - torch.min(ax1, bx1)) ** 2 + (torch.max(ay2, by2) - torch.min(ay1, by1)) ** 2 + eps
    rho2 = ((bx1 + bx2 - ax1 - ax2) ** 2 + (by1 + by2 - ay1 - ay2) ** 2) / 4
    v = (4 / math.pi ** 2) * (torch.atan(w2 / h2) - torch.atan(w1 / h1)) ** 2
    with torch.no_grad():
        alpha = v / (v - iou + (1 + eps))
    return iou - (rho2 / c2 + v * alpha)


@torch.no_grad()
def assign(scores, pboxes, anchors, labels, gboxes, mask, topk=10, alpha=0.5, beta=6.0, eps=1e-9):
    """scores (B, A, nc) probabilities, pboxes (B, A, 4) px, anchors (A, 2) px, labels (B, M),
    gboxes (B, M, 4) px, mask (B, M). Returns fg (B, A), gt index (B, A), target boxes (B, A, 4) and
    target scores (B, A, nc)."""
    B, A, nc = scores.shape
    M = labels.shape[1]
    if M == 0:
        return (torch.zeros(B, A, dtype=torch.bool), torch.full((B, A), -1), torch.zeros(B, A, 4, dtype=pboxes.dtype),
                torch.zeros(B, A, nc, dtype=scores.dtype))
    valid = mask & (gboxes.sum(-1) > 0)
    deltas = torch.cat([anchors[None, None] - gboxes[:, :, None, :2], gboxes[:, :, None, 2:] - anchors[None, None]], -1)
    cand = (deltas.amin(-1) > eps) & valid[..., None]                           # (B, M, A)
    zero = torch.zeros((), dtype=pboxes.dtype)
    iou = torch.where(cand, ciou(gboxes[:, :, None, :], pboxes[:, None, :, :]).clamp(min=0), zero)
    s = scores.gather(2, labels[:, None, :].expand(B, A, M)).permute(0, 2, 1)  # (B, M, A)
    t = torch.where(cand, s.pow(alpha) * iou.pow(beta), zero)
    top = torch.zeros_like(cand).scatter_(-1, t.topk(min(topk, A), dim=-1).indices, True)
    pos = top & cand
    # One gt per anchor: the positive one; with several, the largest CIoU over all in-box gts.
    single = torch.where(pos, iou, torch.full((), -1.0, dtype=iou.dtype)).argmax(1)  # (B, A): first largest
    best = torch.where(pos.sum(1) > 1, iou.argmax(1), single)
    fg = pos.any(1)
    pos = (torch.arange(M)[None, :, None] == best[:, None, :]) & fg[:, None, :]
    max_t = torch.where(pos, t, zero).amax(-1, keepdim=True)
    max_iou = torch.where(pos, iou, zero).amax(-1, keepdim=True)
    norm = torch.where(pos, t * max_iou / (max_t + eps), zero).amax(1)          # (B, A)
    gt_idx = torch.where(fg, best, torch.full_like(best, -1))
    tboxes = gboxes.gather(1, best[..., None].expand(B, A, 4)) * fg[..., None]
    tlabels = labels.gather(1, best)
    tscores = F.one_hot(tlabels, nc).to(scores.dtype) * (norm * fg)[..., None]
    return fg, gt_idx, tboxes, tscores


def pad_targets(targets, B, img_h, img_w, dtype):
    """(N, 6) normalised (image, class, cx, cy, w, h) -> labels (B, M), xyxy px (B, M, 4), mask (B, M);
    pixel boxes computed in float64 and rounded to dtype."""
    t = targets.to(torch.float64)
    img = t[:, 0].long()
    counts = torch.bincount(img, minlength=B) if len(t) else torch.zeros(B, dtype=torch.long)
    M = int(counts.max()) if B else 0
    labels = torch.zeros(B, M, dtype=torch.long)
    boxes = torch.zeros(B, M, 4, dtype=torch.float64)
    mask = torch.zeros(B, M, dtype=torch.bool)
    scale = torch.tensor([img_w, img_h, img_w, img_h], dtype=torch.float64)
    for b in range(B):
        rows = t[img == b]
        n = len(rows)
        labels[b, :n] = rows[:, 1].long()
        mask[b, :n] = True
        xywh = rows[:, 2:] * scale
        boxes[b, :n] = torch.cat([xywh[:, :2] - xywh[:, 2:] / 2, xywh[:, :2] + xywh[:, 2:] / 2], -1)
    return labels, boxes.to(dtype), mask


def detection_loss(maps, targets, nc, strides=(8, 16, 32), reg_max=16, class_weights=None,
                   gains=(7.5, 0.5, 1.5)):
    """Returns (total loss for backward, detached items [box, cls, dfl] with gains)."""
    B = maps[0].shape[0]
    dtype = maps[0].dtype
    pred = torch.cat([m.flatten(2) for m in maps], 2).permute(0, 2, 1)
    A = pred.shape[1]
    pdist, logits = pred.split([4 * reg_max, nc], -1)
    anchors, st = make_anchors([m.shape[2:] for m in maps], strides, dtype)
    dist = (pdist.reshape(B, A, 4, reg_max).softmax(-1) * torch.arange(reg_max, dtype=dtype)).sum(-1)
    pboxes = torch.cat([anchors - dist[..., :2], anchors + dist[..., 2:]], -1)
    labels, gboxes, mask = pad_targets(targets, B, maps[0].shape[2] * strides[0], maps[0].shape[3] * strides[0], dtype)
    fg, _, tboxes, tscores = assign(logits.detach().sigmoid(), pboxes.detach() * st, anchors * st, labels, gboxes, mask)
    S = max(float(tscores.sum()), 1.0)
    cls = F.binary_cross_entropy_with_logits(logits, tscores, weight=class_weights, reduction="sum") / S
    box = dfl = torch.zeros((), dtype=dtype)
    if fg.any():
        w = tscores.sum(-1)[fg]
        tb = (tboxes / st)[fg]
        box = ((1 - ciou(pboxes[fg], tb)) * w).sum() / S
        a = anchors.expand(B, A, 2)[fg]
        tdist = torch.cat([a - tb[:, :2], tb[:, 2:] - a], -1).clamp(0, reg_max - 1 - 0.01).reshape(-1)
        logp = F.log_softmax(pdist[fg].reshape(-1, reg_max), -1)
        left = tdist.floor().long()
        wl = left + 1 - tdist
        side = -(logp.gather(1, left[:, None])[:, 0] * wl + logp.gather(1, left[:, None] + 1)[:, 0] * (1 - wl))
        dfl = (side.reshape(-1, 4).mean(-1) * w).sum() / S
    items = torch.stack([box * gains[0], cls * gains[1], dfl * gains[2]])
    return items.sum() * B, items.detach()
