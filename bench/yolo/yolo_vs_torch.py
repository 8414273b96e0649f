"""YOLO11n in Adept (C++, bench/yolo/yolo_bench.cpp) next to the PyTorch mirror (tests/python/yolo_mirror.py
and yolo_loss_mirror.py) on the same machine, thread count, weights, images and targets:

* training step (zero_grad -> train-mode forward -> DetectionLoss -> backward -> SGD with Nesterov
  momentum 0.937 and weight decay 5e-4) in images/s at batch 8 x 640 and batch 16 x 320;
* peak resident memory (ru_maxrss) of a process doing that step, next to its RSS after the model,
  optimizer and inputs were built (baseline);
* inference latency at batch 1 x 640 and 8 x 640 (eval mode, no grad, decoded (B, 84, 8400) output).

Every configuration of every framework runs in its own process, so each peak belongs to one
configuration and the two OpenMP pools never compete. Ratios: speed = Adept img/s / torch img/s and
latency = torch ms / Adept ms (> 1: Adept faster), memory = Adept peak / torch peak (<= 1: Adept
uses no more); CPU-time ratios (torch / Adept CPU seconds) stay meaningful on a busy machine. Both
sides run the same OpenBLAS kernels (match_openblas_kernels), and the first step's loss items are
compared, so both computed the same thing. One command (about 1 minute on 2 idle cores):

    /usr/bin/python3 bench/yolo/yolo_vs_torch.py --build-dir build/release --threads 2
"""
import argparse
import ctypes
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
from benchlib import load_load_average, machine_info  # noqa: E402

TRAIN_CONFIGS = [(8, 640), (16, 320)]  # (batch, image size)
INFER_CONFIGS = [(1, 640), (8, 640)]
NC = 80


