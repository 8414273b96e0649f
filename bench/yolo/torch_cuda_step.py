"""PyTorch CUDA reference for `adept_bench_yolo train --device vulkan --synthetic BxS`: the YOLO11n mirror
(tests/python/yolo_mirror.py, yolo_loss_mirror.py) trained with the same step (SGD, Nesterov momentum 0.937,
weight decay 5e-4) on uniform images and 2-8 boxes per image (a new table every step with --vary-targets),
float32 with TF32 off. Prints one JSON line: step times, phase medians, torch.cuda's peak allocated and
reserved bytes and the reserved bytes after every step.
Usage: python3 torch_cuda_step.py --batch 16 --imgsz 640 [--warmup 2] [--iters 5] [--vary-targets]"""
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--imgsz", type=int, default=640)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--vary-targets", action="store_true")
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
    steps, reserved, phases = [], [], {"forward": [], "loss": [], "backward": [], "optimizer": []}
    for it in range(args.warmup + args.iters):
        if args.vary_targets and it > 0:
            tgt = targets(args.batch, gen).cuda()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        marks = [t0]
        opt.zero_grad(set_to_none=True)
        maps = model(images)
        torch.cuda.synchronize(); marks.append(time.perf_counter())
        loss, items = detection_loss(maps, tgt, NC)
        torch.cuda.synchronize(); marks.append(time.perf_counter())
        loss.backward()
        torch.cuda.synchronize(); marks.append(time.perf_counter())
        opt.step()
        torch.cuda.synchronize(); marks.append(time.perf_counter())
        reserved.append(torch.cuda.memory_reserved())
        if it >= args.warmup:
            steps.append(marks[-1] - t0)
            for k, (a, b) in zip(phases, zip(marks, marks[1:])):
                phases[k].append(b - a)
    med = lambda v: sorted(v)[len(v) // 2]
    print(json.dumps({"framework": "torch", "torch_version": torch.__version__, "device": torch.cuda.get_device_name(0),
                      "batch": args.batch, "imgsz": args.imgsz, "step_seconds": steps,
                      "images_per_second": args.batch / med(steps),
                      "phase_median_seconds": {k: med(v) for k, v in phases.items()},
                      "peak_allocated_bytes": torch.cuda.max_memory_allocated(),
                      "peak_reserved_bytes": torch.cuda.max_memory_reserved(),
                      "reserved_bytes_per_step": reserved}), flush=True)


if __name__ == "__main__":
    main()
