#!/usr/bin/env bash
# Mixed precision on the H200, all in one lease (bench/README.md, "Mixed precision"):
#   1. the YOLO11n training step at batch 16/32/64 @ 640, one device wait per step: Adept float32 and amp
#      (adept_bench_yolo --amp 0|1, float16 autocast + GradScaler) next to PyTorch CUDA float32 (TF32 off),
#      AMP float16 + GradScaler and AMP bfloat16 (torch_cuda_step.py --amp off|fp16|bf16); batch 16 also
#      profiled on both sides;
#   2. the loss curve: `adept train device=vulkan` on 640 px shapes data, amp=False and amp=True from the
#      same seed (their results.csv).
# Everything lands in $OUT/h200_amp.tar.xz; unpacked, the folder goes to combine_amp.py, which writes
# bench/results/h200_yolo11n_amp.json. Run from the repository root on the lent GPU machine, carrying .gl/
# and .device/bundle.tar.xz as h200_train_profile.sh does.
set -u
DEST=${OUT:?set OUT to a results folder}
OUT=$(mktemp -d)
. bench/device_env.sh
B=/tmp/a/bin/adept_bench_yolo
for b in 16 32 64; do
  p=0; [[ $b == 16 ]] && p=3
  for amp in 0 1; do
    timeout 80 $B train --synthetic ${b}x640 --device vulkan --warmup 3 --iters 6 --phase-sync 0 --amp $amp \
      --profile $p > "$OUT/adept_amp${amp}_b$b.json" 2>> "$OUT/log.txt"
  done
  for m in off fp16 bf16; do
    timeout 60 python3 bench/yolo/torch_cuda_step.py --batch $b --warmup 3 --iters 6 --phase-sync 0 --amp $m \
      --profile $p > "$OUT/torch_${m}_b$b.json" 2>> "$OUT/log.txt"
  done
  log "step b$b done"
done
Y=$(/tmp/a/bin/adept_bench_make_shapes /tmp/sh imgsz=640 train_images=480 val_images=32 2>> "$OUT/log.txt" | tail -1)
for amp in False True; do
  timeout 150 /tmp/a/bin/adept train data="$Y" device=vulkan imgsz=640 epochs=4 batch=16 workers=8 amp=$amp \
    project=/tmp/runs name=amp_$amp exist_ok=True > "$OUT/train_amp_$amp.log" 2>&1
  log "adept train amp=$amp rc=$?"
  cp /tmp/runs/amp_$amp/results.csv "$OUT/results_amp_$amp.csv" 2>> "$OUT/log.txt"
done
cat "$OUT/log.txt"
tar -cJf "$DEST/h200_amp.tar.xz" -C "$OUT" .
