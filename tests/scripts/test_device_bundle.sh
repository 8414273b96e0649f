#!/usr/bin/env bash
# The device bundle end to end: scripts/device_bundle.sh packs bin/adept, the archive is unpacked
# into a clean folder, and the unpacked adept runs with a minimal environment (env -i: PATH and
# LD_LIBRARY_PATH=<bundle>/lib, plus OMP_NUM_THREADS and a private ADEPT_DATASETS_DIR): it may load
# no library from outside the bundle but glibc's and the Vulkan loader, trains YOLO11n for 1 epoch at
# 64 px on 5% of the built-in shapes data, and predicts through the bundle's `run` wrapper (on the
# Vulkan device where the system has a Vulkan loader, lavapipe in CI). About 20 s on 2 cores.
# Usage: tests/scripts/test_device_bundle.sh [path/to/adept]   (exit 77: skipped, a tool is missing)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
exe=$(readlink -f "${1:-$root/build/release/bin/adept}")
for tool in ldd xz tar strip; do
  command -v "$tool" >/dev/null || { echo "SKIP: '$tool' is missing, the bundle cannot be made or checked"; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
BUNDLE_OUT=$work/bundle.tar.xz XZ_OPT="-0 -T2" bash "$root/scripts/device_bundle.sh" "$exe"
mkdir "$work/bundle"
tar -xJf "$work/bundle.tar.xz" -C "$work/bundle"
b=$work/bundle
minimal() { env -i PATH=/usr/bin:/bin OMP_NUM_THREADS=2 ADEPT_DATASETS_DIR="$work/datasets" "$@"; }

libs=$(minimal LD_LIBRARY_PATH="$b/lib" ldd "$b/bin/adept")
if grep -q 'not found' <<<"$libs"; then echo "FAIL: unresolved libraries:"; grep 'not found' <<<"$libs"; exit 1; fi
outside=$(awk '$3 ~ /^\// {print $3}' <<<"$libs" | grep -v "^$b/lib/" |
  grep -vE '/(libc|libm|libdl|libpthread|librt|libresolv|libutil)\.so|/ld-linux|/libvulkan\.so' || true)
if [[ -n $outside ]]; then echo "FAIL: loaded from outside the bundle:"; echo "$outside"; exit 1; fi
echo "libraries: $(find "$b/lib" -type f | wc -l) bundled, none from outside but glibc's and the Vulkan loader"

minimal LD_LIBRARY_PATH="$b/lib" "$b/bin/adept" train data=shapes imgsz=64 epochs=1 batch=8 workers=2 fraction=0.05 \
  project="$work/runs" name=t --verbose false | tee "$work/train.log"
grep -q 'weights: .*last.safetensors' "$work/train.log" || { echo "FAIL: train wrote no weights"; exit 1; }

device=cpu
if ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1'; then device=vulkan; fi
minimal "$b/run" adept predict model="$work/runs/t/weights/last.safetensors" device=$device imgsz=64 \
  project="$work/runs" name=p | tee "$work/predict.log"
grep -q '4 images; results in' "$work/predict.log" || { echo "FAIL: predict on $device"; exit 1; }
[[ $(find "$work/runs/p" -name '*.jpg' | wc -l) -eq 4 ]] || { echo "FAIL: predict saved no images"; exit 1; }
echo "PASS: the bundle trains and predicts (device $device) with a minimal environment"
