#!/usr/bin/env python3
"""Times a set of ops in adept and in PyTorch on the same machine with the same thread count and
writes the ratios to bench/results/<machine>-vs-torch.json (plus a table on stdout).

Each op runs on the same float32 inputs in both libraries; a sample times `number` calls (chosen so
a sample lasts >= 2 ms: short samples let the fastest show through on a busy machine); the time is
the median per-call time of --repeat samples.
adept is timed through its Python module (PYTHONPATH=<build>/python); when that is not importable
the adept side is read from the C++ benchmark binary (same op names and shapes, bench/bench_ops.cpp),
and the result file says so.

    /usr/bin/python3 bench/ops_vs_torch.py   (Debian python with torch) --build-dir build/release --threads 2
"""
import argparse
import datetime
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

SHAPES = [(1024, 1024), (4096, 4096)]  # as bench_ops.cpp: 1M and 16M elements
MATMUL_SHAPES = [(256, 256, 256), (1024, 1024, 1024), (6400, 144, 64)]  # (M, K, N), as bench_matmul.cpp


def silu(m, x):
    return m.nn.functional.silu(x)


# name -> (number of inputs, f(module, inputs)); names match bench_ops.cpp's "op/<name>/<shape>".
OPS = {
    "add": (2, lambda m, x: m.add(x[0], x[1])),
    "mul": (2, lambda m, x: m.mul(x[0], x[1])),
    "exp": (1, lambda m, x: m.exp(x[0])),
    "sigmoid": (1, lambda m, x: m.sigmoid(x[0])),
    "silu": (1, lambda m, x: silu(m, x[0])),
    "tanh": (1, lambda m, x: m.tanh(x[0])),
    "sum": (1, lambda m, x: x[0].sum()),
    "sum_dim0": (1, lambda m, x: x[0].sum(0)),
    "sum_dim-1": (1, lambda m, x: x[0].sum(-1)),
    "softmax_dim-1": (1, lambda m, x: m.softmax(x[0], -1)),
    "cat_dim0": (2, lambda m, x: m.cat([x[0], x[1]], 0)),
    "transpose_contiguous": (1, lambda m, x: x[0].transpose(0, 1).contiguous()),
}


def time_call(fn, repeat):
    """(median, best) seconds per call of fn over `repeat` samples."""
    fn()
    t0 = time.perf_counter()
    fn()
    once = max(time.perf_counter() - t0, 1e-7)
    number = max(1, int(0.002 / once))
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - t0) / number)
    return statistics.median(samples), min(samples)


def import_adept(build_dir):
    sys.path.insert(0, os.path.join(build_dir, "python"))
    try:
        import adept
        adept.from_numpy  # noqa: B018  (the module must be the built one, not a bare source tree)
        return adept, None
    except Exception as e:  # noqa: BLE001  (any failure means: use the fallback)
        return None, f"{type(e).__name__}: {e}"


def cases():
    """(op name, shape name, list of float32 numpy inputs, f) for every measured case."""
    import numpy as np
    rng = np.random.default_rng(1234)
    for name, (n_in, f) in OPS.items():
        for shape in SHAPES:
            inputs = [rng.standard_normal(shape, dtype=np.float32) for _ in range(n_in)]
            yield name, f"{shape[0]}x{shape[1]}", inputs, f
    for m, k, n in MATMUL_SHAPES:
        inputs = [rng.standard_normal((m, k), dtype=np.float32), rng.standard_normal((k, n), dtype=np.float32)]
        yield "matmul", f"{m}x{k}x{n}", inputs, lambda mod, x: mod.matmul(x[0], x[1])


def bench_name(op, shape):
    return f"matmul/f32/{shape}" if op == "matmul" else f"op/{op}/{shape}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default=benchlib.default_build_dir())
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=15, help="samples per op (median and best reported)")
    ap.add_argument("--force-fallback", action="store_true", help="time adept through adept_bench")
    ap.add_argument("--out", help="result file (default bench/results/<machine>-vs-torch.json)")
    args = ap.parse_args()

    os.environ["OMP_NUM_THREADS"] = str(args.threads)  # before torch/adept start their thread pools
    import torch
    torch.set_num_threads(args.threads)
    adept, why = (None, "--force-fallback") if args.force_fallback else import_adept(args.build_dir)
    if adept is not None and hasattr(adept, "set_num_threads"):
        adept.set_num_threads(args.threads)

    fallback = None
    if adept is None:
        print(f"adept module not importable ({why}): timing adept through adept_bench", file=sys.stderr)
        names = "|".join(sorted({bench_name(op, shape) for op, shape, _, _ in cases()}))
        fallback, _ = benchlib.run_adept_bench(args.build_dir, args.threads, f"^({names})/real_time$",
                                               min_time=0.3, repetitions=args.repeat)

    rows = []
    for op, shape, inputs, f in cases():
        tx = [torch.from_numpy(a.copy()) for a in inputs]
        t_med, t_best = time_call(lambda: f(torch, tx), args.repeat)
        if adept is not None:
            ax = [adept.from_numpy(a.copy()) for a in inputs]
            a_med, a_best = time_call(lambda: f(adept, ax), args.repeat)
        else:
            rec = fallback[bench_name(op, shape)]
            a_med, a_best = rec["time_us"] * 1e-6, rec["best_time_us"] * 1e-6
        rows.append({"op": op, "shape": shape, "torch_us": round(t_med * 1e6, 2), "adept_us": round(a_med * 1e6, 2),
                     "adept_over_torch": round(a_med / t_med, 3),
                     "adept_over_torch_best": round(a_best / t_best, 3)})

    info = benchlib.machine_info(args.threads)
    out = args.out or os.path.join(benchlib.REPO, "bench", "results", benchlib.machine_slug(info) + "-vs-torch.json")
    result = {"machine": info, "date": datetime.datetime.now().isoformat(timespec="seconds"),
              "torch_version": torch.__version__, "torch_threads": torch.get_num_threads(),
              "adept_timed_via": "python module" if adept is not None else "adept_bench (C++, fallback)",
              "load_average_1min": benchlib.load_load_average(),
              "statistic": f"median per-call time of {args.repeat} samples; *_best: fastest sample",
              "ratio": "adept_over_torch = adept time / torch time (below 1: adept faster)",
              "results": rows}
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as fh:
        json.dump(result, fh, indent=1)
        fh.write("\n")
    print(f"{info['cpu_model']}, {args.threads} threads, torch {torch.__version__}, "
          f"adept via {result['adept_timed_via']} -> {out}")
    print(f"{'op':22s} {'shape':>16s} {'torch us':>10s} {'adept us':>10s} {'adept/torch':>11s} {'best':>6s}")
    for r in rows:
        print(f"{r['op']:22s} {r['shape']:>16s} {r['torch_us']:10.1f} {r['adept_us']:10.1f} "
              f"{r['adept_over_torch']:11.2f} {r['adept_over_torch_best']:6.2f}")


if __name__ == "__main__":
    main()
