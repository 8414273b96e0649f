#!/usr/bin/env bash
# The H200 comparison of bench/README.md ("YOLO11n training on the GPU next to PyTorch CUDA"): training-step
# speed and memory at batch 16/32/64, then the built-in shapes data at 640 px trained 8 epochs by
# `adept train device=vulkan` and by the PyTorch mirror on CUDA with the same recipe. Results go to $OUT.
# Run from the repository root on the lent GPU machine (../.library/device/README.md) with, carried along:
#   .gl/                 the Vulkan loader debs of the device README's recipe
#   .device/bundle.tar.xz  scripts/device_bundle.sh build/release/bin/adept build/release/bench/adept_bench_yolo \
#                                                  build/release/bench/adept_bench_make_shapes
#   .device/py312.tar.xz   the adept Python package built for the machine's Python 3.12 (python/adept with
#                          _C, libadept*.so beside python/, their other libraries under lib/)
set -u
OUT=${OUT:?set OUT to a results folder}
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
mkdir -p /tmp/a /tmp/p && tar -xJf .device/bundle.tar.xz -C /tmp/a && tar -xJf .device/py312.tar.xz -C /tmp/p
export LD_LIBRARY_PATH=/tmp/a/lib:/tmp/p/lib
T0=$SECONDS; log() { echo "[$((SECONDS-T0)) s] $*" >> $OUT/log.txt; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/log.txt
# 1. memory and speed of one step, next to the PyTorch mirror
{ for b in 16 32 64; do n=6; [[ $b == 16 ]] && n=40
  /tmp/a/bin/adept_bench_yolo train --synthetic ${b}x640 --device vulkan --vary-targets 1 --warmup 2 --iters $n | tail -1
  python3 bench/yolo/torch_cuda_step.py --batch $b --imgsz 640 --warmup 2 --iters 6 --vary-targets | tail -1; done; } > $OUT/step.jsonl 2>> $OUT/log.txt
log step benches done
# 2. the shapes data at 640, trained 8 epochs by adept train (Vulkan) and by the mirror (CUDA), same recipe
/tmp/a/bin/adept_bench_make_shapes /tmp/sh/shapes-1000-200-640 imgsz=640 train_images=1000 val_images=200 >> $OUT/log.txt 2>&1
log data done
R="imgsz=640 epochs=8 batch=16 nbs=16 optimizer=AdamW lr0=0.002 cos_lr=True cls=1.0 warmup_epochs=0.5 warmup_min_iters=0 close_mosaic=3 workers=8 seed=0"
timeout -s INT 200 /tmp/a/bin/adept train data=/tmp/sh/shapes-1000-200-640/data.yaml device=vulkan amp=False $R project=/tmp/runs name=adept exist_ok=True > $OUT/adept_train.log 2>&1
log adept train rc=$?
cp /tmp/runs/adept/results.csv $OUT/adept_results.csv
export PYTHONPATH=/tmp/p/python OMP_NUM_THREADS=8
timeout 190 python3 bench/yolo/tune_shapes.py run --device cuda --threads 8 --imgsz 640 --epochs 8 --batch 16 --nbs 16 --workers 8 \
  --set optimizer=AdamW --set lr0=0.002 --set cos_lr=True --set cls=1.0 --set warmup_epochs=0.5 --set warmup_min=0 \
  --set close_mosaic=3 --set val_every=1 --data-root /tmp/sh --log $OUT/torch_train.jsonl > $OUT/torch_train.log 2>&1
log torch train rc=$?
tail -c 3000 $OUT/adept_train.log; tail -5 $OUT/torch_train.log; cat $OUT/log.txt
