#!/usr/bin/env bash
# The float16 GEMM on cooperative matrices on the H200, in one lease: the ceiling of register-resident
# fragment multiplies and GEMM GFLOP/s at n = 1024..8192 (adept_vulkan_bench, also with
# ADEPT_VK_DISABLE_COOPMAT=1) next to cuBLAS (torch_cuda_bench.py), and the backend-ops harness on the
# products and convolutions (every layout the cooperative-matrix kernel takes, forward and backward), also
# with each tile build of the cooperative-matrix GEMM forced (ADEPT_VK_COOPMAT_TILE). The YOLO11n steps:
# bench/yolo/h200_amp.sh.
# Results in $OUT/h200_gemm.tar.xz; bench/vulkan/combine.py makes the GEMM table from its adept_gemm.json,
# torch_gemm.json and adept_gemm_nocoopmat.json. Run from the repository root on the lent GPU machine, carrying
# .gl/ and .device/bundle.tar.xz (scripts/device_bundle.sh with adept_vulkan_bench and adept_test_backend_ops).
set -u
DEST=${OUT:?set OUT to a results folder}
OUT=$(mktemp -d)
. bench/device_env.sh
timeout 120 /tmp/a/bin/adept_vulkan_bench "$OUT/adept_gemm.json" > "$OUT/adept_gemm.txt" 2>> "$OUT/log.txt"
ADEPT_VK_DISABLE_COOPMAT=1 timeout 120 /tmp/a/bin/adept_vulkan_bench "$OUT/adept_gemm_nocoopmat.json" > /dev/null 2>> "$OUT/log.txt"
timeout 100 python3 bench/vulkan/torch_cuda_bench.py "$OUT/torch_gemm.json" > /dev/null 2>> "$OUT/log.txt"
log "gemm done"
# The harness with the size rule, then with each build of the cooperative-matrix GEMM forced on every product.
PRODUCTS='^(matmul|mm|bmm|addmm|linear)$'
timeout 150 /tmp/a/bin/adept_test_backend_ops --backend vulkan --op "$PRODUCTS|^(conv2d|conv2d_silu|conv_transpose2d)$" \
  > "$OUT/backend_ops.txt" 2>&1
log "backend_ops rc=$?"
for t in 128x256 128x128 64x128; do
  ADEPT_VK_COOPMAT_TILE=$t timeout 60 /tmp/a/bin/adept_test_backend_ops --backend vulkan --op "$PRODUCTS" \
    > "$OUT/backend_ops_$t.txt" 2>&1
  log "backend_ops tile $t rc=$?"
done
cat "$OUT/log.txt"
tar -cJf "$DEST/h200_gemm.tar.xz" -C "$OUT" .
