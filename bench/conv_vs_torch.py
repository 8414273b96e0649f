#!/usr/bin/env python3
"""conv2d forward and forward+backward on the YOLO11n layer shapes (640 input, ../shared/docs/yolo11.md)
for each adept algorithm (ADEPT_CONV_ALGO) against PyTorch on the same thread count with oneDNN
(mkldnn) on and off. Writes bench/results/conv_<machine>.json (GFLOP/s and ratios) and prints a table.

    PYTHONPATH=build/release/python OMP_NUM_THREADS=2 /usr/bin/python3 bench/conv_vs_torch.py [--batch 1]

Time = minimum of --repeat samples (the 2-core machine is shared; the minimum filters others' load), each a loop of calls lasting >= --min-time seconds. FLOPs count
2 * multiply-adds of the conv; forward+backward counts three convs' worth (input and weight gradients),
with the input, weight and bias gradients all computed (bias only where the layer has one).
"""
import argparse
import datetime
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402


def yolo11n_convs():
    """(name, C_in, H, C_out, k, stride, groups, bias, count) of every conv of yolo11n at 640 (batch 1)."""
    L = []

    def conv(name, cin, h, cout, k=1, s=1, g=1, bias=False):
        L.append((name, cin, h, cout, k, s, g, bias))

    def bottleneck(name, c, h, hidden):  # 3x3 c->hidden, 3x3 hidden->c
        conv(name + ".cv1", c, h, hidden, 3)
        conv(name + ".cv2", hidden, h, c, 3)

    def c3k2(name, c1, c2, h, e, c3k):
        c = int(c2 * e)
        conv(name + ".cv1", c1, h, 2 * c)
        if c3k:  # C3k(c): cv1/cv2 c->c/2, 2 bottlenecks (c/2 -> c/2 -> c/2), cv3 c -> c
            conv(name + ".m.cv1", c, h, c // 2)
            conv(name + ".m.cv2", c, h, c // 2)
            for i in range(2):
                bottleneck(f"{name}.m.m{i}", c // 2, h, c // 2)
            conv(name + ".m.cv3", c, h, c)
        else:
            bottleneck(name + ".m", c, h, c // 2)
        conv(name + ".cv2", 3 * c, h, c2)

    conv("0", 3, 640, 16, 3, 2)
    conv("1", 16, 320, 32, 3, 2)
    c3k2("2", 32, 64, 160, 0.25, False)
    conv("3", 64, 160, 64, 3, 2)
    c3k2("4", 64, 128, 80, 0.25, False)
    conv("5", 128, 80, 128, 3, 2)
    c3k2("6", 128, 128, 40, 0.5, True)
    conv("7", 128, 40, 256, 3, 2)
    c3k2("8", 256, 256, 20, 0.5, True)
    conv("9.cv1", 256, 20, 128)
    conv("9.cv2", 512, 20, 256)
    conv("10.cv1", 256, 20, 256)
    conv("10.attn.qkv", 128, 20, 256)
    conv("10.attn.pe", 128, 20, 128, 3, 1, 128)
    conv("10.attn.proj", 128, 20, 128)
    conv("10.ffn.0", 128, 20, 256)
    conv("10.ffn.1", 256, 20, 128)
    conv("10.cv2", 256, 20, 256)
    c3k2("13", 384, 128, 40, 0.5, False)
    c3k2("16", 256, 64, 80, 0.5, False)
    conv("17", 64, 80, 64, 3, 2)
    c3k2("19", 192, 128, 40, 0.5, False)
    conv("20", 128, 40, 128, 3, 2)
    c3k2("22", 384, 256, 20, 0.5, True)
    for ch, h in ((64, 80), (128, 40), (256, 20)):
        conv(f"23.box{h}.0", ch, h, 64, 3)
        conv(f"23.box{h}.1", 64, h, 64, 3)
        conv(f"23.box{h}.2", 64, h, 64, 1, bias=True)
        conv(f"23.cls{h}.0dw", ch, h, ch, 3, 1, ch)
        conv(f"23.cls{h}.0pw", ch, h, 80)
        conv(f"23.cls{h}.1dw", 80, h, 80, 3, 1, 80)
        conv(f"23.cls{h}.1pw", 80, h, 80)
        conv(f"23.cls{h}.2", 80, h, 80, 1, bias=True)
    # Unique shapes with their multiplicity.
    uniq = {}
    for name, cin, h, cout, k, s, g, bias in L:
        key = (cin, h, cout, k, s, g, bias)
        if key in uniq:
            uniq[key][1] += 1
        else:
            uniq[key] = [name, 1]
    return [(v[0], *k, v[1]) for k, v in uniq.items()]


def openblas_core():
    """The kernel set OpenBLAS picked (OPENBLAS_CORETYPE overrides; a CPU it does not know gets 'Prescott', SSE3)."""
    import ctypes
    with open("/proc/self/maps") as f:
        paths = {line.split()[-1] for line in f if "libopenblas" in line}
    for p in sorted(paths):
        lib = ctypes.CDLL(p)
        lib.openblas_get_corename.restype = ctypes.c_char_p
        return lib.openblas_get_corename().decode()
    return None


def timeit(fn, min_time, repeat):
    fn()  # warm-up (allocations, scratch buffers)
    samples = []
    for _ in range(repeat):
        n, t0 = 0, time.perf_counter()
        while True:
            fn()
            n += 1
            el = time.perf_counter() - t0
            if el >= min_time:
                break
        samples.append(el / n)
    return min(samples)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--threads", type=int, default=int(os.environ.get("OMP_NUM_THREADS", "2")))
    ap.add_argument("--min-time", type=float, default=0.05)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=None)
    ap.add_argument("--filter", default="", help="only layers whose name starts with this")
    args = ap.parse_args()
    os.environ["OMP_NUM_THREADS"] = str(args.threads)

    import numpy as np
    # adept first: both link an OpenBLAS with the soname libopenblas.so.0; whichever loads first serves both, and
    # adept's must be the OpenMP build (torch's Debian package pulls in the pthread one, which oversubscribes).
    import adept
    import torch

    torch.set_num_threads(args.threads)
    # adept's kernels and OpenBLAS take their thread count from OMP_NUM_THREADS (set above, before import).
    F = adept.nn.functional
    TF = torch.nn.functional
    rng = np.random.default_rng(0)
    results = []
    for name, cin, h, cout, k, s, g, bias, count in yolo11n_convs():
        if not name.startswith(args.filter):
            continue
        N = args.batch
        pad = k // 2
        hout = (h + 2 * pad - k) // s + 1
        flops = 2.0 * N * cout * hout * hout * (cin // g) * k * k
        x = rng.uniform(-1, 1, (N, cin, h, h)).astype(np.float32)
        w = rng.uniform(-1, 1, (cout, cin // g, k, k)).astype(np.float32) * 0.1
        b = rng.uniform(-1, 1, (cout,)).astype(np.float32) if bias else None
        gy = rng.uniform(-1, 1, (N, cout, hout, hout)).astype(np.float32)
        row = dict(layer=name, count=count, N=N, C_in=cin, H=h, W=h, C_out=cout, k=k, stride=s, groups=g, bias=bias,
                   gflop_forward=flops / 1e9)

        def bench(lib, conv, grad):
            xt = lib.from_numpy(x).requires_grad_(True)
            wt = lib.from_numpy(w).requires_grad_(True)
            bt = lib.from_numpy(b).requires_grad_(True) if b is not None else None
            gyt = lib.from_numpy(gy)
            ins = [xt, wt] + ([bt] if bt is not None else [])

            def fwd():
                with lib.no_grad():
                    conv(xt, wt, bt, stride=s, padding=pad, groups=g)

            def fwd_bwd():
                y = conv(xt, wt, bt, stride=s, padding=pad, groups=g)
                grad(y, ins, gyt)

            return timeit(fwd, args.min_time, args.repeat), timeit(fwd_bwd, args.min_time, args.repeat)

        variants = {}
        with torch.backends.mkldnn.flags(enabled=True):
            variants["torch_onednn"] = bench(torch, TF.conv2d, lambda y, i, gy: torch.autograd.grad(y, i, gy))
        with torch.backends.mkldnn.flags(enabled=False):
            variants["torch_no_onednn"] = bench(torch, TF.conv2d, lambda y, i, gy: torch.autograd.grad(y, i, gy))
        algos = ["auto", "im2col"]
        if k == 3 and s == 1:
            algos.append("winograd")
        if g == cin and cout % cin == 0:
            algos.append("depthwise")
        for algo in algos:
            os.environ["ADEPT_CONV_ALGO"] = algo
            variants["adept_" + algo] = bench(adept, F.conv2d, lambda y, i, gy: adept.autograd.grad(y, i, gy))
        os.environ.pop("ADEPT_CONV_ALGO", None)
        row["ms"] = {v: dict(forward=t[0] * 1e3, forward_backward=t[1] * 1e3) for v, t in variants.items()}
        row["gflops"] = {v: dict(forward=flops / t[0] / 1e9, forward_backward=3 * flops / t[1] / 1e9)
                         for v, t in variants.items()}
        best_torch = [min(variants["torch_onednn"][i], variants["torch_no_onednn"][i]) for i in range(2)]
        row["ratio_auto_vs_best_torch"] = dict(forward=best_torch[0] / variants["adept_auto"][0],
                                               forward_backward=best_torch[1] / variants["adept_auto"][1])
        row["ratio_auto_vs_torch_onednn"] = dict(
            forward=variants["torch_onednn"][0] / variants["adept_auto"][0],
            forward_backward=variants["torch_onednn"][1] / variants["adept_auto"][1])
        results.append(row)
        ms = row["ms"]
        print(f"{name:14s} x{count} {cin:4d}->{cout:<4d} {h:4d}^2 k{k} s{s} g{g:<4d} fwd+bwd ms: "
              + " ".join(f"{v.replace('adept_', '').replace('torch_', 't_')}={ms[v]['forward_backward']:.2f}"
                         for v in ms)
              + f"  ratio(auto vs best torch) fwd {row['ratio_auto_vs_best_torch']['forward']:.2f}"
              + f" fwd+bwd {row['ratio_auto_vs_best_torch']['forward_backward']:.2f}", flush=True)

    def total(variant, kind):
        return sum(r["count"] * r["ms"][variant][kind] for r in results if variant in r["ms"])

    totals = {v: dict(forward=total(v, "forward"), forward_backward=total(v, "forward_backward"))
              for v in ("torch_onednn", "torch_no_onednn", "adept_auto", "adept_im2col")}
    print("\nwhole yolo11n conv stack (each layer x its count), ms:")
    for v, t in totals.items():
        print(f"  {v:16s} forward {t['forward']:8.1f}   forward+backward {t['forward_backward']:8.1f}")
    info = benchlib.machine_info(args.threads)
    info["openblas_core"] = openblas_core()
    out = args.out or os.path.join(benchlib.REPO, "bench", "results", f"conv_{benchlib.machine_slug(info)}.json")
    doc = dict(machine=info, date=datetime.datetime.now().isoformat(timespec="seconds"),
               torch_version=torch.__version__, threads=args.threads, batch=args.batch,
               load_average_1min=benchlib.load_load_average(),
               statistic="min over repeat samples of the per-call time (the machine is shared: the minimum filters other load)", ratio="torch time / adept time (>1: adept faster)",
               totals_ms=totals, results=results)
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
    print("wrote", out)


if __name__ == "__main__":
    main()
