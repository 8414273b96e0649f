"""Checks and runs ONNX models with PyPI's onnx and onnxruntime, for tests/python/test_yolo_export.py.

It runs under the python of the onnxruntime venv (build/venv-onnxruntime, made by scripts/setup.sh from
tests/python/requirements-onnxruntime.txt), never under Debian's python3: that venv has the protobuf
onnxruntime and onnx need, so Debian's packages are not shadowed. It imports neither adept nor pytest.

Usage: onnxruntime_check.py JOB.json
JOB.json is a list of {"model": path, "inputs": {name: .npy path}, "out": prefix}. For each model:
onnx.checker.check_model(full_check=True) (structure and strict shape inference), then one
onnxruntime CPU session run on the inputs, each output written to <prefix>_<i>.npy. Prints one JSON
object per model on its own line: model, ir_version, opset, inputs / outputs ([name, shape] with
symbolic dims as strings), metadata ({key: value}), outputs_written. Exits non-zero on any error.
"""
import json
import sys

import numpy as np
import onnx
import onnxruntime as ort


def main():
    with open(sys.argv[1]) as f:
        jobs = json.load(f)
    for job in jobs:
        model = onnx.load(job["model"])
        onnx.checker.check_model(model, full_check=True)
        options = ort.SessionOptions()
        options.intra_op_num_threads = 2
        session = ort.InferenceSession(job["model"], options, providers=["CPUExecutionProvider"])
        feeds = {name: np.load(path) for name, path in job["inputs"].items()}
        outputs = session.run(None, feeds)
        written = []
        for i, y in enumerate(outputs):
            written.append(f"{job['out']}_{i}.npy")
            np.save(written[-1], y)
        print(json.dumps({
            "model": job["model"],
            "ir_version": model.ir_version,
            "opset": {o.domain: o.version for o in model.opset_import}.get(""),
            "inputs": [[i.name, list(i.shape)] for i in session.get_inputs()],
            "outputs": [[o.name, list(o.shape)] for o in session.get_outputs()],
            "metadata": {p.key: p.value for p in model.metadata_props},
            "outputs_written": written,
        }))


if __name__ == "__main__":
    main()
