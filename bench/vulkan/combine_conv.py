"""Merges adept_vulkan_conv_bench and torch_conv_bench.py outputs into one results file: per layer, dtype
and direction, every algorithm's milliseconds, the fastest, the default rule's ("auto") and PyTorch's,
with torch_ms / adept_ms (> 1: Adept faster). Prints a table.
Usage: python3 combine_conv.py adept.json torch.json out.json"""
import json
import sys


def main():
    adept = json.load(open(sys.argv[1]))
    torch = json.load(open(sys.argv[2]))
    ref = {(tuple(r["layer"]), r["dtype"], r["direction"]): r["ms"] for r in torch["rows"]}
    groups = {}
    for r in adept["rows"]:
        groups.setdefault((tuple(r["layer"]), r["dtype"], r["direction"]), {})[r["algo"]] = r["ms"]
    rows = []
    for (layer, dtype, direction), algos in groups.items():
        t = ref[(layer, dtype, direction)]
        timed = {a: ms for a, ms in algos.items() if a not in ("auto", "fused", "unfused")}
        best = min(timed, key=timed.get) if timed else min(algos, key=algos.get)
        chosen = algos.get("auto", algos.get("fused"))
        rows.append({"layer": list(layer), "dtype": dtype, "direction": direction, "adept_ms": algos,
                     "fastest": best, "torch_ms": t, "torch_over_adept": round(t / chosen, 4)})
        print(f"{str(list(layer)):<40} {dtype:<8} {direction:<15} auto/fused {chosen:8.3f} ms  fastest {best:<14}"
              f" torch {t:8.3f} ms  torch/adept {t / chosen:6.3f}")
    out = {"machine": f"{adept['device']}; reference: PyTorch {torch['torch']} on {torch['device']} (cuDNN, TF32 off)",
           "layers": "N C_in H W C_out k stride pad groups (bench/vulkan/conv_shapes.txt)",
           "rows": rows}
    json.dump(out, open(sys.argv[3], "w"), indent=1)


if __name__ == "__main__":
    main()
