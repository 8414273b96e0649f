#!/usr/bin/env bash
# Installs every system dependency of Adept with apt-get. Idempotent: packages that are already
# installed are skipped, and nothing is printed for them.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git
  libopenblas-openmp-dev libomp-dev libdlpack-dev
  libhwy-dev libfmt-dev nlohmann-json3-dev zlib1g-dev
  libopencv-core-dev libopencv-imgproc-dev libjpeg62-turbo-dev libpng-dev libyaml-cpp-dev libspdlog-dev libcli11-dev
  pybind11-dev python3-dev python3-venv
  libgtest-dev libgmock-dev libbenchmark-dev
  libvulkan-dev glslc mesa-vulkan-drivers vulkan-validationlayers vulkan-tools spirv-tools
  python3-torch python3-numpy python3-pytest python3-sklearn python3-pip python3-yaml
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
