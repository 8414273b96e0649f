#!/usr/bin/env python3
"""Tunes the training defaults of the built-in shapes dataset with the PyTorch mirror of YOLO11.

Trains tests/python/yolo_mirror.py (weights copied from ``adept.models.yolo11("n", nc)``) with the
loss mirror tests/python/yolo_loss_mirror.py on batches of ``adept.vision.DetectionDataset`` +
``adept.data.DataLoader``, following Ultralytics' recipe (../shared/docs/yolo11.md section 5:
bias / weight / BN parameter groups, optimizer 'auto' rule, warmup of lr / momentum / bias lr and
of the accumulation, nominal batch, linear or cosine lf, EMA, close_mosaic, gradient clip 10), and
evaluates the EMA model on the val split with ``adept.models.non_max_suppression`` (conf 0.001,
IoU 0.7, multi-label) and ``adept.models.DetectionMetrics`` (COCO mAP).

    PYTHONPATH=build/release/python /usr/bin/python3 bench/yolo/tune_shapes.py run \
        --imgsz 160 --epochs 10 --log /tmp/tune.jsonl [--set key=value ...] [--device cuda]
    /usr/bin/python3 bench/yolo/tune_shapes.py summary --log /tmp/tune.jsonl \
        --out bench/results/shapes_tuning_intel-xeon-2cpu.json

Each run appends one JSON line (settings, mAP, seconds) to --log. Times are wall seconds of this
process on a shared machine; ``cpu_s`` (this process's CPU time) and the load average at start and
end tell how much other work ran meanwhile.
"""
import argparse
import copy
import json
import math
import os
import platform
import sys
import time
from pathlib import Path

# Before the imports: Adept's OpenMP pool (data loading, NMS, metrics) and torch's share libgomp; with
# the default (spinning) wait policy, OpenCV's TBB workers and OpenBLAS' threads on a loaded 2-core
# machine, a training step took 10-30x longer than with passive waiting (28 s vs 1 s at 160 px).
os.environ.setdefault("OMP_NUM_THREADS", "2")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "python"))

import adept  # noqa: E402
import adept.models  # noqa: E402
import adept.vision as V  # noqa: E402
from yolo_loss_mirror import detection_loss  # noqa: E402
from yolo_mirror import Yolo11  # noqa: E402

# Ultralytics' defaults (default.yaml, ../shared/docs/yolo11.md 5.1) plus the dataset sizes;
# `--set key=value` overrides any of them.
DEFAULTS = dict(
    train_images=1000, val_images=200, data_imgsz=None,  # data_imgsz None: generated at imgsz
    imgsz=160, epochs=10, batch=16, nbs=64, workers=0, seed=0,
    optimizer="auto", lr0=0.01, lrf=0.01, momentum=0.937, weight_decay=0.0005, cos_lr=False,
    warmup_epochs=3.0, warmup_min=100, warmup_momentum=0.8, warmup_bias_lr=0.1,
    close_mosaic=10, mosaic=1.0, scale=0.5, translate=0.1, degrees=0.0, fliplr=0.5, flipud=0.0,
    hsv_h=0.015, hsv_s=0.7, hsv_v=0.4, box=7.5, cls=0.5, dfl=1.5, ema_tau=2000.0, val_every=0,
)
AUG_KEYS = ("mosaic", "scale", "translate", "degrees", "fliplr", "flipud", "hsv_h", "hsv_s", "hsv_v")


def mirror_model(nc, seed):
    """The torch mirror with the initial weights of adept.models.yolo11('n', nc)."""
    adept.manual_seed(seed)
    ours = adept.models.yolo11("n", nc)
    model = Yolo11("n", nc)
    model.load_state_dict({k: torch.from_numpy(v.numpy().copy()) for k, v in ours.state_dict().items()})
    return model


