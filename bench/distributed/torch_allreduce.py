"""torch.distributed.all_reduce (gloo, float32 sum, host tensors) against message size under mpirun: the
PyTorch half of adept_bench_allreduce, with the same sizes, timing and JSON fields.
Usage: mpirun -np N python3 torch_allreduce.py [--min-bytes 4096] [--max-bytes 268435456] [--iters 20]
       [--warmup 3]"""
import argparse
import json
import time

import torch
import torch.distributed as dist

from torch_gloo import init_gloo


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--min-bytes", type=int, default=4096)
    ap.add_argument("--max-bytes", type=int, default=256 << 20)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    args = ap.parse_args()
    torch.set_num_threads(1)
    rank, world = init_gloo()
    sizes = []
    nbytes = args.min_bytes
    while nbytes <= args.max_bytes:
        buf = torch.ones(nbytes // 4)
        times = []
        for it in range(args.warmup + args.iters):
            dist.barrier()
            t0 = time.perf_counter()
            dist.all_reduce(buf)
            if it >= args.warmup:
                times.append(time.perf_counter() - t0)
        t = torch.tensor(times, dtype=torch.float64)
        dist.all_reduce(t, op=dist.ReduceOp.MAX)  # the slowest rank of each call
        t = sorted(t.tolist())
        med = t[len(t) // 2]
        algbw = nbytes / med
        sizes.append({"bytes": nbytes, "median_seconds": med, "best_seconds": t[0], "algbw_bytes_per_second": algbw,
                      "busbw_bytes_per_second": algbw * 2 * (world - 1) / world})
        nbytes *= 4
    dist.destroy_process_group()
    if rank == 0:
        print(json.dumps({"framework": "torch", "impl": "gloo", "torch_version": torch.__version__, "device": "cpu",
                          "world_size": world, "dtype": "float32", "op": "sum", "iters": args.iters,
                          "sizes": sizes}), flush=True)


if __name__ == "__main__":
    main()
