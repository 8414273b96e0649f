"""Turns the output folder of h200_amp.sh into bench/results/h200_yolo11n_amp.json: the YOLO11n training
step at batch 16/32/64 (images/s of Adept float32 and amp, PyTorch CUDA float32, AMP float16 and AMP
bfloat16, with the ratios the README shows), the batch-16 profiles of both amp steps, and the loss curve of
`adept train` with amp=False and amp=True (per epoch: the train and val losses, mAP50-95, and the largest
difference between the two runs, relative for the losses). Prints the README's table.
Usage: python3 combine_amp.py OUT_DIR out.json"""
import csv
import json
import os
import sys


def load(d, name):
    p = os.path.join(d, name)
    return json.load(open(p)) if os.path.exists(p) and os.path.getsize(p) else None


def curve(d, amp):
    p = os.path.join(d, f"results_amp_{amp}.csv")
    if not os.path.exists(p):
        return None
    rows = list(csv.DictReader(open(p)))
    keys = [k for k in rows[0] if k.strip().startswith(("train/", "val/", "metrics/mAP50-95"))] if rows else []
    return [{k.strip(): float(r[k]) for k in keys} | {"epoch": int(float(r["epoch"]))} for r in rows]


def ips(j):
    return round(j["images_per_second"], 1) if j else None


def ratio(a, b):
    return round(a / b, 3) if a and b else None


def main():
    d, out_path = sys.argv[1], sys.argv[2]
    rows, profiles = [], {}
    for b in (16, 32, 64):
        a32, a16 = load(d, f"adept_amp0_b{b}.json"), load(d, f"adept_amp1_b{b}.json")
        t32, t16, tbf = (load(d, f"torch_{m}_b{b}.json") for m in ("off", "fp16", "bf16"))
        r = {"batch": b, "adept_float32": ips(a32), "adept_amp": ips(a16), "torch_float32": ips(t32),
             "torch_amp_fp16": ips(t16), "torch_amp_bf16": ips(tbf)}
        r["adept_amp_over_torch_amp_bf16"] = ratio(r["adept_amp"], r["torch_amp_bf16"])
        r["adept_amp_over_torch_amp_fp16"] = ratio(r["adept_amp"], r["torch_amp_fp16"])
        r["adept_amp_over_adept_float32"] = ratio(r["adept_amp"], r["adept_float32"])
        r["adept_float32_over_torch_float32"] = ratio(r["adept_float32"], r["torch_float32"])
        if a16:
            r["adept_amp_final_loss_scale"] = a16.get("final_loss_scale")
            r["adept_amp_peak_reserved_gib"] = round(a16["device_memory"]["peak_reserved_bytes"] / 2**30, 2)
        if a32:
            r["adept_float32_peak_reserved_gib"] = round(a32["device_memory"]["peak_reserved_bytes"] / 2**30, 2)
        rows.append(r)
        # A before/after in the same lease (h200_conv.sh with .device/base.tar.xz): the other build's steps.
        b32, b16 = load(d, f"base_amp0_b{b}.json"), load(d, f"base_amp1_b{b}.json")
        if b32 or b16:
            r["base_float32"], r["base_amp"] = ips(b32), ips(b16)
            r["adept_float32_over_base"] = ratio(r["adept_float32"], r["base_float32"])
            r["adept_amp_over_base"] = ratio(r["adept_amp"], r["base_amp"])
        if a16 and a16.get("profile") and t16 and t16.get("profile"):
            profiles[b] = {"adept_amp": a16["profile"], "torch_amp_fp16": t16["profile"]}
    f32, amp = curve(d, "False"), curve(d, "True")
    diff = None
    if f32 and amp:
        diff = {}
        for k in f32[0]:
            if k.startswith(("train/", "val/")):
                diff[k] = round(max(abs(x[k] - y[k]) / max(abs(x[k]), 1e-9) for x, y in zip(f32, amp)), 4)
        # mAP is near 0 after 4 epochs from scratch: its absolute difference.
        m = "metrics/mAP50-95(B)"
        if m in f32[0]:
            diff[m + " (absolute)"] = round(max(abs(x[m] - y[m]) for x, y in zip(f32, amp)), 4)
    gpu = open(os.path.join(d, "gpu.txt")).read().strip() if os.path.exists(os.path.join(d, "gpu.txt")) else "?"
    tv = (load(d, "torch_off_b16.json") or {}).get("torch_version")
    out = {"machine": f"{gpu}; Adept on Vulkan (NVIDIA driver), PyTorch {tv} CUDA on the same GPU",
           "what": "YOLO11n training step (zero_grad, train-mode forward, detection loss, backward, SGD Nesterov) on "
                   "uniform 640x640 images with 2-8 boxes per image, one device wait per step, images/s: Adept "
                   "float32 and amp (float16 autocast, float32 loss, GradScaler; adept_bench_yolo --amp 0|1) next to "
                   "PyTorch float32 (TF32 off), AMP float16 + GradScaler and AMP bfloat16 (torch_cuda_step.py "
                   "--amp off|fp16|bf16), all in one lease (bench/yolo/h200_amp.sh)",
           "train_step": rows, "profiles_b16": profiles,
           "loss_curve": {"what": "adept train device=vulkan on 480 generated 640 px shapes images, batch 16, 4 "
                                  "epochs, same seed, amp=False vs amp=True: results.csv per epoch and the largest "
                                  "difference per column (relative for the losses, absolute for mAP)",
                          "float32": f32, "amp": amp, "max_relative_difference": diff}}
    json.dump(out, open(out_path, "w"), indent=1)
    for r in rows:
        print(f"batch {r['batch']:3d}: adept f32 {r['adept_float32']} amp {r['adept_amp']} | torch f32 "
              f"{r['torch_float32']} fp16 {r['torch_amp_fp16']} bf16 {r['torch_amp_bf16']} | amp/bf16 "
              f"{r['adept_amp_over_torch_amp_bf16']} amp/fp16 {r['adept_amp_over_torch_amp_fp16']}"
              + (f" | base f32 {r['base_float32']} amp {r['base_amp']}" if "base_float32" in r else ""))
    for b, p in profiles.items():
        a, t = p["adept_amp"], p["torch_amp_fp16"]
        print(f"profile b{b} amp: adept wall {a['wall_ms_per_step']:.1f} ms GPU {a['device_busy_ms_per_step']:.1f} ms "
              f"{a['dispatches_per_step']:.0f} dispatches host {a['host_record_ms_per_step']:.1f} ms | torch fp16 wall "
              f"{t['wall_ms_per_step']:.1f} ms GPU {t['device_busy_ms_per_step']:.1f} ms")
    if diff:
        print("loss curve max relative difference:", diff)


if __name__ == "__main__":
    main()
