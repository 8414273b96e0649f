#!/usr/bin/env bash
# Issue 19's judge run: bench/yolo/yolo_vs_torch.py on the lent H200 machine's host CPU (an idle 16-core
# Xeon) against the PyTorch 2.11 there, at 1 and 2 threads, for this build and for a baseline build,
# all four drivers at once on disjoint cores (taskset). Results go to $OUT. Run from the repository
# root on that machine (../.library/device/README.md) with, carried along:
#   .gl/                           the Vulkan loader deb (the executables link libvulkan; no GPU is used)
#   .device/bundle.tar.xz          scripts/device_bundle.sh build/release/bench/adept_bench_yolo
#   .device/bundle_before.tar.xz   the same of the baseline build (optional)
#   .device/wheels/                safetensors (and numpy) wheels for the machine's Python, if it lacks them
set -u
OUT=${OUT:?set OUT to a results folder}
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
python3 -c "import safetensors, numpy" 2>/dev/null ||
  python3 -m pip install -q --no-index --find-links .device/wheels safetensors numpy >> "$OUT/log.txt" 2>&1
lscpu > "$OUT/lscpu.txt"
python3 -c "import torch; print(torch.__version__, torch.backends.mkldnn.is_available())" >> "$OUT/log.txt" 2>&1
# A build folder yolo_vs_torch.py accepts: bench/adept_bench_yolo (the bundled one) and the flags it reports.
fake_build() {  # fake_build BUNDLE DIR
  mkdir -p "$2/pkg" "$2/bench" && tar -xJf "$1" -C "$2/pkg" || return 1
  printf '#!/bin/sh\nexec %s/pkg/run adept_bench_yolo "$@"\n' "$2" > "$2/bench/adept_bench_yolo"
  chmod +x "$2/bench/adept_bench_yolo"
  printf 'CMAKE_BUILD_TYPE:STRING=Release\nCMAKE_CXX_FLAGS:STRING=-O3 -march=x86-64-v2\n' > "$2/CMakeCache.txt"
}
fake_build .device/bundle.tar.xz /tmp/after || exit 1
pids=()
run() {  # run NAME BUILD THREADS CPUS
  taskset -c "$4" python3 bench/yolo/yolo_vs_torch.py --build-dir "$2" --threads "$3" --out "$OUT/$1.json" \
    > "$OUT/$1.log" 2>&1 &
  pids+=($!)
}
run after_2threads /tmp/after 2 0,1
run after_1thread /tmp/after 1 4
if [[ -f .device/bundle_before.tar.xz ]] && fake_build .device/bundle_before.tar.xz /tmp/before; then
  run before_2threads /tmp/before 2 8,9
  run before_1thread /tmp/before 1 12
fi
wait "${pids[@]}"
tail -n 6 "$OUT"/*.log
