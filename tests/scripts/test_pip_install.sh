#!/usr/bin/env bash
# `pip install .` end to end: a copy of the source tree (its git-tracked and untracked-not-ignored
# files) is installed into a fresh venv of /usr/bin/python3 that has PyPI's NumPy 2; then, with the
# copy and its build folder deleted, from another folder: `import adept` loads from the venv's
# site-packages (no symlinks there, $ORIGIN-relative RPATHs only), a NumPy 2 array round-trips
# through an op, `adept --help` and `python -m adept --help` run the packaged tool, a bad option's
# exit status comes through, the package still imports when its folder is moved, and
# `adept train` trains YOLO11n for 1 epoch at 64 px on 5% of the built-in shapes data.
#
# The compiler cache: the copy sits at build/pip-test/src and pyproject.toml builds in
# <source>/build/pip, so the compile commands name the sources by the same relative paths
# (../../src/...) as build/release's; with CCACHE_BASEDIR set (to the checkout or a folder above it,
# also for the release build: scripts/test.sh exports it) every C++ library file hits the cache a
# release build filled. Only the bindings (python/src/, compiled against PyPI's pybind11 instead of
# Debian's) and the links are new work. Prints the hit counts.
# Usage: tests/scripts/test_pip_install.sh   (needs network access to PyPI; JOBS=N sets the build's
# parallelism; KEEP=1 keeps build/pip-test)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$root/build/pip-test
rm -rf "$work"
mkdir -p "$work/src" "$work/elsewhere"
if [[ ${KEEP:-0} != 1 ]]; then trap 'rm -rf "$work"' EXIT; fi
fail() { echo "FAIL: $*"; exit 1; }
t0=$SECONDS
step() { echo "--- $1 ($((SECONDS - t0)) s)"; }

export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
# The presets' compiler (CMake's default, c++): ccache keys include the compiler's name, and
# scikit-build-core would otherwise take Python's sysconfig CXX (x86_64-linux-gnu-g++).
export CC=${CC:-cc} CXX=${CXX:-c++}
case "$root/" in
  "${CCACHE_BASEDIR%/}/"*) ;;
  *) echo "warning: CCACHE_BASEDIR=$CCACHE_BASEDIR is not above $root: the build will miss the compiler cache" ;;
esac

step "copying the sources to $work/src"
if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
  (cd "$root" && git ls-files -z --cached --others --exclude-standard |
    tar --null --ignore-failed-read -T - -cf -) | tar -xf - -C "$work/src"
else
  tar -C "$root" --exclude=./build --exclude=./.ccache --exclude=./.git --exclude=./runs -cf - . | tar -xf - -C "$work/src"
fi
[[ -f $work/src/pyproject.toml ]] || fail "the copy has no pyproject.toml"

step "fresh venv with PyPI's NumPy 2"
/usr/bin/python3 -m venv "$work/venv"
py=$work/venv/bin/python
"$py" -m pip install -q "numpy>=2"

ccache_hits() {  # direct + preprocessed hits, misses
  command -v ccache >/dev/null || { echo "0 0"; return; }
  ccache --print-stats | awk '$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" {h += $2}
                              $1 == "cache_miss" {m = $2} END {print h + 0, m + 0}'
}
read -r hits0 miss0 < <(ccache_hits)
step "pip install $work/src"
tb=$SECONDS
if ! CMAKE_BUILD_PARALLEL_LEVEL=${JOBS:-$(nproc)} "$py" -m pip install -v "$work/src" >"$work/pip.log" 2>&1; then
  tail -n 60 "$work/pip.log"
  fail "pip install"
fi
read -r hits1 miss1 < <(ccache_hits)
echo "pip install took $((SECONDS - tb)) s; compiler cache: $((hits1 - hits0)) hits, $((miss1 - miss0)) misses"
grep -E "^ *Successfully installed|ccache|pybind11 v" "$work/pip.log" | tail -n 3 || true