def build_optimizer(model, cfg, nc, iterations):
    """Ultralytics' build_optimizer: 'auto' -> SGD(0.01, 0.9) for > 10k iterations, else
    AdamW(round(0.002 * 5 / (4 + nc), 6), 0.9), warmup_bias_lr 0; groups: biases (no decay),
    weights (decay), BN weights (no decay). Returns (optimizer, warmup_bias_lr)."""
    biases, weights, norms = [], [], []
    for module in model.modules():
        for name, p in module.named_parameters(recurse=False):
            if not p.requires_grad:
                continue
            (biases if name == "bias" else norms if isinstance(module, nn.BatchNorm2d) else weights).append(p)
    name, lr, momentum, warmup_bias_lr = cfg["optimizer"], cfg["lr0"], cfg["momentum"], cfg["warmup_bias_lr"]
    if name == "auto":
        name, lr, momentum = ("SGD", 0.01, 0.9) if iterations > 10000 else ("AdamW", round(0.002 * 5 / (4 + nc), 6), 0.9)
        warmup_bias_lr = 0.0
    accumulate = max(round(cfg["nbs"] / cfg["batch"]), 1)
    decay = cfg["weight_decay"] * cfg["batch"] * accumulate / cfg["nbs"]
    if name == "AdamW":
        opt = torch.optim.AdamW(biases, lr=lr, betas=(momentum, 0.999), weight_decay=0.0)
    elif name == "SGD":
        opt = torch.optim.SGD(biases, lr=lr, momentum=momentum, nesterov=True)
    else:
        raise ValueError(f"optimizer {name!r}: use auto, AdamW or SGD")
    opt.add_param_group({"params": weights, "weight_decay": decay})
    opt.add_param_group({"params": norms, "weight_decay": 0.0})
    return opt, warmup_bias_lr, dict(name=name, lr=lr, momentum=momentum, decay=decay)


class EMA:
    """Ultralytics' ModelEMA: every float tensor of the state, d = 0.9999 (1 - exp(-updates / tau))."""

    def __init__(self, model, tau):
        self.ema = copy.deepcopy(model).eval()
        for p in self.ema.parameters():
            p.requires_grad_(False)
        self.tau, self.updates = tau, 0

    @torch.no_grad()
    def update(self, model):
        self.updates += 1
        d = 0.9999 * (1 - math.exp(-self.updates / self.tau))
        msd = model.state_dict()
        for k, v in self.ema.state_dict().items():
            if v.dtype.is_floating_point:
                v.mul_(d).add_(msd[k].detach(), alpha=1 - d)


DEVICE = "cpu"  # --device: where the mirror trains (the batches arrive as uint8 and are converted there)


def to_torch(batch):
    img = torch.from_numpy(batch["img"].numpy()).to(DEVICE).float().div_(255)
    return img, torch.from_numpy(batch["targets"].numpy()).to(DEVICE)


@torch.no_grad()
def evaluate(model, loader, nc):
    """COCO mAP of `model` (eval mode) on `loader`, in letterboxed pixels."""
    model.eval()
    metrics = adept.models.DetectionMetrics()
    for batch in loader:
        img, targets = to_torch(batch)
        pred = model(img)
        dets = adept.models.non_max_suppression(adept.from_numpy(pred.cpu().numpy()), conf_thres=0.001, iou_thres=0.7,
                                                multi_label=True, max_det=300)
        h, w = img.shape[2:]
        t = targets.cpu().numpy().astype(np.float64)
        for b, det in enumerate(dets):
            rows = t[t[:, 0] == b]
            xy, wh = rows[:, 2:4] * [w, h], rows[:, 4:6] * [w, h]
            gt = np.concatenate([rows[:, 1:2], xy - wh / 2, xy + wh / 2], 1)
            metrics.update(det, adept.from_numpy(gt.astype(np.float32)))
    r = metrics.compute()
    return dict(map50=r["map50"], map50_95=r["map50_95"], mp=r["mp"], mr=r["mr"],
                ap50_per_class=[a[0] for a in r["ap"]])


def load_average():
    return round(os.getloadavg()[0], 2)


