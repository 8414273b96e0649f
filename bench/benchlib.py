"""Shared helpers of bench/compare.py and bench/ops_vs_torch.py: the machine description, the
adept_bench runner and its JSON parsing (median over repetitions, one record per benchmark)."""
import json
import os
import platform
import re
import subprocess
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def default_build_dir():
    """The first build directory holding adept_bench (release preset first)."""
    for d in ("build/release", "build/bench"):
        if os.path.exists(os.path.join(REPO, d, "bench", "adept_bench")):
            return os.path.join(REPO, d)
    return os.path.join(REPO, "build/release")


def machine_info(threads):
    """CPU model, core count, and the thread count the measurements used."""
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"cpu_model": model, "logical_cpus": os.cpu_count(), "threads_used": threads,
            "hostname": platform.node(), "kernel": platform.release()}


def machine_slug(info):
    """A file-name-safe machine name: cpu model and logical cpu count."""
    slug = re.sub(r"[^a-z0-9]+", "-", info["cpu_model"].lower()).strip("-")
    return f"{slug}-{info['logical_cpus']}cpu"


def load_load_average():
    """The 1-minute load average (a busy machine makes timings noisy: it is recorded with them)."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


def run_adept_bench(build_dir, threads, bench_filter=".", min_time=0.3, repetitions=3):
    """Runs adept_bench and returns ({name: record}, context). A record holds time_us (median per-call
    time over the repetitions), best_time_us (the fastest repetition) and the counters of the median
    repetition (bytes_per_second, flop_per_second, traffic_bytes)."""
    exe = os.path.join(build_dir, "bench", "adept_bench")
    if not os.path.exists(exe):
        raise SystemExit(f"{exe} not found: build it with cmake --build {build_dir} --target adept_bench")
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        cmd = [exe, f"--benchmark_filter={bench_filter}", f"--benchmark_min_time={min_time}",
               f"--benchmark_repetitions={repetitions}", f"--benchmark_out={out.name}",
               "--benchmark_out_format=json"]
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
        data = json.load(open(out.name))
    runs = {}
    for b in data["benchmarks"]:
        if b.get("run_type", "iteration") != "iteration":
            continue
        assert b["time_unit"] == "us", b["time_unit"]
        runs.setdefault(b.get("run_name", b["name"]).replace("/real_time", ""), []).append(b)
    records = {}
    for name, reps in runs.items():
        reps.sort(key=lambda b: b["real_time"])
        med = reps[(len(reps) - 1) // 2]
        rec = {"time_us": med["real_time"], "best_time_us": reps[0]["real_time"], "repetitions": len(reps)}
        for key in ("bytes_per_second", "flop_per_second", "traffic_bytes"):
            if key in med:
                rec[key] = med[key]
        records[name] = rec
    return records, data.get("context", {})