# Nothing may come from the copy or its build folder from here on.
rm -rf "$work/src"
cd "$work/elsewhere"
site=$("$py" -c "import sysconfig; print(sysconfig.get_paths()['platlib'])")
pkg=$site/adept

step "import adept from the venv"
"$py" - "$pkg" <<'EOF'
import os, sys
import numpy as np
import adept
pkg = sys.argv[1]
assert os.path.dirname(os.path.abspath(adept.__file__)) == pkg, (adept.__file__, pkg)
assert int(np.__version__.split(".")[0]) >= 2, f"NumPy {np.__version__}, expected 2 or later"
links = [os.path.join(d, f) for d, _, fs in os.walk(pkg) for f in fs if os.path.islink(os.path.join(d, f))]
assert not links, f"symlinks in the installed package: {links[:5]}"
a = np.arange(6, dtype=np.float32).reshape(2, 3)
t = adept.from_numpy(a)
r = (t * 2 + 1).sum(dim=0).numpy()
assert isinstance(r, np.ndarray) and r.dtype == np.float32, (type(r), r.dtype)
assert np.array_equal(r, (a * 2 + 1).sum(axis=0)), r
x = adept.tensor(np.ones((2, 2), dtype=np.float64), requires_grad=True)
(x * x).sum().backward()
assert np.array_equal(x.grad.numpy(), 2 * np.ones((2, 2))), x.grad
print(f"adept {adept.__version__} from {adept.__file__}; NumPy {np.__version__}; round trip {r.tolist()}")
EOF

step "RPATHs"
for f in "$pkg"/_C*.so "$pkg"/lib/*.so "$pkg"/bin/adept; do
  rp=$(readelf -d "$f" | grep -E 'R(UN)?PATH' || true)
  echo "  ${f#"$site"/}: ${rp##*: }"
  [[ $rp == *'$ORIGIN'* ]] || fail "$f has no \$ORIGIN-relative RPATH"
  [[ $rp != *"$work"* && $rp != *"$root"* ]] || fail "$f's RPATH names the build folder"
done

step "adept --help, python -m adept --help"
"$work/venv/bin/adept" --help >"$work/help.txt" || fail "adept --help"
grep -q "Adept: deep-learning tools" "$work/help.txt" || fail "adept --help printed: $(head -n 3 "$work/help.txt")"
"$py" -m adept --help | grep -q "Adept: deep-learning tools" || fail "python -m adept --help"
if "$work/venv/bin/adept" train epoch=3 >"$work/bad.txt" 2>&1; then fail "adept train epoch=3 exited 0"; fi
grep -q "'epoch' is not a valid option" "$work/bad.txt" || fail "adept train epoch=3 printed: $(cat "$work/bad.txt")"

step "the package moved to another folder"
mkdir "$work/moved"
cp -a "$pkg" "$work/moved/"
PYTHONPATH=$work/moved "$py" -c "
import adept, numpy as np
assert adept.__file__.startswith('$work/moved/'), adept.__file__
assert adept.from_numpy(np.ones(3, dtype=np.float32)).sum().item() == 3.0" || fail "the moved package"
PYTHONPATH=$work/moved "$py" -m adept --help | grep -q "Adept: deep-learning tools" || fail "the moved package's tool"

step "adept train (1 epoch, 64 px, 5% of the built-in shapes data)"
env ADEPT_DATASETS_DIR="$work/datasets" OMP_NUM_THREADS=2 "$work/venv/bin/adept" train epochs=1 imgsz=64 batch=8 \
  workers=0 fraction=0.05 project="$work/runs" name=pip --verbose false | tee "$work/train.log"
[[ -s $work/runs/pip/results.csv ]] || fail "adept train wrote no results.csv"
grep -q 'weights: .*last.safetensors' "$work/train.log" || fail "adept train wrote no weights"
echo "PASS: pip install . builds a relocatable adept that imports, round-trips NumPy 2 and trains ($((SECONDS - t0)) s)"
