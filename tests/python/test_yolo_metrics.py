"""Detection post-processing and COCO metrics against plain-NumPy references written from the
definitions (pycocotools' COCOeval.evaluateImg/accumulate for bbox and area "all"; Ultralytics'
non_max_suppression with the class-offset trick). pycocotools and torchvision are not installed here."""
import numpy as np
import pytest

import adept
from adept.models import DetectionMetrics, box_iou, non_max_suppression, scale_boxes

IOU_THRS = np.linspace(0.5, 0.95, 10)
REC_THRS = np.linspace(0.0, 1.0, 101)


def np_iou(a, b):
    """(N, 4), (M, 4) xyxy -> (N, M), as pycocotools' bbIou (no eps, 0 without overlap)."""
    iw = np.minimum(a[:, None, 2], b[None, :, 2]) - np.maximum(a[:, None, 0], b[None, :, 0])
    ih = np.minimum(a[:, None, 3], b[None, :, 3]) - np.maximum(a[:, None, 1], b[None, :, 1])
    inter = np.where((iw > 0) & (ih > 0), iw * ih, 0.0)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return inter / (area_a[:, None] + area_b[None, :] - inter)


def coco_reference(images, max_dets=None):
    """images: list of (preds (n, 6), gts (m, 5)). Returns {class: (T,) AP} for classes with gt,
    the pycocotools way: per image and class greedy matching by score, then per class the monotone
    precision sampled at 101 recall points (searchsorted left)."""
    classes = sorted({int(c) for _, g in images for c in g[:, 0]} | {int(c) for p, _ in images for c in p[:, 5]})
    out = {}
    for k in classes:
        scores, matches, npig = [], [], 0
        for p, g in images:
            d = p[p[:, 5] == k]
            gt = g[g[:, 0] == k][:, 1:5]
            npig += len(gt)
            d = d[np.argsort(-d[:, 4], kind="mergesort")]
            if max_dets:
                d = d[:max_dets]
            ious = np_iou(d[:, :4], gt) if len(d) and len(gt) else np.zeros((len(d), len(gt)))
            dtm = np.zeros((len(IOU_THRS), len(d)))
            for t, thr in enumerate(IOU_THRS):
                gtm = np.zeros(len(gt))
                for di in range(len(d)):
                    iou, m = min(thr, 1 - 1e-10), -1
                    for gi in range(len(gt)):
                        if gtm[gi] > 0 or ious[di, gi] < iou:
                            continue
                        iou, m = ious[di, gi], gi
                    if m >= 0:
                        gtm[m] = 1
                        dtm[t, di] = 1
            scores.append(d[:, 4])
            matches.append(dtm)
        if npig == 0:
            continue
        sc = np.concatenate(scores)
        inds = np.argsort(-sc, kind="mergesort")
        dtm = np.concatenate(matches, axis=1)[:, inds]
        tp_sum = np.cumsum(dtm, axis=1)
        fp_sum = np.cumsum(1 - dtm, axis=1)
        ap = np.zeros(len(IOU_THRS))
        for t in range(len(IOU_THRS)):
            tp, fp = tp_sum[t], fp_sum[t]
            rc = tp / npig
            pr = (tp / (fp + tp + np.spacing(1))).tolist()
            for i in range(len(tp) - 1, 0, -1):
                if pr[i] > pr[i - 1]:
                    pr[i - 1] = pr[i]
            q = np.zeros(len(REC_THRS))
            for ri, pi in enumerate(np.searchsorted(rc, REC_THRS, side="left")):
                if pi >= len(pr):
                    break
                q[ri] = pr[pi]
            ap[t] = q.mean()
        out[k] = ap
    return out


def synthetic_images(seed, n_images=12, nc=4):
    rng = np.random.default_rng(seed)
    images = []
    for _ in range(n_images):
        m = rng.integers(0, 7)
        xy = rng.uniform(0, 500, (m, 2))
        wh = rng.uniform(10, 120, (m, 2))
        gt = np.concatenate([rng.integers(0, nc, (m, 1)), xy, xy + wh], 1).astype(np.float32).astype(np.float64)
        preds = []
        for row in gt:  # jittered detections (sometimes a duplicate, sometimes a wrong class)
            for _ in range(rng.integers(0, 3)):
                box = row[1:5] + rng.normal(0, 0.12, 4) * np.repeat(row[3:5] - row[1:3], 2)
                cls = row[0] if rng.uniform() > 0.15 else rng.integers(0, nc)
                preds.append([*box, rng.uniform(0.01, 1), cls])
        for _ in range(rng.integers(0, 4)):  # background false positives
            x, y = rng.uniform(0, 500, 2)
            w, h = rng.uniform(10, 100, 2)
            preds.append([x, y, x + w, y + h, rng.uniform(0.01, 0.6), rng.integers(0, nc)])
        p = np.array(preds, dtype=np.float32).reshape(-1, 6).astype(np.float64)
        images.append((p, gt))
    return images


