#!/usr/bin/env bash
# Data-parallel `adept train` under mpirun, end to end (issue 21), about a minute on 2 cores:
#  1. 2 ranks x batch 4 with sync_bn equal 1 process x batch 8: the weights after three optimizer steps (no
#     warmup, no accumulation, SGD: an update linear in the gradient) agree to float32 rounding; without DDP's
#     averaging they differ by far more;
#  2. 2 ranks on coco128 with 2 loader workers each (forked after MPI_Init; the mosaic closes for the last
#     epoch, so the workers fork again), over the default transport, then over ob1 (tcp + shared memory);
#     rank 0 alone writes the run folder;
#  3. a checkpoint of a 2-rank run at an epoch boundary resumes in 1 process; `mpirun adept val` validates once;
#  4. SIGTERM to mpirun in the middle of an epoch (what Ctrl-C becomes under mpirun): every rank stops, rank
#     0's last.safetensors is written, no adept.* shared-memory segment or rank process is left; resuming
#     that mid-epoch checkpoint in 1 process is refused with a message, and in 2 processes it finishes.
# Usage: tests/scripts/test_mpi_train.sh path/to/adept path/to/coco128
set -euo pipefail
exe=$(readlink -f "$1")
coco=$(readlink -f "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=1 ADEPT_DATASETS_DIR=${ADEPT_DATASETS_DIR:-$work/datasets}
mpi=(mpirun -np 2 --oversubscribe --allow-run-as-root --bind-to none -x OMP_NUM_THREADS -x ADEPT_DATASETS_DIR)
fail() { echo "FAIL: $*"; exit 1; }
T0=$SECONDS
step() { echo "[$((SECONDS - T0)) s] $*"; }

step "1. 2 x 4 equals 1 x 8 (sync_bn)"
common="data=shapes epochs=1 imgsz=64 batch=8 nbs=8 warmup_epochs=0 optimizer=SGD lr0=0.01 workers=0 fraction=0.018 plots=False val=False sync_bn=True seed=3"
"$exe" train $common project="$work/one" > "$work/one.log" 2>&1 || { cat "$work/one.log"; fail "1 process"; }
"${mpi[@]}" "$exe" train $common project="$work/two" > "$work/two.log" 2>&1 || { cat "$work/two.log"; fail "2 ranks"; }
/usr/bin/python3 - "$work/one/train/weights/last.safetensors" "$work/two/train/weights/last.safetensors" <<'EOF'
import sys
from safetensors.torch import load_file
a, b = load_file(sys.argv[1]), load_file(sys.argv[2])
assert a.keys() == b.keys()
num = den = 0.0
for k in a:
    if not k.startswith("model.") or not a[k].dtype.is_floating_point or "running" in k:
        continue
    x, y = a[k].double(), b[k].double()
    num += ((x - y) ** 2).sum().item()
    den += (x ** 2).sum().item()
rel = (num / den) ** 0.5
print(f"weights: relative difference {rel:.2e} (parameters, L2)")
assert rel < 1e-3, rel  # without the averaging: 5e-3
EOF

step "2. coco128, 2 ranks x 2 workers, mosaic closing, default transport and ob1"
for transport in default ob1; do
  extra=()
  [[ $transport == ob1 ]] && extra=(--mca pml ob1 --mca btl self,vader,tcp)
  "${mpi[@]}" "${extra[@]}" "$exe" train data="$coco" epochs=2 close_mosaic=1 imgsz=64 batch=8 workers=2 \
    fraction=0.25 plots=False save_period=1 project="$work/coco_$transport" > "$work/coco.log" 2>&1 ||
    { cat "$work/coco.log"; fail "coco128 over $transport"; }
  grep -q "closing mosaic" "$work/coco.log" || fail "the mosaic did not close ($transport)"
  [[ $(grep -c '^results: ' "$work/coco.log") == 1 ]] || fail "more than one rank reported a run folder"
  [[ $(ls "$work/coco_$transport") == train ]] || fail "ranks made several run folders: $(ls "$work/coco_$transport")"
  [[ $(($(wc -l < "$work/coco_$transport/train/results.csv"))) == 3 ]] || fail "results.csv should have 2 epochs"
done
grep -q "over 2 processes (4 images each a step)" "$work/coco.log" || fail "the run does not say how it splits batch"

step "3. an epoch-boundary checkpoint of 2 ranks resumes in 1 process"
"$exe" train resume="$work/coco_default/train/weights/epoch1.safetensors" > "$work/resume1.log" 2>&1 ||
  { cat "$work/resume1.log"; fail "resume in 1 process"; }
grep -q "resuming .* at epoch 2, batch 0" "$work/resume1.log" || fail "did not resume at epoch 2"

step "3b. mpirun adept val runs once, on rank 0"
"${mpi[@]}" "$exe" val model="$work/coco_default/train/weights/last.safetensors" imgsz=64 batch=8 plots=False \
  project="$work/val" > "$work/val.log" 2>&1 || { cat "$work/val.log"; fail "val under mpirun"; }
[[ $(grep -c '^mAP50 ' "$work/val.log") == 1 ]] || { cat "$work/val.log"; fail "val ran on more than one rank"; }

step "4. SIGTERM to mpirun mid-epoch"
"${mpi[@]}" "$exe" train data=shapes epochs=3 imgsz=64 batch=8 workers=1 fraction=0.3 plots=False val=False \
  project="$work/term" > "$work/term.log" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q "epoch 2/3" "$work/term.log" 2>/dev/null && break; sleep 0.2; done
kill -TERM $pid
timeout 60 tail --pid=$pid -f /dev/null || fail "the ranks did not stop within 60 s of SIGTERM"
wait $pid || true
grep -q "training interrupted at epoch" "$work/term.log" || { cat "$work/term.log"; fail "no checkpoint at the interrupt"; }
ckpt=$work/term/train/weights/last.safetensors
[[ -f $ckpt ]] || fail "no last.safetensors"
if pgrep -f "project=$work/term" > /dev/null; then fail "rank processes left: $(pgrep -fa "project=$work/term")"; fi
if ls /dev/shm | grep -q '^adept\.'; then
  # Another test's live loader may own one: only this run's would be gone with its processes.
  for s in /dev/shm/adept.*; do fuser -s "$s" 2>/dev/null || fail "shared-memory segment left: $s"; done
fi
if "$exe" train resume="$ckpt" > "$work/r1.log" 2>&1; then fail "a 2-rank mid-epoch checkpoint resumed in 1 process"; fi
grep -q "resume it only from an epoch boundary" "$work/r1.log" || { cat "$work/r1.log"; fail "unclear refusal"; }
"${mpi[@]}" "$exe" train resume="$ckpt" > "$work/r2.log" 2>&1 || { cat "$work/r2.log"; fail "resume in 2 processes"; }
[[ $(($(wc -l < "$work/term/train/results.csv"))) == 4 ]] || fail "the resumed run should end with 3 epochs"
step "PASS: data-parallel adept train"
