#!/usr/bin/env bash
# Installs every system dependency of Adept with apt-get, the few PyPI packages the tests need (into
# Debian's python3, or into build/venv-onnxruntime for onnxruntime). Idempotent: what is already
# installed is skipped, and nothing is printed for it.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git
  libopenblas-openmp-dev libomp-dev libdlpack-dev
  libhwy-dev libfmt-dev nlohmann-json3-dev zlib1g-dev
  libopencv-core-dev libopencv-imgproc-dev libjpeg62-turbo-dev libpng-dev libyaml-cpp-dev libspdlog-dev libcli11-dev
  pybind11-dev python3-dev python3-venv
  libonnx-dev libprotobuf-dev protobuf-compiler
  libopenmpi-dev openmpi-bin
  clang libclang-rt-14-dev
  libplplot-dev plplot-driver-cairo
  libgtest-dev libgmock-dev libbenchmark-dev
  libvulkan-dev glslc mesa-vulkan-drivers vulkan-validationlayers vulkan-tools spirv-tools
  python3-torch python3-numpy python3-pytest python3-sklearn python3-pip python3-yaml python3-pil
  libjs-chart.js libcpp-httplib-dev chromium
)

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The `safetensors` package (not in Debian 12) for the checkpoint interop tests, from PyPI into
# Debian's python3, where PyTorch lives.
if ! /usr/bin/python3 -c "import safetensors" 2>/dev/null; then
  echo "setup: installing safetensors (pip)"
  $SUDO /usr/bin/python3 -m pip install -q --break-system-packages safetensors
fi
# The `tensorboard` package (not in Debian 12) reads back the trainer's event files
# (tests/python/test_yolo_tensorboard.py). It adds its own dependencies (protobuf, grpcio, pillow, ...) to
# /usr/local; of Debian's packages it only shadows python3-typing-extensions, with a newer 4.x.
if ! /usr/bin/python3 -c "import tensorboard" 2>/dev/null; then
  echo "setup: installing tensorboard (pip)"
  $SUDO /usr/bin/python3 -m pip install -q --break-system-packages tensorboard
fi
# onnxruntime and onnx (PyPI) for the ONNX export tests (tests/python/test_yolo_export.py), in a venv of
# their own under build/ so that the protobuf they need shadows nothing of Debian's python3 (or of the
# packages above). The tests run its python in a subprocess and fail when it is missing. Rebuilt when
# the pinned requirements change.
root=$(cd "$(dirname "$0")/.." && pwd)
ort_venv=$root/build/venv-onnxruntime
ort_req=$root/tests/python/requirements-onnxruntime.txt
if ! cmp -s "$ort_req" "$ort_venv/requirements.txt" 2>/dev/null ||
   ! "$ort_venv/bin/python" -c "import onnxruntime, onnx, numpy" 2>/dev/null; then
  echo "setup: creating $ort_venv (onnxruntime, onnx, numpy from PyPI)"
  rm -rf "$ort_venv"
  /usr/bin/python3 -m venv "$ort_venv"
  "$ort_venv/bin/python" -m pip install -q --disable-pip-version-check -r "$ort_req"
  cp "$ort_req" "$ort_venv/requirements.txt"
fi
