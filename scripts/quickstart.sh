#!/usr/bin/env bash
# Quick start: installs dependencies, builds Adept (release) and runs the main job: YOLO11n trained
# from scratch on the built-in synthetic shapes dataset (generated on first use, no download), then
# `adept predict` with the best weights on validation images it never trained on. Extra arguments
# go to `adept train` (e.g. `epochs=5`, `data=path/to/data.yaml`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "${JOBS:-$(nproc)}"
adept=build/release/bin/adept
"$adept" train project=runs/detect name=quickstart exist_ok=True "$@"
"$adept" predict model=runs/detect/quickstart/weights/best.safetensors project=runs/detect name=quickstart-predict \
  exist_ok=True
