#!/usr/bin/env bash
# The float16 GEMM on cooperative matrices on the H200, in one lease: the ceiling of register-resident
# fragment multiplies and GEMM GFLOP/s at n = 1024..8192 (adept_vulkan_bench, also with
# ADEPT_VK_DISABLE_COOPMAT=1) next to cuBLAS (torch_cuda_bench.py), the backend-ops harness on the
# products and convolutions (every layout the cooperative-matrix kernel takes, forward and backward), and
# the YOLO11n amp step at batch 16 and 64 (adept_bench_yolo --amp 1 vs torch_cuda_step.py --amp fp16).
# Results in $OUT/h200_gemm.tar.xz; bench/vulkan/combine.py makes the GEMM table from its adept_gemm.json,
# torch_gemm.json and adept_gemm_nocoopmat.json. Run from the repository root on the lent GPU machine, carrying
# .gl/ and .device/bundle.tar.xz (scripts/device_bundle.sh with adept_vulkan_bench, adept_bench_yolo and
# adept_test_backend_ops).
set -u
DEST=${OUT:?set OUT to a results folder}
OUT=$(mktemp -d)
. bench/device_env.sh
timeout 120 /tmp/a/bin/adept_vulkan_bench "$OUT/adept_gemm.json" > "$OUT/adept_gemm.txt" 2>> "$OUT/log.txt"
ADEPT_VK_DISABLE_COOPMAT=1 timeout 120 /tmp/a/bin/adept_vulkan_bench "$OUT/adept_gemm_nocoopmat.json" > /dev/null 2>> "$OUT/log.txt"
timeout 100 python3 bench/vulkan/torch_cuda_bench.py "$OUT/torch_gemm.json" > /dev/null 2>> "$OUT/log.txt"
log "gemm done"
timeout 150 /tmp/a/bin/adept_test_backend_ops --backend vulkan --op '^(matmul|mm|bmm|addmm|linear|conv2d|conv2d_silu|conv_transpose2d)$' \
  > "$OUT/backend_ops.txt" 2>&1
log "backend_ops rc=$?"
for b in 16 64; do
  timeout 80 /tmp/a/bin/adept_bench_yolo train --synthetic ${b}x640 --device vulkan --warmup 3 --iters 6 --phase-sync 0 \
    --amp 1 > "$OUT/adept_amp1_b$b.json" 2>> "$OUT/log.txt"
  timeout 60 python3 bench/yolo/torch_cuda_step.py --batch $b --warmup 3 --iters 6 --phase-sync 0 --amp fp16 \
    > "$OUT/torch_fp16_b$b.json" 2>> "$OUT/log.txt"
  log "amp step b$b done"
done
cat "$OUT/log.txt"
tar -cJf "$DEST/h200_gemm.tar.xz" -C "$OUT" .
