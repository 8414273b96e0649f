"""Turns the output folder of h200_pipeline.sh into a JSON of where the whole pipeline's time goes: the
loader's images/s per worker count (adept_bench_loader, YOLO11's training augmentation at 640), the synthetic
step's images/s (adept_bench_yolo), and per `adept train` run (8 and 15 workers) each epoch's images/s (train
images / the epoch's seconds in results.csv, validation and checkpoints included) and the median of
batches.csv's per-batch images/s, each also as a fraction of the synthetic step. Prints a summary.
Usage: python3 combine_pipeline.py OUT_DIR out.json"""
import csv
import json
import os
import statistics
import sys


def rows(path):
    return [{k.strip(): v.strip() for k, v in r.items()} for r in csv.DictReader(open(path))]


def main():
    d, out_path = sys.argv[1], sys.argv[2]
    loader = [json.loads(line) for line in open(os.path.join(d, "loader.txt")) if line.startswith("{")]
    step = json.load(open(os.path.join(d, "step_b16.json")))["images_per_second"]
    runs = {}
    for w in (8, 15):
        res, bat = os.path.join(d, f"results_w{w}.csv"), os.path.join(d, f"batches_w{w}.csv")
        if not os.path.exists(res):
            continue
        batches = rows(bat)
        n = sum(1 for b in batches if b["epoch"] == "1") * 16  # batch 16, every batch full (800 images)
        epochs = []
        for r in rows(res):
            e = r["epoch"]
            per_batch = [float(b["images_per_s"]) for b in batches if b["epoch"] == e]
            ips = n / float(r["seconds"])
            epochs.append({"epoch": int(e), "seconds": float(r["seconds"]), "images_per_second": round(ips, 1),
                           "fraction_of_step": round(ips / step, 3),
                           "median_batch_images_per_second": round(statistics.median(per_batch), 1),
                           "median_batch_fraction_of_step": round(statistics.median(per_batch) / step, 3)})
        runs[f"workers_{w}"] = epochs
    gpu = open(os.path.join(d, "gpu.txt")).read().strip()
    cores = open(os.path.join(d, "nproc.txt")).read().strip()
    out = {"machine": f"{gpu}, {cores} CPU cores; Adept on Vulkan",
           "what": "adept train device=vulkan imgsz=640 batch=16 amp=False on 800 generated shapes images (+16 val), "
                   "2 epochs, against the synthetic step (adept_bench_yolo train --synthetic 16x640) and the "
                   "DataLoader alone (adept_bench_loader --imgsz 640 --batch 16); bench/yolo/h200_pipeline.sh",
           "synthetic_step_images_per_second": round(step, 1),
           "loader_alone": [{"workers": l["num_workers"], "images_per_second": round(l["images_per_second"], 1),
                             "first_pass_images_per_second": round(l["first_pass_images_per_second"], 1)}
                            for l in loader],
           "train": runs}
    json.dump(out, open(out_path, "w"), indent=1)
    print(f"synthetic step {step:.1f} img/s; loader alone:",
          ", ".join(f"{l['num_workers']} workers {l['images_per_second']:.0f}" for l in loader))
    for k, eps in runs.items():
        for e in eps:
            print(f"{k} epoch {e['epoch']}: {e['images_per_second']} img/s ({e['fraction_of_step']} of the step), "
                  f"median batch {e['median_batch_images_per_second']} ({e['median_batch_fraction_of_step']})")


if __name__ == "__main__":
    main()
