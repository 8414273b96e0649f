"""Merges the output folders of h200_gemm_sweep.sh (unpacked sweep.tar.xz) into one results file: per lease the
GPU, cuBLAS's float16 GFLOP/s (torch_cuda_bench.py) and, per shader variant, the kernel's GFLOP/s alone
(timestamps) at n = 1024..8192 with its ratio to cuBLAS at the largest n, best first.
Variant names: n_b{BM}x{BN}x{BK}_w{WM}x{WN}_s{STAGES}_g{GROUP_M} (bench/vulkan/gemm_variants.py); d_* are
diagnostic builds that leave parts of the kernel out (their products are wrong by design; see "notes").
Usage: python3 combine_sweep.py out.json NOTES_JSON SWEEP_DIR [SWEEP_DIR ...]"""
import glob
import json
import os
import sys


def main():
    out_path, notes = sys.argv[1], json.load(open(sys.argv[2]))
    leases = []
    for d in sys.argv[3:]:
        torch = json.load(open(os.path.join(d, "torch_gemm.json")))
        cublas = {r["n"]: r["gflops"] for r in torch["matmul"] if r["dtype"] == "float16"}
        rows = []
        for f in sorted(glob.glob(os.path.join(d, "*.json"))):
            name = os.path.basename(f)[:-5]
            if name.startswith("torch"):
                continue
            res = json.load(open(f))["matmul"]
            if not res or res[0]["dtype"] != "float16":
                continue
            g = {r["n"]: round(r["kernel_gflops"], 1) for r in res}
            n = max(g)
            harness = os.path.join(d, name + ".harness.txt")
            ok = None
            if os.path.exists(harness):
                ok = " 0 failed" in open(harness).read()
            rows.append({"variant": name, "kernel_gflops": g, "over_cublas_at_max_n": round(g[n] / cublas[n], 3),
                         "harness_passed": ok})
        rows.sort(key=lambda r: -r["over_cublas_at_max_n"])
        gpu = open(os.path.join(d, "gpu.txt")).read().strip()
        leases.append({"gpu": gpu, "torch": torch.get("torch"), "cublas_float16_gflops": cublas, "variants": rows})
    json.dump({"what": "float16 GEMM C = A B (row-major n x n) on VK_NV_cooperative_matrix: tile variants of "
                       "shaders/matmul_coopmat.comp timed one lease at a time (bench/vulkan/h200_gemm_sweep.sh)",
               "notes": notes, "leases": leases}, open(out_path, "w"), indent=1)


if __name__ == "__main__":
    main()