def train(cfg, data_root, save=None):
    """One training run; returns its record (and saves the EMA weights to `save` when given)."""
    torch.manual_seed(cfg["seed"])
    if DEVICE != "cpu":  # float32 as Adept computes it; the mirrors create their helper tensors without a device
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.set_default_device(DEVICE)
    data_imgsz = cfg["data_imgsz"] or cfg["imgsz"]
    t0 = time.time()
    yaml = V.ensure_synthetic_shapes(Path(data_root) / f"shapes-{cfg['train_images']}-{cfg['val_images']}-{data_imgsz}",
                                     train_images=cfg["train_images"], val_images=cfg["val_images"], imgsz=data_imgsz)
    names = V.synthetic_shapes_names()
    nc = len(names)
    hyp = {k: float(cfg[k]) for k in AUG_KEYS}
    train_set = V.DetectionDataset(yaml, "train", imgsz=cfg["imgsz"], augment=True, **hyp)
    val_set = V.DetectionDataset(yaml, "val", imgsz=cfg["imgsz"])
    data_s = time.time() - t0
    workers = cfg["workers"]
    loader = adept.data.DataLoader(train_set, batch_size=cfg["batch"], shuffle=True, num_workers=workers,
                                   seed=cfg["seed"], collate_fn=V.detection_collate, persistent_workers=workers > 0)
    val_loader = adept.data.DataLoader(val_set, batch_size=2 * cfg["batch"], num_workers=0,
                                       collate_fn=V.detection_collate)
    model = mirror_model(nc, cfg["seed"])
    epochs, nb = cfg["epochs"], len(loader)
    iterations = math.ceil(len(train_set) / max(cfg["batch"], cfg["nbs"])) * epochs
    opt, warmup_bias_lr, opt_info = build_optimizer(model, cfg, nc, iterations)
    if cfg["cos_lr"]:
        lf = lambda e: ((1 - math.cos(e * math.pi / epochs)) / 2) * (cfg["lrf"] - 1) + 1  # noqa: E731
    else:
        lf = lambda e: max(1 - e / epochs, 0) * (1.0 - cfg["lrf"]) + cfg["lrf"]  # noqa: E731
    scheduler = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda=lf)
    ema = EMA(model, cfg["ema_tau"])
    nw = max(round(cfg["warmup_epochs"] * nb), cfg["warmup_min"]) if cfg["warmup_epochs"] > 0 else 0
    accumulate = max(round(cfg["nbs"] / cfg["batch"]), 1)
    last_opt_step, history = -1, []
    load_start, cpu0, wall0 = load_average(), time.process_time(), time.time()
    train_s = val_s = 0.0
    for epoch in range(epochs):
        e0 = time.time()
        if epoch == epochs - cfg["close_mosaic"]:
            train_set.close_mosaic()
            loader.reset()
        model.train()
        losses = []
        for i, batch in enumerate(loader):
            ni = i + nb * epoch
            if ni <= nw:
                xi = [0, nw]
                accumulate = max(1, round(float(np.interp(ni, xi, [1, cfg["nbs"] / cfg["batch"]]))))
                for j, g in enumerate(opt.param_groups):
                    g["lr"] = float(np.interp(ni, xi, [warmup_bias_lr if j == 0 else 0.0, g["initial_lr"] * lf(epoch)]))
                    if "momentum" in g:
                        g["momentum"] = float(np.interp(ni, xi, [cfg["warmup_momentum"], cfg["momentum"]]))
            img, targets = to_torch(batch)
            loss, items = detection_loss(model(img), targets, nc, gains=(cfg["box"], cfg["cls"], cfg["dfl"]))
            loss.backward()
            losses.append(items.detach().cpu().numpy())
            if ni - last_opt_step >= accumulate:
                nn.utils.clip_grad_norm_(model.parameters(), max_norm=10.0)
                opt.step()
                opt.zero_grad()
                ema.update(model)
                last_opt_step = ni
        scheduler.step()
        train_s += time.time() - e0
        entry = dict(epoch=epoch + 1, loss=[round(float(x), 4) for x in np.mean(losses, 0)],
                     train_s=round(time.time() - e0, 1))
        if cfg["val_every"] and ((epoch + 1) % cfg["val_every"] == 0) and epoch + 1 < epochs:
            v0 = time.time()
            r = evaluate(ema.ema, val_loader, nc)
            val_s += time.time() - v0
            entry.update(map50=round(r["map50"], 4), map50_95=round(r["map50_95"], 4), val_s=round(time.time() - v0, 1))
        history.append(entry)
        print(json.dumps(entry), flush=True)
    if save:
        torch.save(ema.ema.state_dict(), save)
    v0 = time.time()
    final = evaluate(ema.ema, val_loader, nc)
    last_val_s = time.time() - v0
    wall = time.time() - wall0
    generator = json.loads((Path(yaml).parent / "shapes.json").read_text()).get("generator")
    rec = dict(settings=cfg, generator=generator, optimizer=opt_info, nb=nb, warmup_iterations=nw, updates=ema.updates,
               map50=round(final["map50"], 4), map50_95=round(final["map50_95"], 4), mp=round(final["mp"], 4),
               mr=round(final["mr"], 4), ap50_per_class=dict(zip(names, [round(a, 3) for a in final["ap50_per_class"]])),
               train_s=round(train_s, 1), val_s=round(last_val_s, 1), wall_s=round(wall, 1),
               cpu_s=round(time.process_time() - cpu0, 1), data_s=round(data_s, 1),
               s_per_epoch=round(train_s / epochs, 2), val_s_per_epoch_estimate=round(last_val_s, 2),
               load_avg_start=load_start, load_avg_end=load_average(), history=history,
               time=time.strftime("%Y-%m-%d %H:%M:%S"), device=DEVICE)
    if DEVICE.startswith("cuda"):
        rec.update(device_name=torch.cuda.get_device_name(), peak_allocated_MiB=round(torch.cuda.max_memory_allocated() / 2**20),
                   peak_reserved_MiB=round(torch.cuda.max_memory_reserved() / 2**20))
    return rec


