#!/usr/bin/env bash
# Data-parallel benchmarks on the lent GPU machine (16 CPU cores, one H200), in one call: ddp_scaling.py with 1, 2,
# 4 and 8 processes of one thread (all-reduce bandwidth at 8, the YOLO11n step's scaling and overlap next to
# torch.distributed's gloo with the machine's PyTorch), then the all-reduce of GPU tensors staged through the host
# (2 processes on the one GPU) next to the same sizes on host tensors, and a 2-rank `adept train device=vulkan`.
# Carry .device/mpi.tar.xz (MPI=1 BUNDLE_OUT=.device/mpi.tar.xz scripts/device_bundle.sh build/release/bin/adept
# build/release/bench/adept_bench_yolo build/release/bench/adept_bench_allreduce: Open MPI as a relocated
# prefix) and .gl/ (the Vulkan loader); everything lands in $OUT.
set -u
DEST=${OUT:?set OUT to a results folder}
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
mkdir -p /tmp/adept && tar -xJf .device/mpi.tar.xz -C /tmp/adept
. /tmp/adept/mpienv
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$DEST/gpu.txt"
timeout 420 python3 bench/distributed/ddp_scaling.py --bin-dir /tmp/adept/bin --procs ${PROCS:-1,2,4,8} \
  --reps ${REPS:-2} --python python3 --out "$DEST/ddp_h200_host.json" > "$DEST/ddp_log.txt" 2>&1
echo "ddp_scaling rc=$?" >> "$DEST/ddp_log.txt"
M="mpirun -np 2 --oversubscribe --allow-run-as-root --bind-to none -x OMP_NUM_THREADS=1"
for d in cpu vulkan; do
  timeout 60 $M /tmp/adept/bin/adept_bench_allreduce --device $d --max-bytes 67108864 > "$DEST/allreduce_2x_$d.json" \
    2>> "$DEST/ddp_log.txt"
done
# With .device/mpi_base.tar.xz (another build's adept_bench_allreduce, bundled the same way): both builds'
# all-reduce at 8 processes, alternated 3 times, as a before/after in one lease.
if [[ -f .device/mpi_base.tar.xz ]]; then
  mkdir -p /tmp/base && tar -xJf .device/mpi_base.tar.xz -C /tmp/base
  for rep in 1 2 3; do
    for v in base adept; do
      LD_LIBRARY_PATH=/tmp/$v/lib timeout 60 mpirun -np 8 --oversubscribe --allow-run-as-root --bind-to none \
        -x OMP_NUM_THREADS=1 -x LD_LIBRARY_PATH /tmp/$v/bin/adept_bench_allreduce --max-bytes 16777216 --iters 20 \
        > "$DEST/allreduce_8x_${v}_$rep.json" 2>> "$DEST/ddp_log.txt"
    done
  done
fi
# `adept train device=vulkan` data-parallel on the real GPU: 2 ranks sharing the one H200 (round-robin in UUID
# order); the log names each rank's GPU and UUID.
(cd /tmp && timeout 150 $M -x ADEPT_DATASETS_DIR=/tmp/datasets /tmp/adept/bin/adept train device=vulkan epochs=1 \
  imgsz=128 batch=16 workers=2 fraction=0.2 plots=False project=/tmp/runs > "$DEST/train_vulkan_2rank.log" 2>&1)
echo "train 2 ranks on vulkan rc=$?" >> "$DEST/ddp_log.txt"
cat "$DEST/ddp_log.txt"
