#!/usr/bin/env python3
"""Runs the ```bash and ```python snippets of README.md in order, as a reader would paste them.

Usage: test_readme.py [REPO_ROOT]   (default: the checkout holding this file; build/release must be built)

Each snippet runs in one scratch folder holding a symlink to every top-level entry of the repository
but runs/, datasets/ and the files snippets write, so `build/release/bin/adept ...` resolves as in the
repository root while what the snippets write (runs/detect/..., net.safetensors, coco128.yaml) stays in
the scratch folder, which is removed at the end. bash snippets run with `bash -euo pipefail`, python
ones with /usr/bin/python3, PYTHONPATH=build/release/python and OMP_NUM_THREADS=2.

An HTML comment right before a fence changes how it runs:
  <!-- readme-test: skip (reason) -->          not run; the reason is printed
  <!-- readme-test: train-args ARGS -->       ARGS appended to every `adept train` line (last value wins)
  <!-- readme-test: needs-coco128 -->         skipped when no coco128 copy is found and ADEPT_README_DOWNLOAD
                                              is unset (CI machines may have no route to GitHub)

Before the snippets, a short run stands in for the quick start's training (which README's quick start
writes to runs/detect/quickstart and later snippets read). coco128 comes from $ADEPT_COCO128, else
../shared/data/coco128, else the README snippet downloads it. Prints each snippet's line number and
pass/fail/skip; exits 1 with the output of the first failing snippet.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FENCE = re.compile(r"^(\s*)```(\w*)\s*$")
MARKER = re.compile(r"^\s*<!--\s*readme-test:\s*(skip|train-args|needs-coco128)\s*(.*?)\s*-->\s*$")
TRAIN_LINE = re.compile(r"^(\s*\S*adept train\b.*?)(\s+#.*)?$")


def snippets(readme):
    """(line number, language, code, marker kind, marker text) of each fenced block, in order."""
    lines = readme.read_text().splitlines()
    out, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m or not m.group(2):
            i += 1
            continue
        indent, lang, start = m.group(1), m.group(2), i
        body, i = [], i + 1
        while i < len(lines) and not FENCE.match(lines[i]):
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        i += 1
        marks, k = {}, start - 1
        while k >= 0 and (not lines[k].strip() or MARKER.match(lines[k])):
            if lines[k].strip():
                mk = MARKER.match(lines[k])
                marks[mk.group(1)] = mk.group(2)
            k -= 1
        out.append((start + 1, lang, "\n".join(body) + "\n", marks))
    return out


def with_train_args(code, args):
    """Appends args to each `adept train` command line (before a trailing comment)."""
    res = []
    for line in code.splitlines():
        m = TRAIN_LINE.match(line)
        res.append(f"{m.group(1)} {args}{m.group(2) or ''}" if m else line)
    return "\n".join(res) + "\n"


def main():
    repo = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2]).resolve()
    adept = repo / "build/release/bin/adept"
    if not adept.exists():
        print(f"FAIL: {adept} is not built (cmake --build --preset release --target adept_cli adept_python)")
        return 1
    scratch = Path(tempfile.mkdtemp(prefix="adept-readme-"))
    for entry in repo.iterdir():
        if entry.name not in ("runs", "datasets", ".git", "net.safetensors", "coco128.yaml", "compare.html"):
            (scratch / entry.name).symlink_to(entry)
    env = dict(os.environ, OMP_NUM_THREADS="2", PYTHONPATH=str(repo / "build/release/python"))
    coco = os.environ.get("ADEPT_COCO128") or str(repo.parent / "shared/data/coco128")
    if Path(coco).is_dir():
        env["ADEPT_COCO128"] = coco
    failed = 0
    t0 = time.time()
    try:
        # Stands in for the quick start's training (scripts/quickstart.sh: project=runs/detect name=quickstart).
        pre = subprocess.run([str(adept), "train", "project=runs/detect", "name=quickstart", "exist_ok=True", "epochs=1",
                              "imgsz=64", "fraction=0.1", "workers=0"], cwd=scratch, env=env, capture_output=True,
                             text=True)
        if pre.returncode != 0:
            print(f"FAIL: the stand-in quick-start training failed:\n{pre.stdout}{pre.stderr}")
            return 1
        print(f"setup: stand-in quick-start run in runs/detect/quickstart ({time.time() - t0:.0f} s)")
        have_coco = "ADEPT_COCO128" in env or bool(os.environ.get("ADEPT_README_DOWNLOAD"))
        for line, lang, code, marks in snippets(repo / "README.md"):
            if lang not in ("bash", "python"):
                continue
            if "skip" in marks:
                print(f"README.md:{line} {lang}: skip {marks['skip']}")
                continue
            if "needs-coco128" in marks and not have_coco:
                print(f"README.md:{line} {lang}: skip (no coco128 at $ADEPT_COCO128 or {coco}; "
                      "ADEPT_README_DOWNLOAD=1 lets the snippet download it)")
                continue
            if "train-args" in marks:
                code = with_train_args(code, marks["train-args"])
            cmd = ["bash", "-euo", "pipefail", "-c", code] if lang == "bash" else ["/usr/bin/python3", "-c", code]
            t = time.time()
            r = subprocess.run(cmd, cwd=scratch, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            status = "pass" if r.returncode == 0 else f"FAIL (exit {r.returncode})"
            print(f"README.md:{line} {lang}: {status} ({time.time() - t:.1f} s)", flush=True)
            if r.returncode != 0:
                failed += 1
                print(f"--- snippet ---\n{code}--- output ---\n{r.stdout[-6000:]}--- end ---")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if failed:
        print(f"FAIL: {failed} README snippet(s) failed")
        return 1
    print(f"PASS: every README snippet runs ({time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