def run_adept(images, max_dets=0):
    m = DetectionMetrics(max_dets)
    for p, g in images:
        m.update(adept.tensor(p), adept.tensor(g))
    return m.compute()


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("max_dets", [0, 1])
def test_coco_map_matches_reference(seed, max_dets):
    images = synthetic_images(seed)
    ref = coco_reference(images, max_dets or None)
    r = run_adept(images, max_dets)
    assert r["classes"] == sorted(ref)
    ref_ap = np.array([ref[k] for k in r["classes"]])
    np.testing.assert_allclose(np.array(r["ap"]), ref_ap, atol=1e-6, rtol=0)
    np.testing.assert_allclose(r["map50"], ref_ap[:, 0].mean(), atol=1e-6, rtol=0)
    np.testing.assert_allclose(r["map75"], ref_ap[:, 5].mean(), atol=1e-6, rtol=0)
    np.testing.assert_allclose(r["map50_95"], ref_ap.mean(), atol=1e-6, rtol=0)
    assert 0 < r["map50_95"] < r["map50"] < 1  # the synthetic data is neither trivial nor hopeless
    np.testing.assert_allclose(r["iou_thresholds"], IOU_THRS, atol=0, rtol=0)
    assert r["images"] == len(images)
    assert r["instances"] == sum(len(g) for _, g in images)


def matches_at_50(images, k):
    """Scores and IoU-0.5 TP flags of class k's detections (pycocotools' greedy matching)."""
    scores, tps = [], []
    for p, g in images:
        d = p[p[:, 5] == k]
        d = d[np.argsort(-d[:, 4], kind="mergesort")]
        gt = g[g[:, 0] == k][:, 1:5]
        ious = np_iou(d[:, :4], gt) if len(d) and len(gt) else np.zeros((len(d), len(gt)))
        used = np.zeros(len(gt), bool)
        for di in range(len(d)):
            iou, m = 0.5, -1
            for gi in range(len(gt)):
                if not used[gi] and ious[di, gi] >= iou:
                    iou, m = ious[di, gi], gi
            if m >= 0:
                used[m] = True
            tps.append(m >= 0)
        scores.extend(d[:, 4])
    return np.array(scores), np.array(tps, bool)


@pytest.mark.parametrize("seed", range(3))
def test_precision_recall_at_best_f1(seed):
    images = synthetic_images(seed)
    r = run_adept(images)
    per_class = [matches_at_50(images, k) for k in r["classes"]]

    def pr_at(conf):
        p, rc = [], []
        for (s, tp), n_gt in zip(per_class, r["n_instances"]):
            keep = s >= conf
            p.append(tp[keep].sum() / keep.sum() if keep.any() else 1.0)
            rc.append(tp[keep].sum() / n_gt)
        return np.array(p), np.array(rc)

    mean_f1 = []
    for j in range(1000):
        p, rc = pr_at(j / 1000)
        mean_f1.append(np.mean(2 * p * rc / (p + rc + 1e-16)))
    best = int(np.argmax(mean_f1))
    assert r["best_conf"] == pytest.approx(best / 1000, abs=1e-12)
    p, rc = pr_at(best / 1000)
    np.testing.assert_allclose(r["precision"], p, atol=1e-9)
    np.testing.assert_allclose(r["recall"], rc, atol=1e-9)
    assert r["mp"] == pytest.approx(p.mean(), abs=1e-9) and r["mr"] == pytest.approx(rc.mean(), abs=1e-9)


def test_table_and_reset():
    images = synthetic_images(0)
    m = DetectionMetrics()
    for p, g in images:
        m.update(adept.tensor(p), adept.tensor(g))
    t = m.table(["circle", "square", "triangle", "star"])
    assert "all" in t.splitlines()[1] and "mAP50-95" in t.splitlines()[0]
    m.reset()
    assert m.images == 0 and m.compute()["classes"] == []
    with pytest.raises(adept.ShapeError):
        m.update(adept.zeros(3, 5), adept.zeros(0, 5))


# --- NMS -------------------------------------------------------------------------------------