def cmd_speed(args):
    """Best-of-N seconds of one training step (forward, loss, backward, AdamW step) and of one
    validation batch (forward + NMS) per imgsz, on batches of the shapes dataset."""
    torch.set_num_threads(args.threads)
    names = V.synthetic_shapes_names()
    out = []
    for imgsz in args.imgsz:
        yaml = V.ensure_synthetic_shapes(Path(args.data_root) / f"speed-{imgsz}", train_images=64, val_images=32,
                                         imgsz=imgsz)
        ds = V.DetectionDataset(yaml, "train", imgsz=imgsz, augment=True)
        loader = adept.data.DataLoader(ds, batch_size=args.batch, shuffle=True, seed=0, collate_fn=V.detection_collate)
        model = mirror_model(len(names), 0).train()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        steps, vals = [], []
        for rep in range(args.reps):
            for batch in loader:
                t0 = time.time()
                img, targets = to_torch(batch)
                loss, _ = detection_loss(model(img), targets, len(names))
                loss.backward()
                opt.step()
                opt.zero_grad()
                steps.append(time.time() - t0)
                model.eval()
                t0 = time.time()
                with torch.no_grad():
                    adept.models.non_max_suppression(adept.from_numpy(model(img).numpy()), conf_thres=0.001,
                                                     multi_label=True)
                vals.append(time.time() - t0)
                model.train()
                break
        rec = dict(imgsz=imgsz, batch=args.batch, train_s_per_image=round(min(steps) / args.batch, 4),
                   val_s_per_image=round(min(vals) / args.batch, 4),
                   train_s_per_image_median=round(float(np.median(steps)) / args.batch, 4), load_avg=load_average())
        print(json.dumps(rec), flush=True)
        out.append(rec)
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=1) + "\n")


def parse_value(text, default):
    if isinstance(default, bool):
        return text.lower() in ("1", "true", "yes")
    if isinstance(default, int):
        return int(text)
    if isinstance(default, float):
        return float(text)
    if default is None:
        return int(text)
    return text


