#!/usr/bin/env bash
# Quick start: installs dependencies, builds Adept (release) and runs the main job. Until the
# YOLO11 command lands, the main job is a small CNN trained with adept.nn/adept.optim on scikit-learn's digits.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "${JOBS:-$(nproc)}"
PYTHONPATH="$PWD/build/release/python" /usr/bin/python3 examples/digits_cnn.py "$@"
