"""Data-parallel benchmarks of adept::distributed next to torch.distributed (gloo) on the same machine, one JSON:

- all-reduce bandwidth against message size (float32 sum, 4 KiB .. --max-bytes) at the largest process count:
  Adept (adept_bench_allreduce: the communication thread and its arrival notices), Open MPI alone
  (MPI_Allreduce from the main thread: the ceiling) and torch's gloo (torch_allreduce.py); ratios Adept / MPI and
  Adept / gloo of the bus bandwidth;
- the YOLO11n training step (--batch images of --imgsz per process, one thread each) at every process count of
  --procs: one process without a group, then N processes with the gradients all-reduced during backward
  (overlap, as `adept train` does) and after it (after); images/s over all processes, scaling efficiency
  (N-process images/s over N times the one-process images/s), Adept / torch (DistributedDataParallel);
- overlap: backward alone (one process), backward with the overlapped all-reduces, and backward then the
  all-reduce; the share of the communication hidden behind backward;
- the efficiency model of the README: the step time and the gradient bytes against the measured bandwidth and
  latency, at 8 and 64 processes.
Each configuration runs --reps times (interleaved: Adept, torch, Adept, ...); the best repetition counts (a shared
machine only ever slows a run down).
Usage: python3 bench/distributed/ddp_scaling.py [--bin-dir build/release/bench] [--procs 1,2] [--batch 2]
       [--imgsz 320] [--reps 3] [--max-bytes 67108864] [--mpirun mpirun] [--out bench/results/ddp_<machine>.json]"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
from benchlib import machine_info, machine_slug  # noqa: E402

MPI_FLAGS = ["--oversubscribe", "--allow-run-as-root", "--bind-to", "none", "-x", "OMP_NUM_THREADS=1",
             "-x", "OPENBLAS_NUM_THREADS=1"]


def launch(args, n, cmd, port):
    """Runs `cmd` in n processes under mpirun; returns rank 0's JSON line."""
    full = shlex.split(args.mpirun) + ["-np", str(n)] + MPI_FLAGS + ["-x", f"MASTER_PORT={port}"] + cmd
    p = subprocess.run(full, capture_output=True, text=True, timeout=args.timeout)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(full)} failed ({p.returncode}):\n{p.stderr[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def best(runs, key):
    """The repetition with the largest `key`."""
    return max(runs, key=lambda r: r[key])


def allreduce(args, n):
    adept = [args.bin + "/adept_bench_allreduce", "--max-bytes", str(args.max_bytes), "--iters", str(args.ar_iters)]
    torch_cmd = [args.python, os.path.join(HERE, "torch_allreduce.py"), "--max-bytes", str(args.max_bytes),
                 "--iters", str(args.ar_iters)]
    runs = {"adept": [], "mpi": [], "torch_gloo": []}
    for rep in range(args.reps):
        runs["adept"].append(launch(args, n, adept, 29600 + rep))
        runs["mpi"].append(launch(args, n, adept + ["--impl", "mpi"], 29600 + rep))
        runs["torch_gloo"].append(launch(args, n, torch_cmd, 29610 + rep))
    # Per size, the best repetition's median of each implementation.
    table = []
    for i, row in enumerate(runs["adept"][0]["sizes"]):
        bw = {k: max(r["sizes"][i]["busbw_bytes_per_second"] for r in v) for k, v in runs.items()}
        lat = {k: min(r["sizes"][i]["median_seconds"] for r in v) for k, v in runs.items()}
        table.append({"bytes": row["bytes"], "busbw_bytes_per_second": bw, "median_seconds": lat,
                      "adept_over_mpi": bw["adept"] / bw["mpi"], "adept_over_torch_gloo": bw["adept"] / bw["torch_gloo"]})
    return {"world_size": n, "sizes": table}


def step(args, n, ddp, framework, rep):
    if framework == "adept":
        cmd = [args.bin + "/adept_bench_yolo", "train", "--synthetic", f"{args.batch}x{args.imgsz}", "--threads", "1",
               "--warmup", str(args.warmup), "--iters", str(args.iters), "--ddp", ddp]
    else:
        cmd = [args.python, os.path.join(HERE, "torch_ddp_step.py"), "--batch", str(args.batch), "--imgsz",
               str(args.imgsz), "--threads", "1", "--warmup", str(args.warmup), "--iters", str(args.iters), "--ddp", ddp]
    r = launch(args, n, cmd, 29700 + rep)
    r.setdefault("global_images_per_second", r["images_per_second"])
    return r


def scaling(args):
    out = {"batch_per_process": args.batch, "imgsz": args.imgsz, "threads_per_process": 1, "frameworks": {}}
    configs = [(1, "off")] + [(n, ddp) for n in args.procs if n > 1 for ddp in ("overlap", "after")]
    for fw in ("adept", "torch"):
        out["frameworks"][fw] = {}
    for n, ddp in configs:
        runs = {"adept": [], "torch": []}
        for rep in range(args.reps):
            for fw in runs:
                runs[fw].append(step(args, n, ddp, fw, rep))
        for fw, rs in runs.items():
            b = best(rs, "global_images_per_second")
            out["frameworks"][fw][f"{n}_{ddp}"] = {
                "processes": n, "ddp": ddp, "images_per_second": b["global_images_per_second"],
                "phase_median_seconds": b["phase_median_seconds"],
                "all_reps_images_per_second": [r["global_images_per_second"] for r in rs]}
        print(f"step n={n} {ddp}: adept {out['frameworks']['adept'][f'{n}_{ddp}']['images_per_second']:.2f} img/s, "
              f"torch {out['frameworks']['torch'][f'{n}_{ddp}']['images_per_second']:.2f}", flush=True)
    for fw, rows in out["frameworks"].items():
        one = rows["1_off"]
        for key, r in rows.items():
            r["scaling_efficiency"] = r["images_per_second"] / (r["processes"] * one["images_per_second"])
            if r["ddp"] == "overlap":
                after = rows[f"{r['processes']}_after"]["phase_median_seconds"]
                comm = after["allreduce"]
                extra = r["phase_median_seconds"]["backward"] - one["phase_median_seconds"]["backward"]
                r["overlap"] = {"backward_one_process_s": one["phase_median_seconds"]["backward"],
                                "backward_with_overlapped_allreduce_s": r["phase_median_seconds"]["backward"],
                                "backward_then_allreduce_s": after["backward"] + comm, "allreduce_after_s": comm,
                                "hidden_fraction": max(0.0, min(1.0, 1.0 - extra / comm)) if comm > 0 else None}
    out["adept_over_torch"] = {k: r["images_per_second"] / out["frameworks"]["torch"][k]["images_per_second"]
                               for k, r in out["frameworks"]["adept"].items()}
    return out


def efficiency_model(res, args):
    """Expected data-parallel efficiency of YOLO11n at 8 GPUs (one node) and 64 GPUs (8 nodes of 8) from this run:
    a ring all-reduce of S gradient bytes over N ranks takes T = 2 (N - 1) / N * S / B + 2 (N - 1) * a (B: the
    bus bandwidth measured at >= 1 MiB, a: the per-hop latency from the 4 KiB all-reduce), GPU gradients also
    cross the host link twice (2 S / --staging-gbps), a fraction h of T hides behind backward (measured here),
    and the efficiency is t / (t + (1 - h) T + staging) for a step of t seconds (--gpu-step-seconds: Adept's
    YOLO11n float32 step on the H200, batch 16 at 640). Between nodes B is the smaller of the measured bandwidth
    and --nic-gbps, and a is --nic-latency-us."""
    ar = res["allreduce"]
    n_meas = ar["world_size"]
    big = [r for r in ar["sizes"] if r["bytes"] >= 1 << 20]
    bw = max(r["busbw_bytes_per_second"]["adept"] for r in big)
    hop = ar["sizes"][0]["median_seconds"]["adept"] / max(1, 2 * (n_meas - 1))
    step = res.get("step", {}).get("frameworks", {}).get("adept", {})
    hidden = [r["overlap"]["hidden_fraction"] for r in step.values() if r.get("overlap")]
    h = hidden[-1] if hidden and hidden[-1] is not None else 0.0
    s = args.grad_bytes
    staging = 2 * s / (args.staging_gbps * 1e9)
    t = args.gpu_step_seconds
    rows = {}
    for n, b, a in ((8, bw, hop), (64, min(bw, args.nic_gbps * 1e9 / 8), args.nic_latency_us * 1e-6)):
        comm = 2 * (n - 1) / n * s / b + 2 * (n - 1) * a
        rows[str(n)] = {"allreduce_seconds": comm, "staging_seconds": staging,
                        "efficiency": t / (t + (1 - h) * comm + staging)}
    return {"gradient_bytes": s, "gpu_step_seconds": t, "staging_source": args.staging, "busbw_bytes_per_second": bw, "hop_latency_seconds": hop,
            "hidden_fraction": h, "staging_gbps": args.staging_gbps, "nic_gbps": args.nic_gbps,
            "nic_latency_us": args.nic_latency_us, "gpus": rows, "formula": efficiency_model.__doc__}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin-dir", dest="bin", default=os.path.join(REPO, "build", "release", "bench"))
    ap.add_argument("--procs", default="1,2", type=lambda s: [int(x) for x in s.split(",")])
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--imgsz", type=int, default=320)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--max-bytes", type=int, default=64 << 20)
    ap.add_argument("--ar-iters", type=int, default=10)
    ap.add_argument("--mpirun", default="mpirun")
    ap.add_argument("--python", default=sys.executable, help="the Python that has torch")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--skip", default="", help="comma-separated parts to leave out: allreduce, step")
    ap.add_argument("--grad-bytes", type=int, default=4 * 2624064, help="YOLO11n's float32 gradient bytes")
    ap.add_argument("--gpu-step-seconds", type=float, default=16 / 244.2,
                    help="Adept's YOLO11n step on one GPU (H200, float32, batch 16 at 640: 244.2 img/s)")
    ap.add_argument("--staging-gbps", type=float, default=25.0, help="GPU <-> host copy bandwidth, GB/s")
    ap.add_argument("--staging", metavar="CPU_JSON,GPU_JSON",
                    help="measure the staging bandwidth instead: adept_bench_allreduce's output on host tensors and "
                         "on GPU tensors (same process count); the extra time of the GPU's all-reduce is two copies")
    ap.add_argument("--model-only", metavar="RESULT_JSON",
                    help="recompute the efficiency model of an earlier result (in place) instead of measuring")
    ap.add_argument("--nic-gbps", type=float, default=100.0, help="network between nodes, Gbit/s")
    ap.add_argument("--nic-latency-us", type=float, default=5.0, help="network latency per hop, us")
    ap.add_argument("--out")
    args = ap.parse_args()
    if args.staging:
        args.staging_gbps = staging_gbps(*args.staging.split(","))
    if args.model_only:
        with open(args.model_only) as f:
            res = json.load(f)
        res["efficiency_model"] = efficiency_model(res, args)
        write(res, args.model_only)
        print(json.dumps(res["efficiency_model"]["gpus"]))
        return
    info = machine_info(1)
    ver = subprocess.run(shlex.split(args.mpirun) + ["--version"], capture_output=True, text=True).stdout.split("\n")[0]
    torch_ver = subprocess.run([args.python, "-c", "import torch; print(torch.__version__)"], capture_output=True,
                               text=True).stdout.strip()
    res = {"machine": info, "open_mpi": ver, "torch_version": torch_ver, "date": time.strftime("%Y-%m-%d"),
           "load_average_1min_start": os.getloadavg()[0]}
    skip = set(filter(None, args.skip.split(",")))
    if "allreduce" not in skip:
        res["allreduce"] = allreduce(args, max(args.procs))
        print("allreduce done", flush=True)
    if "step" not in skip:
        res["step"] = scaling(args)
    if "allreduce" in res:
        res["efficiency_model"] = efficiency_model(res, args)
    res["load_average_1min_end"] = os.getloadavg()[0]
    write(res, args.out or os.path.join(REPO, "bench", "results", f"ddp_{machine_slug(info)}.json"))


def write(res, out):
    with open(out + ".tmp", "w") as f:
        json.dump(res, f, indent=1)
    os.replace(out + ".tmp", out)
    print("wrote", out)


def staging_gbps(cpu_json, gpu_json):
    """GB/s of one host <-> GPU copy: from each size >= 1 MiB, 2 bytes / (GPU all-reduce - host all-reduce); the
    median over the sizes."""
    rows = []
    with open(cpu_json) as f, open(gpu_json) as g:
        for c, d in zip(json.load(f)["sizes"], json.load(g)["sizes"]):
            extra = d["median_seconds"] - c["median_seconds"]
            if c["bytes"] >= 1 << 20 and extra > 0:
                rows.append(2 * c["bytes"] / extra / 1e9)
    rows.sort()
    return rows[len(rows) // 2]


if __name__ == "__main__":
    main()
