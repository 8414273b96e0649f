"""Adept's DataLoader next to torch.utils.data.DataLoader on the same machine, same datasets:

* payload: every sample is a ready (3, 640, 640) uint8 image, so the time is the loader itself
  (collate, moving batches out of the workers through shared memory, order bookkeeping);
* detection: adept.vision.DetectionDataset with YOLO11's training augmentation on coco128 (decode,
  mosaic, affine, HSV, flip) -- torch runs the very same dataset through a zero-copy view.

Ratio = Adept images/s / torch images/s (> 1: Adept faster). Writes JSON.
    PYTHONPATH=build/release/python OMP_NUM_THREADS=2 /usr/bin/python3 bench/loader/loader_vs_torch.py \
        --data ../shared/data/coco128 --out bench/results/loader_vs_torch_<machine>.json
"""
import argparse
import json
import os
import platform
import time

import torch
import torch.utils.data as tud

import adept
import adept.data as aud
import adept.vision


class AdeptPayload(aud.Dataset):
    def __init__(self, n, size):
        self.n, self.img = n, adept.zeros(3, size, size, dtype=adept.uint8)

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"img": self.img, "index": i}


class TorchPayload(tud.Dataset):
    def __init__(self, n, size):
        self.n, self.img = n, torch.zeros(3, size, size, dtype=torch.uint8)

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"img": self.img, "index": i}


class TorchView(tud.Dataset):
    """An Adept dataset seen from torch: its tensors as torch tensors (zero-copy through NumPy)."""

    def __init__(self, ds):
        self.ds = ds

    def __len__(self):
        return len(self.ds)

    def __getitem__(self, i):
        return {k: torch.from_numpy(v.numpy()) for k, v in self.ds[i].items()}


def torch_detection_collate(samples):
    """torch version of adept.vision.detection_collate: images stacked, targets (N, 6)."""
    targets = [torch.cat([torch.full((s["cls"].shape[0], 1), float(b)), s["cls"], s["bboxes"]], 1)
               for b, s in enumerate(samples)]
    return {"img": torch.stack([s["img"] for s in samples]), "targets": torch.cat(targets, 0)}


def images_per_second(loader, passes):
    secs = []
    for _ in range(passes):
        t0 = time.perf_counter()
        n = sum(b["img"].shape[0] for b in loader)
        secs.append(time.perf_counter() - t0)
    # The first pass forks the workers; the best later pass is the steady state.
    return n / min(secs[1:] if len(secs) > 1 else secs), secs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="../shared/data/coco128")
    ap.add_argument("--imgsz", type=int, default=640)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--workers", default="0,1,2")
    ap.add_argument("--out")
    a = ap.parse_args()
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    det = adept.vision.DetectionDataset(a.data, split="train", imgsz=a.imgsz, augment=True)
    cases = {
        "payload": (AdeptPayload(256, a.imgsz), None, TorchPayload(256, a.imgsz), None),
        "detection": (det, adept.vision.detection_collate, TorchView(det), torch_detection_collate),
    }
    result = {"benchmark": "loader_vs_torch", "machine": platform.processor() or platform.machine(),
              "cores": os.cpu_count(), "torch": torch.__version__, "imgsz": a.imgsz, "batch": a.batch,
              "data": a.data, "runs": []}
    for name, (ads, acol, tds, tcol) in cases.items():
        for w in [int(x) for x in a.workers.split(",")]:
            kw = dict(batch_size=a.batch, shuffle=True, num_workers=w, persistent_workers=w > 0)
            ours, ours_secs = images_per_second(aud.DataLoader(ads, collate_fn=acol, seed=0, **kw), a.passes)
            theirs, theirs_secs = images_per_second(tud.DataLoader(tds, collate_fn=tcol, **kw), a.passes)
            run = {"dataset": name, "num_workers": w, "adept_images_per_second": round(ours, 1),
                   "torch_images_per_second": round(theirs, 1), "ratio_adept_over_torch": round(ours / theirs, 3),
                   "adept_pass_seconds": ours_secs, "torch_pass_seconds": theirs_secs}
            print(json.dumps({k: v for k, v in run.items() if not k.endswith("seconds")}), flush=True)
            result["runs"].append(run)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
