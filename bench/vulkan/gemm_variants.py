#!/usr/bin/env python3
"""Compiles tile variants of the float16 cooperative-matrix GEMM (src/backends/vulkan/shaders/matmul_coopmat.comp)
for a tuning sweep on the H200 (bench/vulkan/h200_gemm_sweep.sh).

Each variant is a folder OUT/n_b{BM}x{BN}x{BK}_w{WM}x{WN}_s{STAGES}_g{GROUP_M} holding the module that
ADEPT_VK_SHADER_DIR puts in place of a built-in build (the build of the same tile, matmul_coopmat_wide_f16.spv
for 128 x 256 or matmul_coopmat_m64_f16.spv for 64 x 128, else matmul_coopmat_m128_f16.spv) and `tile`
("BMxBN", which the sweep passes as ADEPT_VK_COOPMAT_TILE so that the host picks that module and its grid
matches). Variants whose shared tiles (any operand orientation, padded rows) pass the device's 48 KiB are
refused here, before a lease.

Usage: bench/vulkan/gemm_variants.py OUT [BMxBNxBK:WMxWN:STAGES:GROUP_M ...]  (default: the built-in set below)
"""
import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHADERS = ROOT / "src/backends/vulkan/shaders"
GENERATED = ROOT / "build/release/generated"
SHARED_LIMIT = 48 * 1024
# The built-in builds by tile (matmul_coopmat.comp's @build lines, kernels/linalg.cpp's table).
BUILDS = {(128, 256): "matmul_coopmat_wide_f16", (64, 128): "matmul_coopmat_m64_f16"}
DTYPE = ["-DT_0=float16_t", "-DC_0=float", "-DT_1=float16_t", "-DC_1=float", "-DU_1=uint", "-DIS_FLOAT=1",
         "-DIS_DOUBLE=0", "-DIS_BOOL=0", "-DOUT_BOOL=0", "-DIS_BF16_0=0", "-DIS_BF16_1=0", "-DACC=float",
         "-DFROM_BITS(lo,hi)=float16_t(unpackHalf2x16(lo).x)"]
DEFAULT = [
    "128x128x32:2x4:2:1",   # the built-in build
    "128x128x32:2x4:2:8",   # the same, tiles walked in bands of 8 tile rows
    "128x128x16:2x2:2:1",   # 4 subgroups of 64 x 64
    "128x128x32:2x2:2:1",
    "128x256x16:2x4:2:1",   # 8 subgroups of 64 x 64
    "128x256x16:2x4:2:8",
    "256x128x16:4x2:2:1",
    "256x128x16:4x2:2:8",
    "128x256x32:2x4:1:8",   # one shared buffer, deeper steps
    "256x128x32:4x2:1:8",
    "128x128x64:2x4:1:8",
    "128x128x64:2x2:1:8",
]


def shared_bytes(bm, bn, bk, stages):
    a = max(bm * (bk // 8 + 1), bk * (bm // 8 + 1))
    b = max(bk * (bn // 8 + 1), bn * (bk // 8 + 1))
    return 16 * stages * (a + b)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = pathlib.Path(sys.argv[1])
    glslc = shutil.which("glslc")
    if not glslc:
        sys.exit("gemm_variants: glslc is missing (apt-get install glslc)")
    if not (GENERATED / "op_table.glsl").exists():
        sys.exit(f"gemm_variants: {GENERATED}/op_table.glsl is missing: build the release preset first")
    for spec in sys.argv[2:] or DEFAULT:
        tile, warps, stages, group = spec.split(":")
        bm, bn, bk = map(int, tile.split("x"))
        wm, wn = map(int, warps.split("x"))
        stages, group = int(stages), int(group)
        if bm % (16 * wm) or bn % (16 * wn) or bk % 16:
            sys.exit(f"gemm_variants: {spec}: each subgroup needs whole 16x16 fragments and BK a multiple of 16")
        smem = shared_bytes(bm, bn, bk, stages)
        if smem > SHARED_LIMIT:
            sys.exit(f"gemm_variants: {spec}: {smem} bytes of shared tiles, past the device's {SHARED_LIMIT}")
        name = f"n_b{bm}x{bn}x{bk}_w{wm}x{wn}_s{stages}_g{group}"
        folder = out / name
        folder.mkdir(parents=True, exist_ok=True)
        defs = [f"-DBM={bm}u", f"-DBN={bn}u", f"-DBK={bk}u", f"-DWM={wm}u", f"-DWN={wn}u", f"-DSTAGES={stages}u",
                f"-DGROUP_M={group}u"]
        module = BUILDS.get((bm, bn), "matmul_coopmat_m128_f16")
        for old in folder.glob("*.spv"):
            old.unlink()
        subprocess.run([glslc, "--target-env=vulkan1.2", "-O", f"-I{SHADERS}", f"-I{GENERATED}", *DTYPE, *defs,
                        "-o", str(folder / f"{module}.spv"), str(SHADERS / "matmul_coopmat.comp")],
                       check=True)
        (folder / "tile").write_text(f"{bm}x{bn}\n")
        print(f"{name}: {smem} bytes of shared memory, {32 * wm * wn} threads")


if __name__ == "__main__":
    main()
