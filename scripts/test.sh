#!/usr/bin/env bash
# The full test suite: installs dependencies, builds the release and ASan+UBSan presets, runs the
# C++ tests on both and the Python/PyTorch parity tests on the release build. Prints the seconds
# each phase took.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}
# Compiler-cache keys with paths relative to the build folder, so tests/scripts/test_pip_install.sh's
# copy of the sources hits what the release build compiled.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}

phase_start=$SECONDS
phase() {
  local name=$1; shift
  local t0=$SECONDS
  echo "=== phase: $name"
  "$@"
  echo "=== phase: $name took $((SECONDS - t0)) s"
}

phase setup bash scripts/setup.sh
phase build-release bash -c "cmake --preset release >/dev/null && cmake --build --preset release -j $JOBS"
# Layers point one way down: no upward include, no op symbol referenced by a backend object.
phase check-layers /usr/bin/python3 scripts/check_layers.py --build build/release
phase test-cpp ctest --preset release -j "$JOBS"
# The ONNX loader under libFuzzer (clang, ASan+UBSan, LeakSanitizer) for a CI-sized minute, seeded with the
# node tests' models, the same inputs on every machine; any crash, sanitizer report, leak or 10 s hang fails it.
phase fuzz-onnx bash tests/onnx/fuzz/run.sh --ci
phase test-python env PYTHONPATH="$PWD/build/release/python" OMP_NUM_THREADS=2 \
  /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python
# The same tests on the Vulkan backend (Mesa's lavapipe on machines without a GPU): every test that
# follows --device puts its adept tensors there.
phase test-python-vulkan env PYTHONPATH="$PWD/build/release/python" OMP_NUM_THREADS=2 \
  /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python --device vulkan
# `pip install .` from a copy of the sources into a fresh venv with PyPI's NumPy 2: import, the
# console script, a tiny training. The release build's compiler cache serves its C++ files.
phase test-pip-install env JOBS="$JOBS" bash tests/scripts/test_pip_install.sh
phase build-asan bash -c "cmake --preset asan >/dev/null && cmake --build --preset asan -j $JOBS"
# Vulkan tests are left out under ASan: Mesa's JIT driver is not built for the sanitizers; so are
# the real trainings (coco128, the CLI on the built-in data, and cli_yolo_export, which needs its
# checkpoint), whose code paths the tiny YoloTrain runs and the exporter's own tests cover, and the
# mpirun jobs (ctest label mpi): Open MPI's own allocations and progress engine are not sanitizer-clean.
phase test-cpp-asan env ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp \
  ctest --preset asan -j "$JOBS" -LE mpi \
  -E "[Vv]ulkan|YoloCoco128|cli_yolo_(train|val|predict|resume)|cli_yolo_export$|device_bundle|readme_snippets"
echo "=== all phases took $((SECONDS - phase_start)) s"
