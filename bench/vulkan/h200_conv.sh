#!/usr/bin/env bash
# Convolutions and the YOLO11n training step on the H200, in one lease: the backend-ops harness on the
# convolutions (every algorithm against the CPU), conv2d per YOLO11n-like layer, direction and algorithm with
# the GPU's time alone (adept_vulkan_conv_bench --gpu-time) next to cuDNN (torch_conv_bench.py --gpu-time,
# TF32 off), and the training step at batch 16 / 32 / 64 @ 640: Adept float32 and amp (adept_bench_yolo
# --amp 0|1; batch 16 also profiled) next to PyTorch CUDA float32, AMP float16 and AMP bfloat16
# (torch_cuda_step.py). Everything lands in $OUT/h200_conv.tar.xz: combine_conv.py turns adept_conv.json and
# torch_conv.json into results/h200_conv.json, yolo/combine_amp.py the steps into results/h200_yolo11n_amp.json.
# With .device/base.tar.xz (a bundle of another build's adept_bench_yolo: BUNDLE_OUT=.device/base.tar.xz
# scripts/device_bundle.sh ...) its float32 and amp steps run too, as base_amp{0,1}_b*.json: a before/after in one
# lease.
# OPS (a regex, default the convolutions) picks the harness's ops; CONV_BENCH=0 leaves out the per-layer conv
# bench and cuDNN (for a lease that measures only the step).
# Run from the repository root on the lent GPU machine, carrying .gl/ and .device/bundle.tar.xz
# (scripts/device_bundle.sh with adept_vulkan_conv_bench, adept_bench_yolo and adept_test_backend_ops).
set -u
DEST=${OUT:?set OUT to a results folder}
OUT=$(mktemp -d)
. bench/device_env.sh
B=/tmp/a/bin
[[ -f .device/base.tar.xz ]] && mkdir -p /tmp/base && tar -xJf .device/base.tar.xz -C /tmp/base
timeout 150 $B/adept_test_backend_ops --backend vulkan --op "${OPS:-^(conv2d|conv2d_silu|conv_transpose2d)\$}" \
  > "$OUT/backend_ops.txt" 2>&1
log "backend_ops rc=$?"
if [[ ${CONV_BENCH:-1} != 0 ]]; then
  timeout 150 $B/adept_vulkan_conv_bench bench/vulkan/conv_shapes.txt "$OUT/adept_conv.json" --gpu-time > /dev/null 2>> "$OUT/log.txt"
  log "conv rc=$?"
  timeout 100 python3 bench/vulkan/torch_conv_bench.py bench/vulkan/conv_shapes.txt "$OUT/torch_conv.json" --gpu-time \
    > /dev/null 2>> "$OUT/log.txt"
  log "torch conv rc=$?"
fi
for b in 16 32 64; do
  p=0; [[ $b == 16 ]] && p=3
  for amp in 0 1; do
    timeout 80 $B/adept_bench_yolo train --synthetic ${b}x640 --device vulkan --warmup 3 --iters 6 --phase-sync 0 --amp $amp \
      --profile $p > "$OUT/adept_amp${amp}_b$b.json" 2>> "$OUT/log.txt"
  done
  if [[ -d /tmp/base ]]; then
    for amp in 0 1; do
      LD_LIBRARY_PATH=/tmp/base/lib timeout 80 /tmp/base/bin/adept_bench_yolo train --synthetic ${b}x640 --device vulkan \
        --warmup 3 --iters 6 --phase-sync 0 --amp $amp --profile $p > "$OUT/base_amp${amp}_b$b.json" 2>> "$OUT/log.txt"
    done
  fi
  for m in off fp16 bf16; do
    timeout 60 python3 bench/yolo/torch_cuda_step.py --batch $b --warmup 3 --iters 6 --phase-sync 0 --amp $m \
      --profile $p > "$OUT/torch_${m}_b$b.json" 2>> "$OUT/log.txt"
  done
  log "step b$b done"
done
cat "$OUT/log.txt"
tar -cJf "$DEST/h200_conv.tar.xz" -C "$OUT" .
