#!/usr/bin/env python3
"""Checks that Adept's layers depend one way only: down.

Layers, lowest first (a file may depend only on its own layer and the ones below it):

  0 core       tensors, storage, dtypes, devices, errors: src/core/ and the core public headers
  1 kernels    the kernel interface: kernel-family signatures, parameter structs, the registry
  2 backends   the CPU and Vulkan implementations of the kernels
  3 ops        ops and autograd together (backward formulas are ops; the engine adds grads with ops)
  4 libraries  nn, optim, data, io, vision (and distributed, onnx)
  5 models     src/models/, include/adept/models/
  6 top        include/adept/adept.h and everything else (apps, python, tests, bench)

  core <- kernels <- backends <- ops/autograd <- nn/optim/data/io/vision <- models <- apps/python

Why: a backend that calls ops (adept::empty, Tensor::contiguous, ...) ties the kernels to the
dispatcher that calls them, so neither can change, be tested or be replaced on its own, and cycles
creep in. Kept one way down, a new backend only needs core and the kernel interface.

Two checks:
  1. Include direction: every #include "..." or <...> under include/adept/ and src/ (shaders left out) is
     resolved (against the including file's folder, include/, src/) and must not point up.
  2. Symbols: no object of src/backends/ in the adept library may leave undefined an adept::
     symbol that only an object of the ops layer or above defines (`nm`, so calls made through
     inline code count too). Objects whose source is gone (left-overs) are skipped.
     Skipped with --no-symbols.

Usage: scripts/check_layers.py [--build DIR] [--no-symbols]      exit status 0 (OK) or 1
"""
import argparse
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The public headers of the core layer: include/adept/<name>.h.
CORE_PUBLIC_HEADERS = {"device", "dtype", "errors", "half", "scalar", "storage", "tensor",
                       "parallel", "set_data", "profiler"}

LAYER_NAMES = ["core", "kernels", "backends", "ops", "libraries", "models", "top"]
LIBRARIES = "nn|optim|data|io|vision|distributed|onnx"

# The layer map: (rank, regex over the repository-relative path); the first full match wins.
LAYER_MAP = [
    (0, r"src/core/.*|include/adept/(%s)\.h" % "|".join(sorted(CORE_PUBLIC_HEADERS))),
    (1, r"src/kernels/.*|include/adept/supported\.h"),
    (2, r"src/backends/.*|include/adept/vulkan\.h"),
    (3, r"src/(ops|autograd)/.*|include/adept/(ops|autograd)\.h|include/adept/ops/.*"),
    (4, r"src/(%s)/.*|include/adept/(%s)(\.h|/.*)" % (LIBRARIES, LIBRARIES)),
    (5, r"src/models/.*|include/adept/models/.*"),
    (6, r"include/adept/adept\.h"),
]
TOP = 6

