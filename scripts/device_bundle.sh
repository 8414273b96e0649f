#!/usr/bin/env bash
# Packs release executables and the shared libraries they load (all but glibc's, and the Vulkan loader,
# which the device brings from .gl/) into .device/bundle.tar.xz, for runs on the lent GPU machine (see
# ../.library/device/README.md): there, `tar -xJf .device/bundle.tar.xz -C /tmp/adept` and run with
# LD_LIBRARY_PATH=/tmp/adept/lib.
# Usage: scripts/device_bundle.sh build/release/tests/backend_ops/adept_test_backend_ops [more executables...]
set -euo pipefail
cd "$(dirname "$0")/.."
out=.device
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib" "$out"
grep -qx '/.device/' .git/info/exclude 2>/dev/null || echo '/.device/' >> .git/info/exclude
for exe in "$@"; do
  cp "$exe" "$stage/bin/"
  ldd "$exe" | awk '$3 ~ /^\// {print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*|libvulkan.so*) ;;
      *) cp -L "$lib" "$stage/lib/" ;;
    esac
  done
done
strip "$stage"/bin/* "$stage"/lib/* 2>/dev/null || true
tar -cJf "$out/bundle.tar.xz" -C "$stage" bin lib
ls -l "$out/bundle.tar.xz"
