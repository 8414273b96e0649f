"""Where the CPU time of one YOLO11n training step goes, Adept next to PyTorch, on the same machine,
thread count, weights, images and targets as yolo_vs_torch.py:

* Adept: `adept_bench_yolo train` under `perf record` (Linux perf, sampling at 999 Hz); every sampled
  symbol is put in a kernel family (GEMM, im2col, col2im, depthwise conv, batch norm forward and
  backward, SiLU forward and backward, pointwise, copies, reductions, pooling, resampling, libm, page
  faults and other kernel time, ...) and the families are ranked by their share of the samples; next
  to it the bench's own wall time per phase (forward, loss, backward, optimizer).
* PyTorch: the mirror's step under torch.profiler, the self CPU time of each aten op, ranked.

Both sides run `--iters` timed steps after `--warmup` ones; Adept's perf samples include its start-up
(weights, inputs: a few percent, reported as "other"). One command, about 2 minutes on 2 cores:

    /usr/bin/python3 bench/yolo/cpu_profile.py --build-dir build/release --threads 1 --batch 16 --imgsz 320
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
from benchlib import load_load_average, machine_info  # noqa: E402
import yolo_vs_torch as yvt  # noqa: E402

# (family, regex on the demangled symbol), first match wins. Kernel-side symbols ([k]) are matched by
# perf's "[k] " prefix, which the report keeps.
FAMILIES = [
    ("page faults (first touch of fresh memory)",
     r"^\[k\] .*(page_fault|clear_page|do_anonymous_page|handle_mm_fault|__handle_mm_fault|lru|folio|"
     r"alloc_pages|rmqueue|get_page_from_freelist|zap_|unmap|free_pages|memcg|mem_cgroup|pte)"),
    ("other kernel time", r"^\[k\] "),
    ("GEMM (OpenBLAS)", r"^\[\.\] ([sd]gemm_|[sd]gemv|blas_|gotoblas|exec_blas|inner_thread|.*_(ZEN|HASWELL|SKYLAKEX|SANDYBRIDGE|PRESCOTT)$)"),
    ("conv im2col", r"conv::.*im2col<"),
    ("conv col2im", r"conv::.*col2im<"),
    ("conv depthwise", r"conv::depthwise_"),
    ("conv winograd", r"conv::.*winograd"),
    ("conv other", r"conv::"),
    ("batch norm backward", r"backward_cpu\((adept::Tensor const&, ){7}adept::Tensor const&\)"),
    ("batch norm forward", r"(stats_cpu|apply_cpu)\("),
    ("SiLU backward", r"SiluGrad|silu_backward"),
    ("SiLU forward", r"SiluRun"),
    ("softplus / exp / sigmoid / tanh (SIMD)", r"simd::N_\w+::(Softplus|LogSigmoid|Exp|Sigmoid|Tanh)Run"),
    ("reductions", r"reduce_inner|reduce_outer|reduce_split|simd::sum_f32|order_row"),
    ("pooling", r"pool2d|max_span"),
    ("resampling (upsample)", r"interpolate"),
    ("copies (contiguous, cat, to)", r"copy_cpu|__memmove|__memcpy|memcpy|scatter_planes|cat_"),
    ("fills", r"fill_cpu|__memset|memset"),
    ("pointwise binary", r"binary_loop|binary_typed"),
    ("pointwise unary", r"unary_loop|unary_dispatch|unary_floating|where_cpu"),
    ("libm (scalar exp, log, ...)", r"^\[\.\] __\w+f(_fma)?$|^\[\.\] __ieee754"),
    ("indexing, sort, top-k", r"gather|scatter|index|sort|topk"),
    ("optimizer", r"sgd|optim"),
    ("allocator (malloc, free)", r"malloc|_int_free|cfree|aligned_alloc|cpu_cache"),
    ("OpenMP runtime (barriers, spin)", r"gomp|GOMP|omp_"),
]


def family_of(symbol):
    for name, rx in FAMILIES:
        if re.search(rx, symbol):
            return name
    return "other"


def perf_families(perf_data):
    """{family: percent of samples} and the top symbols, from `perf report`."""
    out = subprocess.run(["perf", "report", "-i", perf_data, "--no-children", "--sort", "symbol", "--stdio",
                          "--percent-limit", "0"], capture_output=True, text=True, check=True).stdout
    fam, top = {}, []
    for line in out.splitlines():
        m = re.match(r"\s+([0-9.]+)%\s+(\[[.k]\] .*?)\s*$", line)
        if not m:
            continue
        pct, sym = float(m.group(1)), m.group(2)
        f = family_of(sym)
        fam[f] = fam.get(f, 0.0) + pct
        if len(top) < 25:
            top.append({"percent": pct, "family": f, "symbol": sym[:160]})
    return dict(sorted(fam.items(), key=lambda kv: -kv[1])), top


def torch_profile(args, weights, inputs):
    """The mirror's training step under torch.profiler: self CPU ms per aten op per step, ranked."""
    code = f"""
import json, sys, torch
sys.path.insert(0, {os.path.join(REPO, 'tests', 'python')!r}); sys.path.insert(0, {HERE!r})
from safetensors.torch import load_file
from yolo_loss_mirror import detection_loss
from yolo_mirror import Yolo11
import yolo_vs_torch as yvt
core = yvt.match_openblas_kernels(True)
torch.set_num_threads({args.threads})
model = Yolo11("n", {yvt.NC}); model.load_state_dict(load_file({weights!r})); model.train()
inp = load_file({inputs!r}); images, targets = inp["images"], inp["targets"]
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.937, nesterov=True, weight_decay=5e-4)
def step():
    opt.zero_grad(set_to_none=True)
    with torch.profiler.record_function("forward"):
        maps = model(images)
    with torch.profiler.record_function("loss"):
        loss, _ = detection_loss(maps, targets, {yvt.NC})
    with torch.profiler.record_function("backward"):
        loss.backward()
    with torch.profiler.record_function("optimizer"):
        opt.step()
for _ in range({args.warmup}): step()
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
    for _ in range({args.iters}): step()
rows = []
for e in prof.key_averages():
    rows.append({{"op": e.key, "self_cpu_ms_per_step": e.self_cpu_time_total / 1e3 / {args.iters},
                 "cpu_total_ms_per_step": e.cpu_time_total / 1e3 / {args.iters}, "calls_per_step": e.count / {args.iters}}})
rows.sort(key=lambda r: -r["self_cpu_ms_per_step"])
total = sum(r["self_cpu_ms_per_step"] for r in rows if r["op"] not in ("forward", "loss", "backward", "optimizer"))
phases = {{r["op"]: r["cpu_total_ms_per_step"] for r in rows if r["op"] in ("forward", "loss", "backward", "optimizer")}}
print(json.dumps({{"torch_version": torch.__version__, "openblas_core": core, "self_cpu_ms_per_step_total": total,
                  "phase_cpu_total_ms_per_step": phases,
                  "ops": [dict(r, percent=100 * r["self_cpu_ms_per_step"] / total) for r in rows
                          if r["op"] not in ("forward", "loss", "backward", "optimizer")][:{args.top}]}}))
"""
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise SystemExit(f"torch profile failed:\n{p.stderr}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build", "release"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--imgsz", type=int, default=320)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--iters", type=int, default=3)
    ap.add_argument("--top", type=int, default=30, help="torch ops listed")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    exe = yvt.find_exe(os.path.abspath(args.build_dir))
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    with tempfile.TemporaryDirectory() as tmp:
        weights, inputs = os.path.join(tmp, "w.safetensors"), os.path.join(tmp, "in.safetensors")
        subprocess.run([exe, "init", "--out", weights, "--nc", str(yvt.NC), "--seed", str(args.seed)], env=env, check=True)
        yvt.make_inputs(inputs, args.batch, args.imgsz, args.seed)
        data = os.path.join(tmp, "perf.data")
        p = subprocess.run(["perf", "record", "-F", "999", "-o", data, "--", exe, "train", "--inputs", inputs,
                            "--weights", weights, "--warmup", str(args.warmup), "--iters", str(args.iters),
                            "--threads", str(args.threads)], env=env, capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit(f"perf record failed ({p.returncode}):\n{p.stderr}")
        bench = json.loads(p.stdout.strip().splitlines()[-1])
        families, top = perf_families(data)
        theirs = torch_profile(args, weights, inputs)
    step_s = yvt.median(bench["step_seconds"])
    result = {"benchmark": "yolo11n_cpu_profile", "machine": dict(machine_info(args.threads), lscpu=yvt.lscpu()),
              "load_average_1min": load_load_average(), "batch": args.batch, "imgsz": args.imgsz,
              "threads": args.threads, "adept": {"step_seconds_median": step_s,
                                                 "phase_median_seconds": bench["phase_median_seconds"],
                                                 "perf_family_percent": families, "perf_top_symbols": top,
                                                 "cpu_cache": bench.get("cpu_cache")},
              "torch": theirs}
    print(f"batch {args.batch} x {args.imgsz}, {args.threads} thread(s): Adept step {step_s * 1e3:.0f} ms "
          f"(phases {', '.join(f'{k} {v * 1e3:.0f}' for k, v in bench['phase_median_seconds'].items())}); "
          f"torch self CPU {theirs['self_cpu_ms_per_step_total']:.0f} ms/step "
          f"(phases {', '.join(f'{k} {v:.0f}' for k, v in theirs['phase_cpu_total_ms_per_step'].items())})")
    print(f"{'Adept: kernel family':<44} {'% samples':>9} {'~ms/step':>9}   {'torch: op':<44} {'self ms/step':>12}")
    fam_rows = list(families.items())
    for i in range(max(len(fam_rows), min(len(theirs["ops"]), 20))):
        left = (f"{fam_rows[i][0]:<44} {fam_rows[i][1]:>9.1f} {fam_rows[i][1] * step_s * 10:>9.0f}"
                if i < len(fam_rows) else " " * 64)
        right = (f"{theirs['ops'][i]['op']:<44} {theirs['ops'][i]['self_cpu_ms_per_step']:>12.1f}"
                 if i < min(len(theirs["ops"]), 20) else "")
        print(f"{left}   {right}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=2)
            f.write("\n")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