def nms_reference(pred, conf_thres, iou_thres, agnostic, multi_label, max_det, max_nms=30000):
    """Ultralytics' non_max_suppression in NumPy (class offset 7680, greedy NMS, IoU > thres)."""
    nc = pred.shape[1] - 4
    out = []
    for x in pred.transpose(0, 2, 1):
        box = np.concatenate([x[:, :2] - x[:, 2:4] / 2, x[:, :2] + x[:, 2:4] / 2], 1)
        cls = x[:, 4:]
        if multi_label and nc > 1:
            i, j = np.nonzero(cls > conf_thres)
            c = np.concatenate([box[i], cls[i, j][:, None], j[:, None].astype(np.float64)], 1)
        else:
            j = cls.argmax(1)
            conf = cls[np.arange(len(cls)), j]
            c = np.concatenate([box, conf[:, None], j[:, None].astype(np.float64)], 1)[conf > conf_thres]
        c = c[np.argsort(-c[:, 4], kind="stable")][:max_nms]
        boxes = c[:, :4] + c[:, 5:6] * (0 if agnostic else 7680)
        keep, removed = [], np.zeros(len(c), bool)
        for i in range(len(c)):
            if removed[i]:
                continue
            keep.append(i)
            removed |= np_iou(boxes[i : i + 1], boxes)[0] > iou_thres
        out.append(c[keep[:max_det]])
    return out


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("agnostic,multi_label", [(False, False), (True, False), (False, True)])
def test_nms_matches_reference(seed, agnostic, multi_label):
    rng = np.random.default_rng(seed)
    b, nc, a = 2, 3, 400
    xy = rng.uniform(0, 200, (b, 2, a))
    wh = rng.uniform(5, 60, (b, 2, a))
    scores = rng.uniform(0, 1, (b, nc, a)) ** 3
    pred = np.concatenate([xy, wh, scores], 1).astype(np.float32)
    conf = 0.05 if multi_label else 0.25
    got = non_max_suppression(adept.tensor(pred), conf_thres=conf, iou_thres=0.5, agnostic=agnostic,
                              multi_label=multi_label, max_det=50)
    ref = nms_reference(pred.astype(np.float64), conf, 0.5, agnostic, multi_label, 50)
    assert len(got) == b
    for g, r in zip(got, ref):
        g = g.numpy()
        assert g.shape == r.shape and g.shape[0] > 5
        np.testing.assert_allclose(g, r, rtol=1e-6, atol=1e-4)


def test_nms_classes_filter_and_empty():
    pred = np.zeros((1, 6, 3), np.float32)
    pred[0, :4] = [[10, 50, 90], [10, 10, 10], [8, 8, 8], [8, 8, 8]]
    pred[0, 4:] = [[0.9, 0.1, 0.8], [0.2, 0.7, 0.1]]
    out = non_max_suppression(adept.tensor(pred), classes=[1])[0].numpy()
    assert out.shape == (1, 6) and out[0, 5] == 1 and abs(out[0, 4] - 0.7) < 1e-6
    assert non_max_suppression(adept.tensor(pred), conf_thres=0.95)[0].shape == (0, 6)
    with pytest.raises(adept.ShapeError):
        non_max_suppression(adept.zeros(6, 3))


def test_box_iou_and_scale_boxes():
    rng = np.random.default_rng(0)
    a = rng.uniform(0, 50, (5, 2))
    a = np.concatenate([a, a + rng.uniform(1, 30, (5, 2))], 1)
    b = rng.uniform(0, 50, (4, 2))
    b = np.concatenate([b, b + rng.uniform(1, 30, (4, 2))], 1)
    np.testing.assert_allclose(box_iou(adept.tensor(a), adept.tensor(b)).numpy(), np_iou(a, b), atol=1e-6)
    # Letterbox 375 x 500 (h, w) into 640: gain 1.28, new 480 x 640, pad (0, 80).
    orig = np.array([[12.0, 30.0, 200.0, 300.0, 0.5, 2.0]])
    boxed = orig.copy()
    boxed[:, [0, 2]] = orig[:, [0, 2]] * 1.28
    boxed[:, [1, 3]] = orig[:, [1, 3]] * 1.28 + 80
    back = scale_boxes(adept.tensor(boxed), [375, 500], input_shape=[640, 640]).numpy()
    np.testing.assert_allclose(back, orig, atol=1e-9)
    back = scale_boxes(adept.tensor(boxed), [375, 500], ratio_pad=adept.tensor([1.28, 0.0, 80.0])).numpy()
    np.testing.assert_allclose(back, orig, atol=1e-4)
