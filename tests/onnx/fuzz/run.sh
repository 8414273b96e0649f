#!/usr/bin/env bash
# Builds the ONNX loader's libFuzzer target with Debian's clang (the loader's sources and the target
# instrumented with -fsanitize=fuzzer,address,undefined; the core library is the release build's
# libadept.so) and runs it on a corpus seeded with the node tests' models (../shared/onnx/node).
# Usage: tests/onnx/fuzz/run.sh [SECONDS (default 60)] [extra libFuzzer flags]
#        tests/onnx/fuzz/run.sh --ci    the CI-sized run: a fresh corpus from the seeds, seed 1 and a fixed
#                                       number of runs, so every CI machine executes the same inputs (about a
#                                       minute on 2 cores); its corpus stays apart from the long runs' one.
# Crash, leak and timeout inputs are written to build/fuzz/ (reproduce: build/fuzz/fuzz_onnx_loader FILE).
set -euo pipefail
cd "$(dirname "$0")/../../.."
OUT=build/fuzz
if [[ ${1:-} == --ci ]]; then
  CORPUS=$OUT/ci-corpus
  rm -rf "$CORPUS"
  LIMITS=(-seed=1 -runs=${FUZZ_CI_RUNS:-1200000})
else
  CORPUS=$OUT/corpus
  LIMITS=(-max_total_time="${1:-60}")
fi
shift || true
mkdir -p "$CORPUS"
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
if [[ -d $SEEDS && -z $(ls -A "$CORPUS") ]]; then
  for d in "$SEEDS"/*/; do cp "$d/model.onnx" "$CORPUS/$(basename "$d").onnx"; done
fi
# No CPU caching allocator: freed buffers go back at once, so the RSS limit and LeakSanitizer see the truth.
ADEPT_CPU_CACHE_LIMIT_MB=${ADEPT_CPU_CACHE_LIMIT_MB:-0} "$OUT/fuzz_onnx_loader" "$CORPUS" "${LIMITS[@]}" \
  -rss_limit_mb=2048 -timeout=10 -max_len=65536 -artifact_prefix="$OUT/" -print_final_stats=1 "$@"
