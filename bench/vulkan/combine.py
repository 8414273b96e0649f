"""Merges adept_vulkan_bench and torch_cuda_bench.py outputs into one results file with ratios.
Usage: python3 combine.py adept.json torch.json out.json [adept_no_coopmat.json]"""
import json
import sys


def main():
    adept = json.load(open(sys.argv[1]))
    torch = json.load(open(sys.argv[2]))
    nocm = json.load(open(sys.argv[4])) if len(sys.argv) > 4 else None
    ref = {(m["dtype"], m["n"]): m["gflops"] for m in torch["matmul"]}
    rows = []
    for m in adept["matmul"]:
        t = ref[(m["dtype"], m["n"])]
        row = {"dtype": m["dtype"], "n": m["n"], "adept_gflops": round(m["gflops"], 1), "torch_gflops": round(t, 1),
               "adept_over_torch": round(m["gflops"] / t, 4)}
        if m.get("kernel_gflops"):  # the GEMM kernel's own GPU time (timestamps) and the build that ran
            row["adept_kernel"] = m["kernel"]
            row["adept_kernel_gflops"] = round(m["kernel_gflops"], 1)
            row["adept_kernel_over_torch"] = round(m["kernel_gflops"] / t, 4)
        if nocm:
            row["adept_tiled_only_gflops"] = round(
                next(x["gflops"] for x in nocm["matmul"] if x["dtype"] == m["dtype"] and x["n"] == m["n"]), 1)
        rows.append(row)
    tel = {e["numel"]: e for e in torch["elementwise"]}
    ew = [{"numel": e["numel"], "adept_add_gbps": round(e["add_gbps"], 1), "adept_copy_gbps": round(e["copy_gbps"], 1),
           "adept_add_over_adept_copy": round(e["add_over_copy"], 3),
           "torch_add_gbps": round(tel[e["numel"]]["add_gbps"], 1), "torch_copy_gbps": round(tel[e["numel"]]["copy_gbps"], 1),
           "adept_add_over_torch_copy": round(e["add_gbps"] / tel[e["numel"]]["copy_gbps"], 3)}
          for e in adept["elementwise"]]
    out = {"machine": f"{adept['device']}; reference: PyTorch {torch['torch']} on {torch['device']} (CUDA, TF32 off)",
           "notes": "float32 GEMM: tiled shader (128x128 tiles of 8x8 per thread, 64x64 of 4x4 where 128-tiles "
                    "would make fewer than 128 workgroups); float16: VK_NV_cooperative_matrix 16x16x16 fragments "
                    "from double-buffered shared-memory tiles (128x256x16 of 1x8 subgroups where they make at least "
                    "128 workgroups, else 128x128x32 or 64x128x32 of 2x4; ADEPT_VK_DISABLE_COOPMAT=1 gives the tiled "
                    "shader). adept_gflops and torch_gflops: wall time of back-to-back calls; adept_kernel_gflops: "
                    "the kernel's GPU time alone. cooperative_matrix_peak_tflops: the ceiling of register-resident "
                    "fragment multiplies (vulkan_cooperative_matrix_peak). GB/s count bytes read + written.",
           "matmul": rows, "elementwise": ew}
    if "cooperative_matrix_peak_tflops" in adept:
        peak = adept["cooperative_matrix_peak_tflops"]
        out["cooperative_matrix_peak_tflops"] = round(peak, 1)
        for r in rows:
            if r["dtype"] == "float16":
                r["adept_over_coopmat_peak"] = round(r["adept_gflops"] / 1e3 / peak, 4)
                r["torch_over_coopmat_peak"] = round(r["torch_gflops"] / 1e3 / peak, 4)
        print(f"cooperative-matrix ceiling: {peak:.1f} TFLOP/s")
    if "dispatch_us" in adept and "dispatch_us" in torch:
        out["dispatch_us"] = {k: {"adept": round(adept["dispatch_us"][k], 2), "torch": round(torch["dispatch_us"][k], 2),
                                  "adept_over_torch": round(adept["dispatch_us"][k] / torch["dispatch_us"][k], 3)}
                              for k in ("queued", "round_trip")}
        out["notes"] += (" dispatch_us: one in-place add on 64 floats, queued (recorded 2000 times) and round_trip "
                         "(a host wait after each).")
    json.dump(out, open(sys.argv[3], "w"), indent=2)
    for r in rows:
        print(f"matmul {r['dtype']:8s} {r['n']:5d}: adept {r['adept_gflops']:9.1f}  torch {r['torch_gflops']:9.1f} "
              f"GFLOP/s  ratio {r['adept_over_torch']:.3f}")
    for k, d in out.get("dispatch_us", {}).items():
        print(f"tiny add_ {k}: adept {d['adept']} us, torch {d['torch']} us -> {d['adept_over_torch']}")
    for e in ew:
        print(f"add {e['numel']}: adept {e['adept_add_gbps']} GB/s, adept copy {e['adept_copy_gbps']}, "
              f"torch copy {e['torch_copy_gbps']} -> {e['adept_add_over_torch_copy']}")


if __name__ == "__main__":
    main()
