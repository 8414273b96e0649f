#!/usr/bin/env bash
# One-lease sweep of float16 GEMM shader variants on the H200: for every folder V under $VARIANTS (default
# .device/variants, made by bench/vulkan/gemm_variants.py), each holding a build of shaders/matmul_coopmat.comp
# with other macros under a built-in build's module name and, in V/tile, its tile (BMxBN, passed as
# ADEPT_VK_COOPMAT_TILE so that the host runs that module with the variant's grid), adept_vulkan_bench --gemm
# float16 with ADEPT_VK_SHADER_DIR=V (GFLOP/s at n = 1024..8192, kernel time alone), and, for folders whose name
# starts with n_ (variants meant to compute the product), the backend-ops harness on the products with that
# variant. combine_sweep.py merges the unpacked results of several leases. Then the built-in kernels: the same
# GEMMs in float16 and float32 (float32 also with ADEPT_VK_MATMUL_TILE=128: the 128-tiles everywhere), the
# harness on products and convolutions, and cuBLAS (torch_cuda_bench.py). Results in $OUT/sweep.tar.xz:
# <V>.json, <V>.harness.txt, builtin.json, builtin_f32.json, builtin_f32_t128.json, backend_ops.txt,
# torch_gemm.json, gpu.txt (the GPU and driver), log.txt.
# Run from the repository root on the lent GPU machine, carrying .gl/ and .device/ (scripts/device_bundle.sh
# with adept_vulkan_bench and adept_test_backend_ops).
set -u
DEST=${OUT:?set OUT to a results folder}
VARIANTS=${VARIANTS:-.device/variants}
OUT=$(mktemp -d)
. bench/device_env.sh
PRODUCTS='^(matmul|mm|bmm|addmm|linear)$'
timeout 60 /tmp/a/bin/adept_vulkan_bench --gemm float16 "$OUT/builtin.json" > /dev/null 2>> "$OUT/log.txt"
timeout 60 /tmp/a/bin/adept_vulkan_bench --gemm float32 "$OUT/builtin_f32.json" > /dev/null 2>> "$OUT/log.txt"
ADEPT_VK_MATMUL_TILE=128 timeout 60 /tmp/a/bin/adept_vulkan_bench --gemm float32 "$OUT/builtin_f32_t128.json" \
  > /dev/null 2>> "$OUT/log.txt"
timeout 100 python3 bench/vulkan/torch_cuda_bench.py "$OUT/torch_gemm.json" > /dev/null 2>> "$OUT/log.txt"
log "builtin and torch done"
for v in "$VARIANTS"/*/; do
  name=$(basename "$v")
  export ADEPT_VK_COOPMAT_TILE=$(cat "$v/tile" 2>/dev/null)
  ADEPT_VK_SHADER_DIR=$v timeout 40 /tmp/a/bin/adept_vulkan_bench --gemm float16 "$OUT/$name.json" \
    > /dev/null 2>> "$OUT/log.txt"
  log "$name bench rc=$?"
  if [[ $name == n_* ]]; then
    ADEPT_VK_SHADER_DIR=$v timeout 40 /tmp/a/bin/adept_test_backend_ops --backend vulkan --op "$PRODUCTS" \
      > "$OUT/$name.harness.txt" 2>&1
    log "$name harness rc=$?"
  fi
  unset ADEPT_VK_COOPMAT_TILE
done
timeout 150 /tmp/a/bin/adept_test_backend_ops --backend vulkan --op "$PRODUCTS|^(conv2d|conv2d_silu|conv_transpose2d)$" \
  > "$OUT/backend_ops.txt" 2>&1
log "builtin harness rc=$?"
cat "$OUT/log.txt"
tar -cJf "$DEST/sweep.tar.xz" -C "$OUT" .