def cmd_run(args):
    cfg = dict(DEFAULTS)
    for kv in args.set or []:
        k, v = kv.split("=", 1)
        if k not in cfg:
            raise SystemExit(f"unknown setting {k!r}; known: {', '.join(cfg)}")
        cfg[k] = parse_value(v, cfg[k])
    for k in ("imgsz", "epochs", "batch", "nbs", "workers"):
        if getattr(args, k) is not None:
            cfg[k] = getattr(args, k)
    torch.set_num_threads(args.threads)
    global DEVICE
    DEVICE = args.device
    rec = train(cfg, args.data_root, args.save)
    rec["tag"] = args.tag
    rec["threads"] = args.threads
    print(json.dumps({k: rec[k] for k in ("tag", "map50", "map50_95", "train_s", "val_s", "wall_s", "cpu_s",
                                          "load_avg_start", "load_avg_end")}), flush=True)
    if args.log:
        with open(args.log, "a") as f:
            f.write(json.dumps(rec) + "\n")


def cmd_summary(args):
    runs = [json.loads(line) for line in open(args.log) if line.strip()]
    keys = [k for k in DEFAULTS if len({json.dumps(r["settings"].get(k)) for r in runs}) > 1]
    rows = []
    for r in runs:
        rows.append(dict(tag=r.get("tag", ""), changed={k: r["settings"][k] for k in keys}, map50=r["map50"],
                         map50_95=r["map50_95"], train_s=r["train_s"], val_s=r["val_s"], wall_s=r["wall_s"],
                         cpu_s=r["cpu_s"], warmup_iterations=r["warmup_iterations"], updates=r["updates"],
                         load_avg=[r["load_avg_start"], r["load_avg_end"]], map50_by_epoch=[
                             [h["epoch"], h["map50"]] for h in r["history"] if "map50" in h]))
    out = dict(
        what="Training defaults of the built-in shapes dataset, tuned with the PyTorch mirror of yolo11n "
             "(bench/yolo/tune_shapes.py)",
        machine=dict(cpu=platform.processor() or "x86_64", cores=os.cpu_count(), threads=runs[0].get("threads"),
                     torch=torch.__version__, note="shared 2-core VM: wall times include other users' load "
                                                   "(see load_avg)"),
        baseline_settings=DEFAULTS, varied_keys=keys, runs=rows)
    if args.chosen:
        out["chosen"] = json.loads(args.chosen)
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    for row in rows:
        print(f"{row['tag']:<28} mAP50 {row['map50']:.3f} mAP50-95 {row['map50_95']:.3f} train {row['train_s']:6.0f}s "
              f"val {row['val_s']:4.0f}s {row['changed']}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="one training run")
    r.add_argument("--imgsz", type=int)
    r.add_argument("--epochs", type=int)
    r.add_argument("--batch", type=int)
    r.add_argument("--nbs", type=int)
    r.add_argument("--workers", type=int)
    r.add_argument("--set", action="append", metavar="KEY=VALUE", help=f"any of: {', '.join(DEFAULTS)}")
    r.add_argument("--threads", type=int, default=2)
    r.add_argument("--device", default="cpu", help="torch device of the mirror (cuda: the GPU reference of "
                                                   "`adept train device=vulkan`)")
    r.add_argument("--data-root", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "adept_shapes_tuning"))
    r.add_argument("--log", help="append the run's record (JSON line) to this file")
    r.add_argument("--tag", default="")
    r.add_argument("--save", help="save the EMA model's state dict (torch.save) to this file")
    s = sub.add_parser("summary", help="runs of a log -> the results JSON")
    s.add_argument("--log", required=True)
    s.add_argument("--out", required=True)
    s.add_argument("--chosen", help="JSON of the chosen defaults, stored with the runs")
    sp = sub.add_parser("speed", help="seconds per training / validation image at each imgsz")
    sp.add_argument("--imgsz", type=int, nargs="+", default=[128, 160, 192, 224, 256])
    sp.add_argument("--batch", type=int, default=16)
    sp.add_argument("--reps", type=int, default=5)
    sp.add_argument("--threads", type=int, default=2)
    sp.add_argument("--data-root", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "adept_shapes_tuning"))
    sp.add_argument("--out")
    args = p.parse_args()
    {"run": cmd_run, "summary": cmd_summary, "speed": cmd_speed}[args.cmd](args)


if __name__ == "__main__":
    main()
