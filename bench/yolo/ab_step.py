"""A/B of the YOLO11 training step between two builds of adept_bench_yolo on this machine: the runs of
the two alternate (A, B, A, B, ...) so that drift of a shared or throttled machine falls on both alike,
and the JSON keeps every run's figures, their medians and B / A ratios: step time (wall, and the process's
CPU time, which other load on the machine inflates less), peak RSS, and on
Vulkan the device's dispatches per step, peak allocated / reserved bytes and (with --profile) GPU time per
kernel family.

  python3 bench/yolo/ab_step.py --a BASE/bin/adept_bench_yolo --b build/release/bench/adept_bench_yolo \\
      --config cpu:8x320 --config vulkan:2x160 --rounds 3 --out bench/results/X.json

A config is DEVICE:BxS (synthetic inputs, adept_bench_yolo --synthetic BxS); --label-a / --label-b name
the builds (commits) in the JSON.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from benchlib import machine_info  # noqa: E402


def run_once(binary, device, synthetic, threads, iters, profile):
    cmd = [binary, "train", "--synthetic", synthetic, "--device", device, "--threads", str(threads),
           "--warmup", "2", "--iters", str(iters)]
    if device == "vulkan":
        cmd += ["--phase-sync", "0", "--profile", str(profile)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def figures(rec):
    """The figures compared: wall ms per step, peak RSS, and the device's counters on Vulkan."""
    f = {"median_ms": 1e3 * statistics.median(rec["step_seconds"]),
         "median_cpu_ms": 1e3 * statistics.median(rec["step_cpu_seconds"]), "peak_rss_mib": rec["peak_rss_mib"]}
    mem = rec.get("device_memory") or {}
    for k in ("peak_allocated_bytes", "peak_reserved_bytes"):
        if k in mem:
            f[k] = mem[k]
    prof = rec.get("profile") or {}
    for k in ("dispatches_per_step", "device_busy_ms_per_step", "host_record_ms_per_step"):
        if k in prof:
            f[k] = prof[k]
    return f


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True, help="baseline adept_bench_yolo")
    ap.add_argument("--b", required=True, help="changed adept_bench_yolo")
    ap.add_argument("--label-a", default="a")
    ap.add_argument("--label-b", default="b")
    ap.add_argument("--config", action="append", required=True, help="DEVICE:BxS, repeatable")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iters", type=int, default=3)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--profile", type=int, default=1, help="profiled steps on Vulkan (0: none)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    result = {"machine": machine_info(args.threads), "a": args.label_a, "b": args.label_b, "rounds": args.rounds,
              "configs": {}}
    for config in args.config:
        device, synthetic = config.split(":")
        runs = {"a": [], "b": []}
        last = {}
        for _ in range(args.rounds):
            for side, binary in (("a", args.a), ("b", args.b)):
                rec = run_once(binary, device, synthetic, args.threads, args.iters, args.profile)
                runs[side].append(figures(rec))
                last[side] = rec
        med = {side: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for side, rs in runs.items()}
        ratio = {k: med["b"][k] / med["a"][k] for k in med["a"] if k in med["b"] and med["a"][k]}
        entry = {"runs": runs, "median": med, "b_over_a": ratio}
        if device == "vulkan":
            entry["device"] = last["b"].get("device")
            entry["by_kernel"] = {side: (last[side].get("profile") or {}).get("by_kernel") for side in last}
        result["configs"][config] = entry
        print(f"{config}: " + ", ".join(f"{k} {v:.3f}" for k, v in ratio.items()), flush=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
