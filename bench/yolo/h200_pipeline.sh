#!/usr/bin/env bash
# Where the whole pipeline's time goes on the H200 machine (issue 17: `adept train device=vulkan` at 640 should
# reach 90 % of the synthetic step's images/s), in one lease: 800 generated 640 px shapes images; the C++
# DataLoader alone with YOLO11's training augmentation (adept_bench_loader, 4 / 8 / 12 / 15 workers: the images/s
# the loader can supply); then `adept train device=vulkan` for 2 epochs at batch 16 with 8 and with 15 workers
# (batches.csv has images/s per batch; results.csv the epochs); and the synthetic step (adept_bench_yolo) for
# the ceiling. Everything lands in $OUT/h200_pipeline.tar.xz. Run from the repository root on the lent GPU
# machine, carrying .gl/ and .device/bundle.tar.xz from
#   scripts/device_bundle.sh build/release/bin/adept build/release/bench/adept_bench_yolo \
#     build/release/bench/adept_bench_loader build/release/bench/adept_bench_make_shapes
set -u
DEST=${OUT:?set OUT to a results folder}
OUT=$(mktemp -d)
. bench/device_env.sh
nproc > "$OUT/nproc.txt"
Y=$(/tmp/a/bin/adept_bench_make_shapes /tmp/sh imgsz=640 train_images=800 val_images=16 2>> "$OUT/log.txt" | tail -1)
log "data $Y"
timeout 150 /tmp/a/bin/adept_bench_loader "$Y" --imgsz 640 --batch 16 --passes 2 --workers 4,8,12,15 \
  --out "$OUT/loader.json" > "$OUT/loader.txt" 2>&1
log "loader rc=$?"
timeout 80 /tmp/a/bin/adept_bench_yolo train --synthetic 16x640 --device vulkan --warmup 3 --iters 6 --phase-sync 0 \
  > "$OUT/step_b16.json" 2>> "$OUT/log.txt"
for w in 8 15; do
  timeout 150 /tmp/a/bin/adept train data="$Y" device=vulkan imgsz=640 epochs=2 batch=16 workers=$w amp=False plots=False \
    project=/tmp/runs name=w$w exist_ok=True > "$OUT/train_w$w.log" 2>&1
  log "adept train workers=$w rc=$?"
  cp /tmp/runs/w$w/batches.csv "$OUT/batches_w$w.csv"; cp /tmp/runs/w$w/results.csv "$OUT/results_w$w.csv"
done
cat "$OUT/log.txt"
tar -cJf "$DEST/h200_pipeline.tar.xz" -C "$OUT" .
