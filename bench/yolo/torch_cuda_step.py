"""PyTorch CUDA reference for `adept_bench_yolo train --device vulkan --synthetic BxS`: the YOLO11n mirror
(tests/python/yolo_mirror.py, yolo_loss_mirror.py) trained with the same step (SGD, Nesterov momentum 0.937,
weight decay 5e-4) on uniform images and 2-8 boxes per image (a new table every step with --vary-targets),
float32 with TF32 off. Prints one JSON line: step times, phase medians, torch.cuda's peak allocated and
reserved bytes and the reserved bytes after every step.
--phase-sync 0 waits for the GPU once per step instead of after every phase. --profile N then runs N more
steps under torch.profiler and adds "profile": CUDA time per kernel, per aten op (self time), per layer's
forward (record_function around each model.i) and per backward function, with kernel launches per step
(the counterpart of adept_bench_yolo --profile).
--amp fp16 runs the forward under torch.autocast("cuda", float16) with torch.amp.GradScaler (as Ultralytics
trains, and as adept_bench_yolo --amp 1); --amp bf16 under bfloat16 autocast without a scaler. The loss
takes the maps in float32 either way.
Usage: python3 torch_cuda_step.py --batch 16 --imgsz 640 [--warmup 2] [--iters 5] [--vary-targets]
       [--phase-sync 0|1] [--profile N] [--amp off|fp16|bf16]"""
import argparse
import json
import os
import sys
import time

import torch

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NC = 80


def targets(batch, gen):
    rows = []
    for b in range(batch):
        for _ in range(int(torch.randint(2, 9, (), generator=gen, device="cpu"))):
            w, h = (0.04 + 0.36 * torch.rand(2, generator=gen, device="cpu")).tolist()
            cx = w / 2 + (1 - w) * float(torch.rand((), generator=gen, device="cpu"))
            cy = h / 2 + (1 - h) * float(torch.rand((), generator=gen, device="cpu"))
            rows.append([b, int(torch.randint(0, NC, (), generator=gen, device="cpu")), cx, cy, w, h])
    return torch.tensor(rows, dtype=torch.float32, device="cpu")


def rank(sums, steps, total, top):
    """[(name, device_us, count)] summed per name, largest first, per step."""
    acc = {}
    for name, us, n in sums:
        a = acc.setdefault(name, [0.0, 0])
        a[0] += us
        a[1] += n
    rows = sorted(acc.items(), key=lambda kv: -kv[1][0])[:top]
    return [{"name": k, "device_ms_per_step": v[0] / 1e3 / steps, "share": v[0] / total if total else 0.0,
             "launches_per_step": v[1] / steps} for k, v in rows]


class Amp:
    """The step's mixed-precision parts: autocast around the forward, the scaler around backward and step."""

    def __init__(self, mode):
        self.dtype = {"off": None, "fp16": torch.float16, "bf16": torch.bfloat16}[mode]
        self.scaler = torch.amp.GradScaler("cuda", enabled=mode == "fp16")

    def forward(self, model, images):
        with torch.autocast("cuda", dtype=self.dtype or torch.float16, enabled=self.dtype is not None):
            return [m.float() for m in model(images)]

    def backward(self, loss):
        self.scaler.scale(loss).backward()

    def step(self, opt):
        self.scaler.step(opt)
        self.scaler.update()