def rss_mib():
    """Current resident set (VmRSS) in MiB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return -1.0


def peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_seconds():
    """User + system CPU time of the process (all threads)."""
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime


def match_openblas_kernels(switch=True):
    """With `switch`, gives torch's OpenBLAS the kernels Adept runs (src/backends/cpu/openblas_coretype.cpp):
    Debian's OpenBLAS 0.3.21 falls back to its SSE3 'Prescott' kernels on CPUs it does not know (e.g. Emerald
    Rapids), and Adept then switches to SkylakeX (AVX-512) or Haswell (AVX2) kernels. Without this,
    torch's GEMMs would run 3-5x slower than Adept's for a reason outside both frameworks. Same
    mechanism as Adept's: set OPENBLAS_CORETYPE and re-run OpenBLAS's kernel selection. Returns the
    core name in use afterwards (without `switch`, the one OpenBLAS picked)."""
    lib = ctypes.CDLL("libopenblas.so.0")  # the library torch loaded (same soname, same handle)
    lib.openblas_get_corename.restype = ctypes.c_char_p
    core = lib.openblas_get_corename().decode()
    if not switch or "OPENBLAS_CORETYPE" in os.environ or core.lower() != "prescott":
        return core
    with open("/proc/cpuinfo") as f:
        flags = set(next((line for line in f if line.startswith("flags")), ":").split(":", 1)[1].split())
    better = ("SkylakeX" if {"avx512f", "avx512vl", "avx512bw", "avx512dq"} <= flags
              else "Haswell" if {"avx2", "fma"} <= flags else None)
    if better:
        os.environ["OPENBLAS_CORETYPE"] = better
        lib.gotoblas_dynamic_quit()
        lib.gotoblas_dynamic_init()
    return lib.openblas_get_corename().decode()


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


class PhaseTimes:
    """Wall and CPU seconds of the named phases of a step, one entry per timed step."""

    def __init__(self):
        self.wall, self.cpu = {}, {}
        self.start()

    def start(self):
        self.t0, self.c0 = time.perf_counter(), cpu_seconds()

    def stop(self, name, keep):
        """Records the time since start() (or the last stop) under `name` when `keep`, and restarts."""
        if keep:
            self.wall.setdefault(name, []).append(time.perf_counter() - self.t0)
            self.cpu.setdefault(name, []).append(cpu_seconds() - self.c0)
        self.start()


# ---------------------------------------------------------------------------------------------
# The torch half: one configuration per process (run as `yolo_vs_torch.py --worker ...`).

def torch_worker(args):
    import torch
    from safetensors.torch import load_file

    sys.path.insert(0, os.path.join(REPO, "tests", "python"))
    from yolo_loss_mirror import detection_loss
    from yolo_mirror import Yolo11

    openblas_core = match_openblas_kernels(args.match_blas)
    torch.set_num_threads(args.threads)
    model = Yolo11("n", NC)
    model.load_state_dict(load_file(args.weights))
    inputs = load_file(args.inputs)
    images = inputs["images"]
    r = {"framework": "torch", "torch_version": torch.__version__, "mode": args.mode, "scale": "n", "nc": NC,
         "batch": images.shape[0], "imgsz": list(images.shape[2:]), "threads": torch.get_num_threads(),
         "warmup": args.warmup, "iters": args.iters, "openblas_core": openblas_core}
    if args.mode == "train":
        targets = inputs["targets"]
        r["targets"] = targets.shape[0]
        params = [p for p in model.parameters() if p.requires_grad]
        opt = torch.optim.SGD(params, lr=args.lr, momentum=0.937, nesterov=True, weight_decay=5e-4)
        model.train()
        r["baseline_rss_mib"], r["baseline_peak_rss_mib"] = rss_mib(), peak_rss_mib()
        phases = PhaseTimes()
        steps, cpu, losses = [], [], []
        for it in range(args.warmup + args.iters):
            timed = it >= args.warmup
            t0, c0 = time.perf_counter(), cpu_seconds()
            phases.start()
            opt.zero_grad(set_to_none=True)  # what Adept's zero_grad does (torch 1.13 defaults to False)
            maps = model(images)
            phases.stop("forward", timed)  # zero_grad included
            loss, items = detection_loss(maps, targets, NC)
            phases.stop("loss", timed)
            loss.backward()
            phases.stop("backward", timed)
            opt.step()
            phases.stop("optimizer", timed)
            losses.append(items.tolist())
            if timed:
                steps.append(time.perf_counter() - t0)
                cpu.append(cpu_seconds() - c0)
        r["step_seconds"] = steps
        r["step_cpu_seconds"] = cpu
        r["images_per_second"] = images.shape[0] / median(steps)
        r["best_images_per_second"] = images.shape[0] / min(steps)
        r["phase_median_seconds"] = {k: median(v) for k, v in phases.wall.items()}
        r["phase_median_cpu_seconds"] = {k: median(v) for k, v in phases.cpu.items()}
        r["loss_items"] = losses
    else:
        model.eval()
        times, cpu = [], []
        with torch.no_grad():
            r["baseline_rss_mib"], r["baseline_peak_rss_mib"] = rss_mib(), peak_rss_mib()
            for it in range(args.warmup + args.iters):
                t0 = time.perf_counter()
                c0 = cpu_seconds()
                out = model(images)
                if it >= args.warmup:
                    times.append(time.perf_counter() - t0)
                    cpu.append(cpu_seconds() - c0)
        r["output_shape"] = list(out.shape)
        r["output_checksum"] = float(out.double().sum())
        r["run_seconds"] = times
        r["run_cpu_seconds"] = cpu
        r["median_ms"] = 1e3 * median(times)
        r["best_ms"] = 1e3 * min(times)
    r["peak_rss_mib"] = peak_rss_mib()
    print(json.dumps(r), flush=True)


# ---------------------------------------------------------------------------------------------
# The driver.

def lscpu():
    """Model name, sockets, cores per socket and threads per core as lscpu prints them."""
    keys = {"Model name": "model_name", "Socket(s)": "sockets", "Core(s) per socket": "cores_per_socket",
            "Thread(s) per core": "threads_per_core", "CPU(s)": "cpus"}
    out = {}
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout.splitlines():
            k, _, v = line.partition(":")
            if k.strip() in keys:
                v = v.strip()
                out[keys[k.strip()]] = int(v) if v.isdigit() else v
    except (OSError, subprocess.CalledProcessError):
        pass
    return out


def make_inputs(path, batch, imgsz, seed):
    """Uniform images (batch, 3, imgsz, imgsz) and a target table of 2-8 boxes per image (random
    classes, sizes 4-40% of the image, inside it), (N, 6) rows (image, class, cx, cy, w, h)."""
    import numpy as np
    from safetensors.numpy import save_file

    rng = np.random.default_rng(seed)
    images = rng.uniform(0, 1, (batch, 3, imgsz, imgsz)).astype(np.float32)
    rows = []
    for b in range(batch):
        for _ in range(rng.integers(2, 9)):
            w, h = rng.uniform(0.04, 0.4, 2)
            cx, cy = rng.uniform(w / 2, 1 - w / 2), rng.uniform(h / 2, 1 - h / 2)
            rows.append([b, rng.integers(0, NC), cx, cy, w, h])
    save_file({"images": images, "targets": np.array(rows, np.float32)}, path)
    return len(rows)


def run_json(cmd, env):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stderr}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def find_exe(build_dir):
    exe = os.path.join(build_dir, "bench", "adept_bench_yolo")
    if not os.path.exists(exe):
        raise SystemExit(f"{exe} not found: build it with cmake --build {build_dir} --target adept_bench_yolo")
    return exe


def build_flags(build_dir):
    """CMAKE_BUILD_TYPE and CMAKE_CXX_FLAGS of the Adept build: the SIMD kernels use Highway's static
    target, so a build without -march runs them one lane at a time (HWY_SCALAR), much slower."""
    flags = {}
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt")) as f:
            for line in f:
                for key in ("CMAKE_BUILD_TYPE", "CMAKE_CXX_FLAGS"):
                    if line.startswith(key + ":"):
                        flags[key] = line.split("=", 1)[1].strip()
    except OSError:
        pass
    return flags


def rel_diff(a, b):
    return max(abs(x - y) / max(abs(y), 1e-12) for x, y in zip(a, b))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build", "release"))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--train-warmup", type=int, default=2)
    ap.add_argument("--train-iters", type=int, default=3)
    ap.add_argument("--infer-warmup", type=int, default=3)
    ap.add_argument("--infer-iters", type=int, default=15)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", default=None, help="comma-separated configuration names to run (e.g. train_b8_640)")
    ap.add_argument("--no-match-blas", dest="match_blas", action="store_false",
                    help="leave torch's OpenBLAS on the kernels it picks itself (see match_openblas_kernels)")
    # The default lands outside bench/results/, so a run cannot overwrite a committed result by accident.
    ap.add_argument("--out", default="yolo11n_vs_torch.json", help="JSON output (default: ./yolo11n_vs_torch.json)")
    # Worker mode (internal): one torch configuration in this process.
    ap.add_argument("--worker", choices=["torch"])
    ap.add_argument("--mode", choices=["train", "infer"])
    ap.add_argument("--inputs")
    ap.add_argument("--weights")
    ap.add_argument("--warmup", type=int)
    ap.add_argument("--iters", type=int)
    args = ap.parse_args()
    if args.worker:
        return torch_worker(args)

    build_dir = os.path.abspath(args.build_dir)
    exe = find_exe(build_dir)
    flags = build_flags(build_dir)
    if "-march" not in flags.get("CMAKE_CXX_FLAGS", ""):
        print(f"warning: {build_dir} was configured without -march: Adept's SIMD kernels run scalar "
              "(use the release preset)", file=sys.stderr)
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    result = {"benchmark": "yolo11n_vs_torch", "model": "yolo11n", "nc": NC,
              "machine": dict(machine_info(args.threads), lscpu=lscpu()), "adept_build": flags,
              "load_average_1min_start": load_load_average(),
              "train_step": "zero_grad(set_to_none) -> train forward -> DetectionLoss -> backward -> "
                            f"SGD(lr={args.lr}, momentum=0.937, nesterov, weight_decay=5e-4)",
              "ratios": "speed = adept img/s / torch img/s and latency = torch ms / adept ms (> 1: adept faster); "
                        "cpu_time = torch CPU s / adept CPU s per step or run (> 1: adept needs less); "
                        "memory = adept peak RSS / torch peak RSS (<= 1: adept uses no more), memory_delta the same "
                        "for peak minus the RSS after building model, optimizer and inputs",
              "configs": []}
    with tempfile.TemporaryDirectory() as tmp:
        weights = os.path.join(tmp, "yolo11n.safetensors")
        subprocess.run([exe, "init", "--out", weights, "--nc", str(NC), "--seed", str(args.seed)], env=env, check=True)
        jobs = [("train", b, s, args.train_warmup, args.train_iters) for b, s in TRAIN_CONFIGS]
        jobs += [("infer", b, s, args.infer_warmup, args.infer_iters if b == 1 else max(3, args.infer_iters // 3))
                 for b, s in INFER_CONFIGS]
        if args.only:
            jobs = [j for j in jobs if f"{j[0]}_b{j[1]}_{j[2]}" in args.only.split(",")]
        for mode, batch, imgsz, warmup, iters in jobs:
            inputs = os.path.join(tmp, f"{mode}_{batch}x{imgsz}.safetensors")
            make_inputs(inputs, batch, imgsz, args.seed)
            common = ["--inputs", inputs, "--weights", weights, "--warmup", str(warmup), "--iters", str(iters)]
            ours = run_json([exe, mode, "--threads", str(args.threads), "--lr", str(args.lr)] + common, env)
            theirs = run_json([sys.executable, os.path.abspath(__file__), "--worker", "torch", "--mode", mode,
                               "--threads", str(args.threads), "--lr", str(args.lr)] + common
                              + ([] if args.match_blas else ["--no-match-blas"]), env)
            cfg = {"name": f"{mode}_b{batch}_{imgsz}", "mode": mode, "batch": batch, "imgsz": imgsz,
                   "adept": ours, "torch": theirs,
                   "memory_ratio": ours["peak_rss_mib"] / theirs["peak_rss_mib"],
                   "memory_delta_ratio": (ours["peak_rss_mib"] - ours["baseline_rss_mib"])
                   / (theirs["peak_rss_mib"] - theirs["baseline_rss_mib"])}
            if mode == "train":
                cfg["speed_ratio"] = ours["images_per_second"] / theirs["images_per_second"]
                cfg["best_speed_ratio"] = ours["best_images_per_second"] / theirs["best_images_per_second"]
                # CPU time per step (all threads): steadier than wall time while other jobs share the machine.
                cfg["cpu_time_ratio"] = median(theirs["step_cpu_seconds"]) / median(ours["step_cpu_seconds"])
                # Same weights, images and targets: the first step's loss items must agree.
                cfg["first_step_loss_rel_diff"] = rel_diff(ours["loss_items"][0], theirs["loss_items"][0])
                if cfg["first_step_loss_rel_diff"] > 1e-3:
                    print(f"warning: {cfg['name']}: first-step loss items differ: {ours['loss_items'][0]} vs "
                          f"{theirs['loss_items'][0]}", file=sys.stderr)
                summary = (f"{ours['images_per_second']:.2f} vs {theirs['images_per_second']:.2f} img/s "
                           f"(speed x{cfg['speed_ratio']:.2f}, CPU time x{cfg['cpu_time_ratio']:.2f})")
            else:
                cfg["latency_ratio"] = theirs["median_ms"] / ours["median_ms"]
                cfg["cpu_time_ratio"] = median(theirs["run_cpu_seconds"]) / median(ours["run_cpu_seconds"])
                cfg["output_checksum_rel_diff"] = rel_diff([ours["output_checksum"]], [theirs["output_checksum"]])
                summary = (f"{ours['median_ms']:.1f} vs {theirs['median_ms']:.1f} ms "
                           f"(latency x{cfg['latency_ratio']:.2f}, CPU time x{cfg['cpu_time_ratio']:.2f})")
            print(f"{cfg['name']:>16}: adept vs torch {summary}; peak RSS {ours['peak_rss_mib']:.0f} vs "
                  f"{theirs['peak_rss_mib']:.0f} MiB (memory x{cfg['memory_ratio']:.2f})", flush=True)
            result["configs"].append(cfg)
    result["load_average_1min_end"] = load_load_average()
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
