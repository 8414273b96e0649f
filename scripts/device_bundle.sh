#!/usr/bin/env bash
# Packs release executables and the shared libraries they load into one archive that runs on a
# machine without Debian's packages (the lent GPU machine: Ubuntu, no internet; see
# ../.library/device/README.md). Left out: glibc's libraries (every Linux has them) and the Vulkan
# loader (the machine's driver brings it, or .gl/ there). Everything else is copied and stripped.
# On the machine:
#   mkdir -p /tmp/adept && tar -xJf bundle.tar.xz -C /tmp/adept
#   /tmp/adept/run adept train device=vulkan ...          # or LD_LIBRARY_PATH=/tmp/adept/lib /tmp/adept/bin/adept
# Usage: scripts/device_bundle.sh [executable...]   (default: build/release/bin/adept)
# The archive goes to $BUNDLE_OUT (default .device/bundle.tar.xz, ignored by git); the summary line
# gives the number of libraries and the sizes.
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in ldd tar xz strip; do
  command -v "$tool" >/dev/null || { echo "device_bundle: '$tool' is missing" >&2; exit 2; }
done
out=${BUNDLE_OUT:-.device/bundle.tar.xz}
if [[ -z ${BUNDLE_OUT:-} ]]; then
  exclude=$(git rev-parse --git-path info/exclude 2>/dev/null || true)
  if [[ -n $exclude ]]; then
    mkdir -p "$(dirname "$exclude")"
    grep -qx '/.device/' "$exclude" 2>/dev/null || echo '/.device/' >> "$exclude"
  fi
fi
(($#)) || set -- build/release/bin/adept
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib" "$(dirname "$out")"
for exe in "$@"; do
  [[ -x $exe ]] || { echo "device_bundle: no executable '$exe' (build it first)" >&2; exit 1; }
  cp "$exe" "$stage/bin/"
  # ldd lists the whole closure; a library it cannot find would fail on the machine too.
  if ldd "$exe" | grep -q 'not found'; then
    echo "device_bundle: unresolved libraries of $exe:" >&2
    ldd "$exe" | grep 'not found' >&2
    exit 1
  fi
  ldd "$exe" | awk '$3 ~ /^\// {print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|libresolv.so*|libutil.so*|ld-linux*|libvulkan.so*) ;;
      *) cp -L "$lib" "$stage/lib/" ;;
    esac
  done
done
strip --strip-unneeded "$stage"/bin/* "$stage"/lib/* 2>/dev/null || true
cat > "$stage/run" <<'EOF'
#!/bin/sh
# run EXECUTABLE [ARGS...]: an executable of bin/ with the bundled libraries.
d=$(dirname "$(readlink -f "$0")")
LD_LIBRARY_PATH="$d/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
exe=$1
shift
exec "$d/bin/$exe" "$@"
EOF
chmod +x "$stage/run"
XZ_OPT=${XZ_OPT:--6 -T2} tar -cJf "$out" -C "$stage" run bin lib
n=$(find "$stage/lib" -type f | wc -l)
mb() { awk -v b="$1" 'BEGIN {printf "%.1f", b / 1048576}'; }
echo "device_bundle: $out: $# executable(s), $n libraries, $(mb "$(du -sb "$stage" | cut -f1)") MB unpacked," \
  "$(mb "$(stat -c %s "$out")") MB archive"