def profile_steps(model, opt, amp, images, tgt, n):
    """n training steps under torch.profiler (one GPU wait per step), ranked like adept_bench_yolo --profile."""
    from torch.profiler import ProfilerActivity, profile, record_function
    from yolo_loss_mirror import detection_loss
    hooks, labels = [], set()
    for i, layer in enumerate(model.model):
        name = f"model.{i} {type(layer).__name__}"
        labels.add(name)
        def pre(mod, inp, name=name):
            mod._rf = record_function(name)
            mod._rf.__enter__()
        def post(mod, inp, out):
            mod._rf.__exit__(None, None, None)
        hooks += [layer.register_forward_pre_hook(pre), layer.register_forward_hook(post)]
    torch.cuda.synchronize()
    wall = []
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(n):
            t0 = time.perf_counter()
            opt.zero_grad(set_to_none=True)
            loss, _ = detection_loss(amp.forward(model, images), tgt, NC)
            amp.backward(loss)
            amp.step(opt)
            torch.cuda.synchronize()
            wall.append(time.perf_counter() - t0)
    for h in hooks:
        h.remove()
    kernels, ops, layers, backward = [], [], [], []
    for e in prof.events():
        # The labels appear on the GPU timeline too (user annotations spanning their kernels): not kernels.
        if e.device_type == torch.autograd.DeviceType.CUDA and e.name not in labels:
            kernels.append((e.name, e.time_range.elapsed_us(), 1))
    total = sum(k[1] for k in kernels)
    for e in prof.key_averages():
        dev_self, dev_total = e.self_device_time_total, e.device_time_total
        if e.key.startswith("model."):
            layers.append((e.key + " forward", dev_total, e.count))
        elif e.key.startswith("autograd::engine::evaluate_function: "):
            backward.append((e.key.split(": ", 1)[1], dev_total, e.count))
        elif e.key.startswith("aten::") and dev_self > 0:
            ops.append((e.key, dev_self, e.count))
    wall.sort()
    return {"steps": n, "wall_ms_per_step": 1e3 * wall[len(wall) // 2], "device_busy_ms_per_step": total / 1e3 / n,
            "kernel_launches_per_step": len(kernels) / n, "by_kernel": rank(kernels, n, total, 60),
            "by_op": rank(ops, n, total, 60), "by_layer_forward": rank(layers, n, total, 40),
            "by_backward_function": rank(backward, n, total, 40)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--imgsz", type=int, default=640)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--vary-targets", action="store_true")
    ap.add_argument("--phase-sync", type=int, default=1)
    ap.add_argument("--profile", type=int, default=0)
    ap.add_argument("--amp", choices=["off", "fp16", "bf16"], default="off")
    args = ap.parse_args()
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    sys.path.insert(0, os.path.join(REPO, "tests", "python"))
    torch.set_default_device("cuda")  # the mirrors create their helper tensors without a device
    from yolo_loss_mirror import detection_loss
    from yolo_mirror import Yolo11

    gen = torch.Generator(device="cpu").manual_seed(0)
    model = Yolo11("n", NC).cuda().train()
    images = torch.rand(args.batch, 3, args.imgsz, args.imgsz)
    tgt = targets(args.batch, gen).cuda()
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.SGD(params, lr=0.01, momentum=0.937, nesterov=True, weight_decay=5e-4)
    amp = Amp(args.amp)
    steps, reserved, phases = [], [], {"forward": [], "loss": [], "backward": [], "optimizer": []}
    for it in range(args.warmup + args.iters):
        if args.vary_targets and it > 0:
            tgt = targets(args.batch, gen).cuda()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        marks = [t0]
        def phase_end():
            if args.phase_sync:
                torch.cuda.synchronize()
            marks.append(time.perf_counter())
        opt.zero_grad(set_to_none=True)
        maps = amp.forward(model, images)
        phase_end()
        loss, items = detection_loss(maps, tgt, NC)
        phase_end()
        amp.backward(loss)
        phase_end()
        amp.step(opt)
        torch.cuda.synchronize(); marks.append(time.perf_counter())
        reserved.append(torch.cuda.memory_reserved())
        if it >= args.warmup:
            steps.append(marks[-1] - t0)
            for k, (a, b) in zip(phases, zip(marks, marks[1:])):
                phases[k].append(b - a)
    med = lambda v: sorted(v)[len(v) // 2]
    prof = profile_steps(model, opt, amp, images, tgt, args.profile) if args.profile > 0 else None
    print(json.dumps({"profile": prof, "phase_sync": bool(args.phase_sync), "amp": args.amp,"framework": "torch", "torch_version": torch.__version__, "device": torch.cuda.get_device_name(0),
                      "batch": args.batch, "imgsz": args.imgsz, "step_seconds": steps,
                      "images_per_second": args.batch / med(steps),
                      "phase_median_seconds": {k: med(v) for k, v in phases.items()},
                      "peak_allocated_bytes": torch.cuda.max_memory_allocated(),
                      "peak_reserved_bytes": torch.cuda.max_memory_reserved(),
                      "reserved_bytes_per_step": reserved}), flush=True)


if __name__ == "__main__":
    main()
