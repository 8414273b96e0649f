"""Turns the output folder of h200_train_profile.sh into one results file: the YOLO11n training step at
batch 16/32/64 (Adept Vulkan vs PyTorch CUDA, images/s and their ratio), the two profiles of the batch-16
step side by side (GPU time per kernel, per layer and direction, dispatches and host time per step), the
conv2d and GEMM ratios of the same lease, and the whole-pipeline images/s of `adept train device=vulkan`.
Prints the table of bench/README.md.
Usage: python3 combine_train_profile.py OUT_DIR out.json"""
import datetime
import json
import os
import re
import sys


def load(d, name):
    p = os.path.join(d, name)
    return json.load(open(p)) if os.path.exists(p) and os.path.getsize(p) else None


def pipeline_images_per_second(log_path):
    """Training images / seconds of the last epoch of `adept train`, between the log lines that end the
    last two epochs (the first epoch warms up: pipelines, workers); the validation of its few images
    counts in."""
    if not os.path.exists(log_path):
        return None
    text = open(log_path, errors="replace").read()
    images = re.search(r"(\d+) train / ", text)
    ends = [datetime.datetime.strptime(m, "%Y-%m-%d %H:%M:%S.%f")
            for m in re.findall(r"\[(\d+-\d+-\d+ \d+:\d+:\d+\.\d+)\] \[info\] epoch \d+: ", text)]
    if not images or len(ends) < 2:
        return None
    return round(int(images.group(1)) / (ends[-1] - ends[-2]).total_seconds(), 1)


def main():
    d, out_path = sys.argv[1], sys.argv[2]
    rows, profiles = [], {}
    for b in (16, 32, 64):
        a, t = load(d, f"adept_b{b}.json"), load(d, f"torch_b{b}.json")
        if not a or not t:
            continue
        rows.append({"batch": b, "adept_images_per_second": round(a["images_per_second"], 1),
                     "torch_images_per_second": round(t["images_per_second"], 1),
                     "adept_over_torch": round(a["images_per_second"] / t["images_per_second"], 3)})
        if a.get("profile") and t.get("profile"):
            profiles[b] = {"adept": a["profile"], "torch": t["profile"]}
    conv_a, conv_t = load(d, "adept_conv.json"), load(d, "torch_conv.json")
    conv = []
    if conv_a and conv_t:
        ref = {(tuple(r["layer"]), r["dtype"], r["direction"]): r["ms"] for r in conv_t["rows"]}
        for r in conv_a["rows"]:
            key = (tuple(r["layer"]), r["dtype"], r["direction"])
            if r["algo"] in ("auto", "fused") and key in ref:
                conv.append({"layer": r["layer"], "dtype": r["dtype"], "direction": r["direction"],
                             "adept_ms": r["ms"], "torch_ms": ref[key], "adept_over_torch": round(ref[key] / r["ms"], 3)})
    gemm_a, gemm_t = load(d, "adept_gemm.json"), load(d, "torch_gemm.json")
    gemm = []
    if gemm_a and gemm_t:
        ref = {(m["dtype"], m["n"]): m["gflops"] for m in gemm_t["matmul"]}
        gemm = [{"dtype": m["dtype"], "n": m["n"], "adept_gflops": round(m["gflops"], 1),
                 "torch_gflops": round(ref[(m["dtype"], m["n"])], 1),
                 "adept_over_torch": round(m["gflops"] / ref[(m["dtype"], m["n"])], 4)}
                for m in gemm_a["matmul"] if (m["dtype"], m["n"]) in ref]
    pipe = pipeline_images_per_second(os.path.join(d, "adept_train.log"))
    synth = next((r["adept_images_per_second"] for r in rows if r["batch"] == 16), None)
    gpu = open(os.path.join(d, "gpu.txt")).read().strip() if os.path.exists(os.path.join(d, "gpu.txt")) else "?"
    torch_version = next((load(d, f"torch_b{b}.json") or {}).get("torch_version") for b in (16,))
    out = {"machine": f"{gpu}; Adept on Vulkan (NVIDIA driver), PyTorch {torch_version} CUDA on the same GPU",
           "what": "YOLO11n training step (zero_grad, train-mode forward, detection loss, backward, SGD Nesterov) on "
                   "uniform 640x640 images with 2-8 boxes per image, float32 (TF32 off), one device wait per step: "
                   "adept_bench_yolo train --synthetic Bx640 --device vulkan --phase-sync 0 next to "
                   "bench/yolo/torch_cuda_step.py --phase-sync 0 (bench/yolo/h200_train_profile.sh)",
           "train_step": rows, "profiles": profiles, "conv2d": conv, "gemm": gemm,
           "pipeline": {"adept_train_images_per_second": pipe, "synthetic_step_images_per_second": synth,
                        "ratio": round(pipe / synth, 3) if pipe and synth else None,
                        "what": "adept train device=vulkan imgsz=640 batch=16 workers=8 epochs=2 on 800 generated "
                                "shapes images (decode, augmentation, collation, upload, accumulation to nbs 64): "
                                "the second epoch's training images over its seconds (its 16-image validation "
                                "included)"}}
    json.dump(out, open(out_path, "w"), indent=1)
    for r in rows:
        print(f"batch {r['batch']:3d}: adept {r['adept_images_per_second']:7.1f} img/s  torch "
              f"{r['torch_images_per_second']:7.1f} img/s  ratio {r['adept_over_torch']:.3f}")
    for b, p in profiles.items():
        a, t = p["adept"], p["torch"]
        print(f"profile b{b}: adept wall {a['wall_ms_per_step']:.1f} ms, GPU busy {a['device_busy_ms_per_step']:.1f} ms, "
              f"{a['dispatches_per_step']:.0f} dispatches, host {a['host_record_ms_per_step']:.1f} ms | torch wall "
              f"{t['wall_ms_per_step']:.1f} ms, GPU busy {t['device_busy_ms_per_step']:.1f} ms, "
              f"{t['kernel_launches_per_step']:.0f} launches")
    if pipe:
        print(f"pipeline: adept train {pipe:.1f} img/s vs synthetic step {synth} img/s")


if __name__ == "__main__":
    main()
