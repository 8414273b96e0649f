#!/usr/bin/env bash
# Issue 19's judge run: bench/yolo/yolo_vs_torch.py on the lent H200 machine's host CPU (an idle 16-core
# Xeon) against the PyTorch 2.11 there, at 1 and 2 threads, for this build and for a baseline build,
# one driver at a time, about 8 minutes on an idle host (run side by side, even on disjoint cores, they slowed each other: torch's own
# figures moved by up to 50 %). Results go to $OUT: one JSON per build and thread count, and log.txt. Run from the repository
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
{ lscpu; lscpu -e; } >> "$OUT/log.txt"
python3 -c "import torch; print(torch.__version__, torch.backends.mkldnn.is_available())" >> "$OUT/log.txt" 2>&1
# A build folder yolo_vs_torch.py accepts: bench/adept_bench_yolo (the bundled one) and the flags it reports.
fake_build() {  # fake_build BUNDLE DIR
  mkdir -p "$2/pkg" "$2/bench" && tar -xJf "$1" -C "$2/pkg" || return 1
  printf '#!/bin/sh\nexec %s/pkg/run adept_bench_yolo "$@"\n' "$2" > "$2/bench/adept_bench_yolo"
  chmod +x "$2/bench/adept_bench_yolo"
  printf 'CMAKE_BUILD_TYPE:STRING=Release\nCMAKE_CXX_FLAGS:STRING=-O3 -march=x86-64-v2\n' > "$2/CMakeCache.txt"
}
fake_build .device/bundle.tar.xz /tmp/after || exit 1
run() {  # run NAME BUILD THREADS
  echo "== $1" >> "$OUT/log.txt"
  python3 bench/yolo/yolo_vs_torch.py --build-dir "$2" --threads "$3" --out "$OUT/$1.json" >> "$OUT/log.txt" 2>&1
}
before=
[[ -f .device/bundle_before.tar.xz ]] && fake_build .device/bundle_before.tar.xz /tmp/before && before=1
for t in 2 1; do
  run "after_${t}thread" /tmp/after "$t"
  [[ -n $before ]] && run "before_${t}thread" /tmp/before "$t"
done
grep -v '^ *[0-9]* *[0-9]* *[0-9]* *[0-9]* .*yes' "$OUT/log.txt" | tail -n 40
