#!/usr/bin/env bash
# Builds the ONNX loader's libFuzzer target with Debian's clang (the loader's sources and the target
# instrumented with -fsanitize=fuzzer,address,undefined; the core library is the release build's
# libadept.so) and runs it on a corpus seeded with the node tests' models.
# Usage: tests/onnx/fuzz/run.sh [SECONDS (default 60)] [extra libFuzzer flags]
set -euo pipefail
cd "$(dirname "$0")/../../.."
SECONDS_TO_RUN=${1:-60}
shift || true
OUT=build/fuzz
mkdir -p "$OUT/corpus"
if [[ ! -f build/release/libadept.so ]]; then
  echo "fuzz: build the release preset's adept library first" >&2
  exit 1
fi
CXX=${CXX_FUZZ:-clang++}
"$CXX" -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -DONNX_NAMESPACE=onnx -DONNX_ML=1 -DFMT_SHARED -DADEPT_WITH_VULKAN=1 -Iinclude -Isrc \
  src/onnx/*.cpp tests/onnx/fuzz/fuzz_onnx_loader.cpp \
  -Lbuild/release -Wl,-rpath,"$PWD/build/release" -ladept -lonnx_proto -lprotobuf -lfmt -o "$OUT/fuzz_onnx_loader"
SEEDS=../shared/onnx/node
if [[ -d $SEEDS && -z $(ls -A "$OUT/corpus") ]]; then
  for d in "$SEEDS"/*/; do cp "$d/model.onnx" "$OUT/corpus/$(basename "$d").onnx"; done
fi
# No CPU caching allocator: freed buffers go back at once, so the RSS limit and LeakSanitizer see the truth.
ADEPT_CPU_CACHE_LIMIT_MB=${ADEPT_CPU_CACHE_LIMIT_MB:-0} "$OUT/fuzz_onnx_loader" "$OUT/corpus" -max_total_time="$SECONDS_TO_RUN" -rss_limit_mb=2048 -timeout=10 \
  -max_len=65536 -print_final_stats=1 "$@"
