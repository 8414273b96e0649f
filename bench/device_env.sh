# Sourced by the H200 scripts (bench/vulkan/h200_*.sh, bench/yolo/h200_*.sh) after they set OUT to their
# scratch folder: installs the Vulkan loader from the carried .gl/ debs, points the loader at NVIDIA's
# driver, unpacks .device/bundle.tar.xz (scripts/device_bundle.sh) into /tmp/a with its libraries on
# LD_LIBRARY_PATH, defines `log MESSAGE` (seconds since start, into $OUT/log.txt) and records the GPU and
# driver in $OUT/gpu.txt.
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
mkdir -p /tmp/a && tar -xJf .device/bundle.tar.xz -C /tmp/a && export LD_LIBRARY_PATH=/tmp/a/lib
T0=$SECONDS; log() { echo "[$((SECONDS - T0)) s] $*" >> "$OUT/log.txt"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/gpu.txt"
