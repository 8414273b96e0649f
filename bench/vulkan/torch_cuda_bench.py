"""PyTorch CUDA reference for bench/vulkan: matmul TFLOP/s (float32 with TF32 off, float16),
elementwise add GB/s next to a device copy, and the cost of one tiny in-place add (queued, and with a
host wait after each), same sizes as adept_vulkan_bench. JSON to argv[1]."""
import json
import sys
import time

import torch


def timed(fn, iters):
    fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(iters):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / iters


def main():
    torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.device("cuda")
    res = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "matmul": [], "elementwise": []}
    for dt in (torch.float32, torch.float16):
        for n in (1024, 2048, 4096, 8192):
            a = torch.randn(n, n, device=dev, dtype=dt)
            b = torch.randn(n, n, device=dev, dtype=dt)
            iters = 3 if n >= 8192 else 5 if n >= 4096 else 20
            t = timed(lambda: a @ b, iters)
            res["matmul"].append({"dtype": str(dt).replace("torch.", ""), "n": n, "seconds": t,
                                  "gflops": 2 * n ** 3 / t / 1e9})
    for n in (1 << 24, 1 << 26):
        x = torch.randn(n, device=dev)
        y = torch.randn(n, device=dev)
        out = torch.empty_like(x)
        t_add = timed(lambda: x + y, 20)
        t_copy = timed(lambda: out.copy_(x), 20)
        res["elementwise"].append({"numel": n, "add_gbps": 3 * n * 4 / t_add / 1e9,
                                   "copy_gbps": 2 * n * 4 / t_copy / 1e9})
    tiny = torch.zeros(64, device=dev)
    res["dispatch_us"] = {"queued": 1e6 * timed(lambda: tiny.add_(1.0), 2000),
                          "round_trip": 1e6 * timed(lambda: (tiny.add_(1.0), torch.cuda.synchronize()), 200)}
    json.dump(res, open(sys.argv[1], "w"), indent=2)
    print(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
