"""PyTorch CUDA reference for adept_vulkan_conv_bench: the same layers (conv_shapes.txt), directions
(forward, input gradient, weight gradient, each alone through autograd) and dtypes, cuDNN with TF32 off
and benchmark mode off (PyTorch's defaults but TF32), and the eval-mode conv2d + bias + silu.
Median milliseconds of the timed calls (--gpu-time: CUDA events, the GPU's time alone).
Usage: python3 torch_conv_bench.py conv_shapes.txt out.json [--gpu-time]"""
import json
import sys
import time

import torch
import torch.nn.functional as F


GPU_TIME = "--gpu-time" in sys.argv


def median_ms(fn, reps=7):
    """Median wall milliseconds per synchronised call; with --gpu-time the CUDA-event time on the GPU."""
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        if GPU_TIME:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
            continue
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    return sorted(times)[len(times) // 2]


def main():
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.device("cuda")
    layers = [list(map(int, l.split())) for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")]
    rows = []
    for n, c_in, h, w, c_out, k, s, p, g in layers:
        for dt in (torch.float32, torch.float16):
            x = torch.randn(n, c_in, h, w, device=dev, dtype=dt)
            wt = torch.randn(c_out, c_in // g, k, k, device=dev, dtype=dt)
            b = torch.randn(c_out, device=dev, dtype=dt)
            gy = torch.randn_like(F.conv2d(x, wt, None, s, p, 1, g))
            xg, wg = x.clone().requires_grad_(), wt.clone().requires_grad_()
            name = str(dt).replace("torch.", "")

            def fwd():
                with torch.no_grad():
                    F.conv2d(x, wt, None, s, p, 1, g)

            def input_grad():
                F.conv2d(xg, wt, None, s, p, 1, g).backward(gy)
                xg.grad = None

            def weight_grad():
                F.conv2d(x, wg, None, s, p, 1, g).backward(gy)
                wg.grad = None

            def eval_silu():
                with torch.no_grad():
                    F.silu(F.conv2d(x, wt, b, s, p, 1, g))

            for direction, fn in (("forward", fwd), ("input_grad", input_grad), ("weight_grad", weight_grad),
                                  ("eval_bias_silu", eval_silu)):
                rows.append({"layer": [n, c_in, h, w, c_out, k, s, p, g], "dtype": name, "direction": direction,
                             "ms": round(median_ms(fn), 4)})
                print(rows[-1], flush=True)
    json.dump({"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "rows": rows},
              open(sys.argv[2], "w"), indent=1)


if __name__ == "__main__":
    main()