SCANNED_DIRS = ["include/adept", "src"]
SKIPPED_DIRS = ["src/backends/vulkan/shaders"]
SOURCE_SUFFIXES = {".h", ".hpp", ".cpp", ".cc", ".inl", ".def"}
# "..." and <...> includes alike (<adept/ops.h> compiles too); system headers resolve to nothing.
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*["<]([^">]+)[">]', re.MULTILINE)
NM_BATCH = 200


def layer_of(rel):
    """The rank of a repository-relative path; None for one under a scanned folder (or an object
    under src/) that the map does not place. Anything outside those folders is top."""
    rank = next((rank for rank, pattern in LAYER_MAP if re.fullmatch(pattern, rel)), None)
    if rank is None and not rel.startswith(tuple(d + "/" for d in SCANNED_DIRS)):
        return TOP
    return rank


def scanned_files():
    for top in SCANNED_DIRS:
        for path in sorted((ROOT / top).rglob("*")):
            rel = path.relative_to(ROOT).as_posix()
            if path.suffix in SOURCE_SUFFIXES and not any(rel.startswith(d + "/") for d in SKIPPED_DIRS):
                yield path, rel


def resolve(include, including):
    """The repository-relative path an #include "..." names, or None for one outside the tree."""
    for base in (including.parent, ROOT / "include", ROOT / "src"):
        candidate = (base / include).resolve()
        if candidate.is_file():
            try:
                return candidate.relative_to(ROOT).as_posix()
            except ValueError:
                return None
    return None


def check_includes():
    """Returns (number of files scanned, unplaced files, {including file: [upward include]})."""
    unplaced, violations, count = [], defaultdict(list), 0
    for path, rel in scanned_files():
        count += 1
        rank = layer_of(rel)
        if rank is None:
            unplaced.append(rel)
            continue
        for include in INCLUDE_RE.findall(path.read_text(errors="replace")):
            target = resolve(include, path)
            if target is None:
                continue
            target_rank = layer_of(target)  # None: unplaced, reported on its own
            if target_rank is not None and target_rank > rank:
                violations[f"{rel} ({LAYER_NAMES[rank]})"].append(
                    f'"{include}" -> {target} ({LAYER_NAMES[target_rank]})')
    return count, unplaced, violations


def run_nm(objdir, objects, flags):
    """{object: set of mangled symbols} from `nm -A <flags>` over the objects, many per call."""
    symbols = defaultdict(set)
    for i in range(0, len(objects), NM_BATCH):
        out = subprocess.run(["nm", "-A", *flags, *objects[i:i + NM_BATCH]], cwd=objdir,
                             check=True, capture_output=True, text=True).stdout
        for line in out.splitlines():
            obj, _, fields = line.rpartition(":")
            if fields.split():
                symbols[obj].add(fields.split()[-1])
    return symbols


def demangle(names):
    out = subprocess.run(["c++filt"], input="\n".join(names), check=True,
                         capture_output=True, text=True).stdout
    return dict(zip(names, out.splitlines()))


def check_symbols(build):
    """Returns (number of backend objects, [violation line]), or None where nothing is built.
    Objects of unplaced sources are left out: the include check reports those sources."""
    objdir = build / "CMakeFiles" / "adept.dir"
    objects = sorted(p.relative_to(objdir).as_posix() for p in (objdir / "src").rglob("*.o"))
    if not objects:
        return None
    ranks = {obj: layer_of(obj[:-len(".o")]) for obj in objects
             if (ROOT / obj[:-len(".o")]).is_file()}  # not left-overs of deleted sources
    ranks = {obj: rank for obj, rank in ranks.items() if rank is not None}
    backend = [obj for obj, rank in ranks.items() if rank == 2]
    undefined = run_nm(objdir, backend, ["-u"])
    defined = run_nm(objdir, list(ranks), ["--defined-only", "-g"])
    low = set().union(*(syms for obj, syms in defined.items() if ranks[obj] <= 2))
    definers = defaultdict(list)
    for obj, syms in sorted(defined.items()):
        if ranks[obj] >= 3:
            for sym in syms - low:
                definers[sym].append(obj)
    wanted = {sym for obj in backend for sym in undefined[obj] if sym in definers}
    names = demangle(sorted(wanted))
    violations = [f"{obj} -> {names[sym]} (defined in {', '.join(definers[sym])})"
                  for obj in backend
                  for sym in sorted(undefined[obj] & wanted, key=names.get)
                  if names[sym].startswith("adept::")]
    return len(backend), violations


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build/release", type=Path, metavar="DIR",
                        help="build directory whose adept objects are checked (default build/release)")
    parser.add_argument("--no-symbols", action="store_true", help="run the include check only")
    args = parser.parse_args()
    build = args.build.resolve()  # relative to the current directory, as usual for a path argument

    count, unplaced, include_violations = check_includes()
    failures = [f"{len(unplaced)} unplaced files"] if unplaced else []
    if unplaced:
        print(f"Files the layer map does not place ({len(unplaced)}): add them to LAYER_MAP in "
              "scripts/check_layers.py")
        print("".join(f"  {rel}\n" for rel in unplaced), end="")
    if include_violations:
        total = sum(map(len, include_violations.values()))
        failures.append(f"{total} upward includes")
        print(f"\nUpward includes ({total} in {len(include_violations)} files):")
        for rel, lines in sorted(include_violations.items()):
            print(f"  {rel}")
            print("".join(f"    includes {line}\n" for line in lines), end="")

    summary = f"{count} files"
    if not args.no_symbols:
        result = check_symbols(build)
        if result is None:
            print(f"\nno objects under {build}/CMakeFiles/adept.dir/src: build it or pass --no-symbols")
            failures.append("no build")
        else:
            backend_count, symbol_violations = result
            summary += f", {backend_count} backend objects"
            if symbol_violations:
                failures.append(f"{len(symbol_violations)} op symbols in backend objects")
                print(f"\nBackend objects referencing symbols of the ops layer or above "
                      f"({len(symbol_violations)}):")
                print("".join(f"  {line}\n" for line in symbol_violations), end="")

    if failures:
        print(f"\ncheck_layers: FAILED ({', '.join(failures)}; {summary})")
        return 1
    print(f"check_layers: OK ({summary})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
