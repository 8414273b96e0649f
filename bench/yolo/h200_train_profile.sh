#!/usr/bin/env bash
# The H200 speed table of bench/README.md ("GPU speed next to PyTorch CUDA"), all in one lease:
#   1. the YOLO11n training step at batch 16/32/64 @ 640 (one device wait per step, float32, TF32 off),
#      Adept's profiled (adept_bench_yolo --profile) next to PyTorch's (torch_cuda_step.py --profile);
#   2. conv2d per YOLO11n-like layer and direction (adept_vulkan_conv_bench vs torch_conv_bench.py);
#   3. GEMM float32/float16 at n = 256..4096 (adept_vulkan_bench vs torch_cuda_bench.py);
#   4. the whole pipeline: `adept train device=vulkan` on 640 px shapes data with loader workers, its
#      images/s next to the synthetic step's.
# Everything lands in $OUT/h200_train_profile.tar.xz (the device tool brings back few files); unpacked, the
# folder goes to combine_train_profile.py, which writes bench/results/h200_yolo11n_train_profile.json.
# Run from the repository root on the lent GPU machine (../.library/device/README.md), carrying .gl/ (the
# Vulkan loader debs) and .device/bundle.tar.xz from
#   scripts/device_bundle.sh build/release/bin/adept build/release/bench/adept_bench_yolo \
#     build/release/bench/adept_vulkan_conv_bench build/release/bench/adept_vulkan_bench \
#     build/release/bench/adept_bench_make_shapes
set -u
DEST=${OUT:?set OUT to a results folder}
OUT=$(mktemp -d)
. bench/device_env.sh
B=/tmp/a/bin/adept_bench_yolo
for b in 16 32 64; do
  p=0; [[ $b == 16 ]] && p=3
  timeout 100 $B train --synthetic ${b}x640 --device vulkan --warmup 3 --iters 6 --phase-sync 0 --profile $p \
    > "$OUT/adept_b$b.json" 2>> "$OUT/log.txt"
  timeout 100 python3 bench/yolo/torch_cuda_step.py --batch $b --warmup 3 --iters 6 --phase-sync 0 --profile $p \
    > "$OUT/torch_b$b.json" 2>> "$OUT/log.txt"
  log "step b$b done"
done
timeout 150 /tmp/a/bin/adept_vulkan_conv_bench bench/vulkan/conv_shapes.txt "$OUT/adept_conv.json" --gpu-time > /dev/null 2>> "$OUT/log.txt"
timeout 100 python3 bench/vulkan/torch_conv_bench.py bench/vulkan/conv_shapes.txt "$OUT/torch_conv.json" --gpu-time > /dev/null 2>> "$OUT/log.txt"
log "conv done"
timeout 100 /tmp/a/bin/adept_vulkan_bench "$OUT/adept_gemm.json" > /dev/null 2>> "$OUT/log.txt"
timeout 100 python3 bench/vulkan/torch_cuda_bench.py "$OUT/torch_gemm.json" > /dev/null 2>> "$OUT/log.txt"
log "gemm done"
Y=$(/tmp/a/bin/adept_bench_make_shapes /tmp/sh imgsz=640 train_images=800 val_images=16 2>> "$OUT/log.txt" | tail -1)
timeout 150 /tmp/a/bin/adept train data="$Y" device=vulkan imgsz=640 epochs=2 batch=16 workers=8 amp=False \
  project=/tmp/runs name=pipe exist_ok=True > "$OUT/adept_train.log" 2>&1
log "adept train rc=$?"
cat "$OUT/log.txt"
tar -cJf "$DEST/h200_train_profile.tar.xz" -C "$OUT" .
