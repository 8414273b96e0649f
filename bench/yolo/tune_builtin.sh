#!/usr/bin/env bash
# Tunes the built-in shapes dataset's defaults with `adept train` itself: runs the lines of a spec
# file as parallel training runs and prints each run's val mAP50 after every epoch.
#
#   bench/yolo/tune_builtin.sh BUILD_DIR SPEC_FILE PARALLEL OUT_DIR
#
# A spec line is `tag;data options;train options`, e.g.
#   W5;min_size=0.2 max_objects=5;imgsz=96 epochs=25 cls=1.0
# Data options go to adept_bench_make_shapes (SyntheticShapesOptions' fields), train options to
# `adept train` after the base options below (an option given in the line replaces the base's).
# A tag starting with O validates on its training images (can the model fit them at all?).
# Each run gets OMP_NUM_THREADS (default 2) threads and 1 loader worker, and is stopped with
# SIGINT (a clean stop) after LIMIT seconds (default 520). Results: OUT_DIR/<tag>/results.csv;
# bench/results/shapes_tuning_*.json holds the runs that chose the current defaults.
set -u
if (($# != 4)); then sed -n 2,14p "$0"; exit 2; fi
build=$(realpath "$1") spec=$2 parallel=$3 out=$(realpath -m "$4")
adept=$build/bin/adept make_shapes=$build/bench/adept_bench_make_shapes
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} OMP_WAIT_POLICY=PASSIVE
# The built-in defaults before this tuning (bench/results/shapes_tuning_adept_*.json ran on them).
BASE="imgsz=128 epochs=10 batch=16 nbs=16 optimizer=AdamW lr0=0.002 momentum=0.9 warmup_epochs=0.5
      warmup_min_iters=0 warmup_bias_lr=0.0 close_mosaic=3 workers=1 exist_ok=True"
mkdir -p "$out/data"

one_run() {
  local tag=$1 shapes=$2 train=" $3" yaml base="" kv t0=$SECONDS
  yaml=$("$make_shapes" "$out/data/$tag" $shapes 2>/dev/null | tail -1) && [[ -f $yaml ]] ||
    { echo "$tag: cannot make the data ($shapes)"; return; }
  [[ $tag == O* ]] && sed -i 's#^val: images/val#val: images/train#' "$yaml"
  for kv in $BASE; do [[ $train == *" ${kv%%=*}="* ]] || base+=" $kv"; done
  timeout -s INT "${LIMIT:-520}" "$adept" train data="$yaml" $base $train project="$out" name="$tag" \
    >"$out/$tag.log" 2>&1
  echo "$tag: exit $? after $((SECONDS - t0)) s"
}

while IFS=';' read -r tag shapes train; do
  [[ -z $tag || $tag == \#* ]] && continue
  while (($(jobs -rp | wc -l) >= parallel)); do sleep 2; done
  one_run "$tag" "$shapes" "$train" &
done <"$spec"
wait

for csv in "$out"/*/results.csv; do
  printf '%-6s mAP50 per epoch:' "$(basename "$(dirname "$csv")")"
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /mAP50\(B\)/) m = i }
           NR > 1 { printf " %.3f", $m } END { print "" }' "$csv"
done
