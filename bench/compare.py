#!/usr/bin/env python3
"""Runs adept_bench and compares each adept op with its ceiling on the same machine: memory-bound
ops (op/*) with a memcpy moving the same bytes, GEMMs (matmul/*) with cblas_sgemm/dgemm on the same
buffers. Writes bench/results/<machine>.json and prints a table.

    OMP_NUM_THREADS is set from --threads (default 2):
    python3 bench/compare.py --build-dir build/release --threads 2
"""
import argparse
import datetime
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402


def compare(records):
    """One row per adept benchmark: its rate, its ceiling's, and ratio = adept rate / ceiling rate from
    the median times (ratio_best from the fastest repetitions, less sensitive to a busy machine)."""
    rows = []
    memcpy_by_traffic = {int(r["traffic_bytes"]): n for n, r in records.items() if n.startswith("memcpy/")}
    for name, r in records.items():
        if name.startswith("op/"):
            ceil_name, key, unit = memcpy_by_traffic.get(int(r["traffic_bytes"])), "bytes_per_second", "GB/s"
        elif name.startswith("matmul/"):
            ceil_name, key, unit = "blas/" + name[len("matmul/"):], "flop_per_second", "GFLOP/s"
        else:
            continue
        ceil = records.get(ceil_name)
        row = {"name": name, "time_us": round(r["time_us"], 2), "best_time_us": round(r["best_time_us"], 2),
               "unit": unit, "adept": round(r[key] / 1e9, 3), "ceiling": ceil_name, "ceiling_rate": None,
               "ratio": None, "ratio_best": None}
        if ceil:
            row["ceiling_rate"] = round(ceil[key] / 1e9, 3)
            row["ratio"] = round(ceil["time_us"] / r["time_us"], 3)  # same work, so a rate ratio
            row["ratio_best"] = round(ceil["best_time_us"] / r["best_time_us"], 3)
        rows.append(row)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default=benchlib.default_build_dir())
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--filter", default=".", help="adept_bench --benchmark_filter regex")
    ap.add_argument("--min-time", type=float, default=0.3)
    ap.add_argument("--repetitions", type=int, default=3)
    ap.add_argument("--out", help="result file (default bench/results/<machine>.json)")
    args = ap.parse_args()

    info = benchlib.machine_info(args.threads)
    records, context = benchlib.run_adept_bench(args.build_dir, args.threads, args.filter, args.min_time,
                                                args.repetitions)
    rows = compare(records)
    out = args.out or os.path.join(benchlib.REPO, "bench", "results", benchlib.machine_slug(info) + ".json")
    result = {"machine": info, "date": datetime.datetime.now().isoformat(timespec="seconds"),
              "benchmark_context": {k: context.get(k) for k in ("library_build_type", "adept_num_threads",
                                                                 "num_cpus", "mhz_per_cpu", "caches")},
              "load_average_1min": benchlib.load_load_average(),
              "statistic": f"time_us: median of {args.repetitions} repetitions; best_time_us: fastest",
              "comparisons": rows, "raw": records}
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")

    print(f"{info['cpu_model']}, {info['logical_cpus']} cpus, {args.threads} threads -> {out}")
    print(f"{'benchmark':40s} {'time us':>10s} {'adept':>9s} {'ceiling':>9s} {'ratio':>6s} {'best':>6s}  unit")
    for r in rows:
        fmt = lambda v: f"{v:.2f}" if v else "-"  # noqa: E731
        print(f"{r['name']:40s} {r['time_us']:10.1f} {r['adept']:9.2f} {fmt(r['ceiling_rate']):>9s} "
              f"{fmt(r['ratio']):>6s} {fmt(r['ratio_best']):>6s}  {r['unit']}")


if __name__ == "__main__":
    main()
