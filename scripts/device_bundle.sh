#!/usr/bin/env bash
# Packs release executables and the shared libraries they load into one archive that runs on a
# machine without Debian's packages (the lent GPU machine: Ubuntu, no internet; see
# ../.library/device/README.md). Left out: glibc's libraries (every Linux has them) and the Vulkan
# loader (the machine's driver brings it, or .gl/ there). Everything else is copied and stripped.
# On the machine:
#   mkdir -p /tmp/adept && tar -xJf bundle.tar.xz -C /tmp/adept
#   /tmp/adept/run adept train device=vulkan ...          # or LD_LIBRARY_PATH=/tmp/adept/lib /tmp/adept/bin/adept
# Usage: scripts/device_bundle.sh [executable...]   (default: build/release/bin/adept)
# With MPI=1 the archive also carries libadept_mpi.so and Open MPI as a relocated prefix (mpi/: orterun, the
# MCA plugins that need no network library beyond TCP and shared memory, help texts, PMIx's plugins) and
# `mpienv`, which points Open MPI's and PMIx's install-directory variables (OPAL_PREFIX, OPAL_PKGLIBDIR,
# PMIX_PKGLIBDIR, ...) there: `. /tmp/adept/mpienv; mpirun -np 8 ...` on a machine without Open MPI.
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
# Copies the libraries `$1` loads (not glibc's, not the Vulkan loader) into $stage/lib.
copy_closure() {
  ldd "$1" | awk '$3 ~ /^\// {print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|libresolv.so*|libutil.so*|ld-linux*|libvulkan.so*) ;;
      *) cp -L "$lib" "$stage/lib/" ;;
    esac
  done
}
for exe in "$@"; do
  [[ -x $exe ]] || { echo "device_bundle: no executable '$exe' (build it first)" >&2; exit 1; }
  cp "$exe" "$stage/bin/"
  # ldd lists the whole closure; a library it cannot find would fail on the machine too.
  if ldd "$exe" | grep -q 'not found'; then
    echo "device_bundle: unresolved libraries of $exe:" >&2
    ldd "$exe" | grep 'not found' >&2
    exit 1
  fi
  copy_closure "$exe"
done
if [[ ${MPI:-0} == 1 ]]; then
  mpi_plugin=$(dirname "$(readlink -f "$1")")/../libadept_mpi.so
  [[ -f $mpi_plugin ]] || mpi_plugin=build/release/libadept_mpi.so
  cp "$mpi_plugin" "$stage/lib/" && copy_closure "$mpi_plugin"
  path() { ompi_info --path "$1" --parsable | cut -d: -f3; }
  pkglibdir=$(path pkglibdir)
  pmix=$(dirname "$(readlink -f "$(ldd "$pkglibdir/mca_pmix_ext3x.so" | awk '/libpmix/ {print $3}')")")
  mkdir -p "$stage/mpi/bin" "$stage/mpi/lib/openmpi" "$stage/mpi/share" "$stage/mpi/etc" "$stage/mpi/pmix/lib"
  cp "$(readlink -f "$(command -v orterun)")" "$stage/mpi/bin/orterun"
  ln -s orterun "$stage/mpi/bin/mpirun"
  copy_closure "$stage/mpi/bin/orterun"
  # Plugins that need a network stack the lent machines lack (UCX, libfabric, verbs, PSM) or OpenSHMEM stay out.
  skip='libuc[mpst]|libfabric|libibverbs|librdmacm|libpsm|libinfinipath|libefa|liboshmem|common_(ucx|ofi|verbs)'
  for so in "$pkglibdir"/*.so "$pmix"/pmix/*.so; do
    ldd "$so" | grep -Eq "$skip" && continue
    case $so in "$pmix"/*) dest=$stage/mpi/pmix/lib ;; *) dest=$stage/mpi/lib/openmpi ;; esac
    cp "$so" "$dest/" && copy_closure "$so"
  done
  cp -r "$(path pkgdatadir)" "$stage/mpi/share/openmpi"
  cp -r "$pmix/../share/pmix" "$stage/mpi/share/pmix"
  cp "$(path sysconfdir)"/openmpi-mca-params.conf "$(path sysconfdir)"/openmpi-default-hostfile "$stage/mpi/etc/"
  cat > "$stage/mpienv" <<'EOF'
# . mpienv: the bundle's Open MPI (mpi/) and libraries (lib/) on PATH and LD_LIBRARY_PATH, and Open MPI's and
# PMIx's install directories pointed at them.
d=$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)
export PATH="$d/mpi/bin:$PATH" LD_LIBRARY_PATH="$d/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OPAL_PREFIX="$d/mpi" OPAL_EXEC_PREFIX="$d/mpi" OPAL_BINDIR="$d/mpi/bin" OPAL_LIBDIR="$d/lib" \
  OPAL_PKGLIBDIR="$d/mpi/lib/openmpi" OPAL_DATAROOTDIR="$d/mpi/share" OPAL_DATADIR="$d/mpi/share" \
  OPAL_PKGDATADIR="$d/mpi/share/openmpi" OPAL_SYSCONFDIR="$d/mpi/etc"
export PMIX_PREFIX="$d/mpi/pmix" PMIX_LIBDIR="$d/lib" PMIX_PKGLIBDIR="$d/mpi/pmix/lib" \
  PMIX_DATADIR="$d/mpi/share" PMIX_PKGDATADIR="$d/mpi/share/pmix" PMIX_SYSCONFDIR="$d/mpi/etc"
EOF
fi
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
XZ_OPT=${XZ_OPT:--6 -T2} tar -cJf "$out" -C "$stage" .
n=$(find "$stage/lib" -type f | wc -l)
mb() { awk -v b="$1" 'BEGIN {printf "%.1f", b / 1048576}'; }
echo "device_bundle: $out: $# executable(s), $n libraries, $(mb "$(du -sb "$stage" | cut -f1)") MB unpacked," \
  "$(mb "$(stat -c %s "$out")") MB archive"
