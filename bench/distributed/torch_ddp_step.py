"""PyTorch CPU counterpart of `adept_bench_yolo train --synthetic BxS --ddp off|overlap|after` under mpirun: the
YOLO11n mirror (tests/python/yolo_mirror.py, yolo_loss_mirror.py) trained with the same step (SGD, Nesterov
momentum 0.937, weight decay 5e-4) on B uniform images per rank, over gloo.
--ddp off: no group (one process); overlap: torch's DistributedDataParallel (its reducer overlaps the
bucketed all-reduces with backward); after: gradients all-reduced (averaged) in 25 MiB buckets once backward has
finished (phase "allreduce"). Rank 0 prints one JSON line with the same fields as adept_bench_yolo.
Usage: [mpirun -np N] python3 torch_ddp_step.py --batch 4 --imgsz 320 [--warmup 2] [--iters 5] [--threads 1]
       [--ddp off|overlap|after]"""
import argparse
import json
import os
import sys
import time

import torch
import torch.distributed as dist

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "python"))
sys.path.insert(0, os.path.join(REPO, "bench", "yolo"))
from torch_cuda_step import NC, targets  # noqa: E402  (the same seeded box table)
from torch_gloo import init_gloo  # noqa: E402
from yolo_loss_mirror import detection_loss  # noqa: E402
from yolo_mirror import Yolo11  # noqa: E402

BUCKET_BYTES = 25 << 20


def all_reduce_after_backward(params, world):
    """Averages the gradients over the ranks in buckets of up to 25 MiB, last layers first (DDP's order)."""
    buckets, size = [[]], 0
    for p in reversed(params):
        nbytes = p.grad.numel() * p.grad.element_size()
        if buckets[-1] and size + nbytes > BUCKET_BYTES:
            buckets.append([])
            size = 0
        buckets[-1].append(p.grad)
        size += nbytes
    for bucket in buckets:
        flat = torch.cat([g.reshape(-1) for g in bucket])
        dist.all_reduce(flat)
        flat /= world
        offset = 0
        for g in bucket:
            g.copy_(flat[offset:offset + g.numel()].view_as(g))
            offset += g.numel()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--imgsz", type=int, default=320)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--ddp", choices=["off", "overlap", "after"], default="off")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    rank, world = init_gloo() if args.ddp != "off" else (0, 1)
    torch.manual_seed(rank)
    gen = torch.Generator().manual_seed(rank)
    model = Yolo11("n", NC).train()
    images = torch.rand(args.batch, 3, args.imgsz, args.imgsz, generator=gen)
    tgt = targets(args.batch, gen)
    params = [p for p in model.parameters() if p.requires_grad]
    net = model
    if args.ddp == "overlap":
        net = torch.nn.parallel.DistributedDataParallel(model)
    elif args.ddp == "after":
        for t in list(model.parameters()) + list(model.buffers()):
            dist.broadcast(t.data, 0)
    opt = torch.optim.SGD(params, lr=0.01, momentum=0.937, nesterov=True, weight_decay=5e-4)
    steps, phases = [], {"forward": [], "loss": [], "backward": [], "allreduce": [], "optimizer": []}
    for it in range(args.warmup + args.iters):
        t0 = time.perf_counter()
        marks = {}
        opt.zero_grad(set_to_none=True)
        maps = net(images)
        marks["forward"] = time.perf_counter()
        loss, _ = detection_loss(maps, tgt, NC)
        marks["loss"] = time.perf_counter()
        loss.backward()
        marks["backward"] = time.perf_counter()
        if args.ddp == "after":
            all_reduce_after_backward(params, world)
            marks["allreduce"] = time.perf_counter()
        opt.step()
        marks["optimizer"] = time.perf_counter()
        if it >= args.warmup:
            steps.append(marks["optimizer"] - t0)
            prev = t0
            for k, t in marks.items():
                phases[k].append(t - prev)
                prev = t
    med = lambda v: sorted(v)[len(v) // 2]
    out = {"framework": "torch", "torch_version": torch.__version__, "ddp": args.ddp, "world_size": world,
           "batch": args.batch, "imgsz": args.imgsz, "threads": args.threads, "step_seconds": steps,
           "images_per_second": args.batch / med(steps),
           "phase_median_seconds": {k: med(v) for k, v in phases.items() if v}}
    if args.ddp != "off":
        mine = torch.tensor([med(steps), med(phases["backward"])], dtype=torch.float64)
        every = [torch.zeros_like(mine) for _ in range(world)]
        dist.all_gather(every, mine)
        out["rank_step_and_backward_median_seconds"] = [t.tolist() for t in every]
        out["global_images_per_second"] = args.batch * world / med(steps)
        dist.destroy_process_group()
    if rank == 0:
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
