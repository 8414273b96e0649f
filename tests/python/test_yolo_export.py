"""ONNX export of YOLO11 (``YOLO(...).export(format="onnx")``, ``adept export``): the exported graph,
re-imported with ``adept.onnx.load`` (static and dynamic, opsets 11-21, CPU and ``--device``) and run by
onnxruntime, gives the model's evaluation output; the CLI exports a trained checkpoint next to it; bad
options and unknown modules are errors naming them.

onnxruntime and onnx come from PyPI in their own venv (build/venv-onnxruntime, made by scripts/setup.sh;
$ADEPT_ONNXRUNTIME_PYTHON overrides), run in a subprocess (tests/python/onnxruntime_check.py): a missing
venv fails the test, it does not skip it. Debian's onnx (python3-onnx), where installed, checks the
files as well.

Run: PYTHONPATH=<build dir>/python /usr/bin/python3 -m pytest -q tests/python/test_yolo_export.py
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import adept
from adept import _cli
from adept.models import YOLO

ROOT = Path(__file__).resolve().parents[2]
ORT_PYTHON = os.environ.get("ADEPT_ONNXRUNTIME_PYTHON") or str(ROOT / "build/venv-onnxruntime/bin/python")
IMGSZ = 64
NC = 3
RTOL, ATOL = 1e-5, 1e-4  # boxes are pixels (up to a few hundred here), scores in [0, 1]


def cpu_only(device):
    if device != "cpu":
        pytest.skip("runs once, in the CPU phase")


@pytest.fixture(scope="module")
def yolo():
    """yolo11n for NC classes with random BatchNorm statistics and affine parameters (so that folding them
    into the convolutions matters), in eval mode."""
    adept.manual_seed(11)
    model = YOLO("yolo11n", nc=NC)
    with adept.no_grad():
        for name, b in model.model.named_buffers():
            if name.endswith("running_mean"):
                b.copy_(adept.randn(*b.shape) * 0.1)
            elif name.endswith("running_var"):
                b.copy_(adept.rand(*b.shape) + 0.5)
        for name, p in model.model.named_parameters():
            if name.endswith("bn.weight"):
                p.copy_(adept.rand(*p.shape) + 0.5)
            elif name.endswith("bn.bias"):
                p.copy_(adept.randn(*p.shape) * 0.1)
    model.eval()
    return model


def eval_output(model, x):
    with adept.no_grad():
        return model(x).cpu().numpy()


def export_to(model, folder, monkeypatch, **options):
    """model.export(**options) run in `folder` (a new model is written as yolo11n.onnx in the working
    directory); the path, moved to a name of its own."""
    monkeypatch.chdir(folder)
    path = model.export(**options)
    assert path == "yolo11n.onnx"
    name = folder / "m_{}.onnx".format("_".join(f"{k}{v}" for k, v in sorted(options.items())))
    os.replace(path, name)
    return str(name)


def reimported_output(path, x, device):
    graph = adept.onnx.load(path).to(device)
    with adept.no_grad():
        return graph(x.to(device)).cpu().numpy()


def test_static_export_reimports_with_the_models_output(yolo, tmp_path, monkeypatch, device):
    yolo.to(device)
    try:
        path = export_to(yolo, tmp_path, monkeypatch, imgsz=IMGSZ, batch=2)
        graph = adept.onnx.load(path)
        assert graph.input_names == ["images"] and graph.output_names == ["output0"] and graph.opset == 17
        # BatchNorm folded: the fused model's parameter names, no bn tensors.
        params = {k for k, _ in graph.named_parameters()}
        assert {"model.0.conv.weight", "model.0.conv.bias", "model.23.dfl.conv.weight"} <= params
        assert not any(".bn." in k for k in params)
        x = adept.rand(2, 3, IMGSZ, IMGSZ).to(device)
        want = eval_output(yolo, x)
        assert want.shape == (2, 4 + NC, 84)  # 8x8 + 4x4 + 2x2 anchors
        np.testing.assert_allclose(reimported_output(path, x, device), want, rtol=RTOL, atol=ATOL)
        with pytest.raises(adept.ShapeError, match="images"):  # a static graph keeps its batch and size
            graph(adept.rand(1, 3, IMGSZ, IMGSZ))
    finally:
        yolo.to("cpu")


def test_dynamic_export_takes_other_batches_and_sizes(yolo, tmp_path, monkeypatch, device):
    yolo.to(device)
    try:
        path = export_to(yolo, tmp_path, monkeypatch, imgsz=IMGSZ, dynamic=True)
        for shape in [(1, 3, 64, 64), (3, 3, 96, 64)]:
            x = adept.rand(*shape).to(device)
            np.testing.assert_allclose(reimported_output(path, x, device), eval_output(yolo, x), rtol=RTOL, atol=ATOL,
                                       err_msg=str(shape))
    finally:
        yolo.to("cpu")


@pytest.mark.parametrize("opset,dynamic", [(11, True), (13, False), (21, True)])
def test_every_opset_reimports_with_the_models_output(yolo, tmp_path, monkeypatch, device, opset, dynamic):
    """Opsets 11-12 take Split's sizes and Softmax's axis differently from 13+; 19+ is IR 9-10."""
    cpu_only(device)
    path = export_to(yolo, tmp_path, monkeypatch, imgsz=IMGSZ, opset=opset, dynamic=dynamic)
    assert adept.onnx.load(path).opset == opset
    x = adept.rand(1, 3, IMGSZ, IMGSZ)
    np.testing.assert_allclose(reimported_output(path, x, "cpu"), eval_output(yolo, x), rtol=RTOL, atol=ATOL)


def run_onnxruntime(jobs, folder):
    """tests/python/onnxruntime_check.py on `jobs` in the onnxruntime venv: one dict per model."""
    assert os.access(ORT_PYTHON, os.X_OK), (
        f"the onnxruntime venv's python {ORT_PYTHON} is missing: run scripts/setup.sh (it creates "
        f"build/venv-onnxruntime from tests/python/requirements-onnxruntime.txt) or set ADEPT_ONNXRUNTIME_PYTHON")
    job_file = folder / "jobs.json"
    job_file.write_text(json.dumps(jobs))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    r = subprocess.run([ORT_PYTHON, str(ROOT / "tests/python/onnxruntime_check.py"), str(job_file)],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, f"onnxruntime_check.py failed:\n{r.stdout}\n{r.stderr}"
    return [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]


def test_onnxruntime_runs_the_export_with_adepts_outputs(yolo, tmp_path, monkeypatch, device):
    cpu_only(device)
    cases = [  # (export options, input shape)
        (dict(imgsz=IMGSZ), (1, 3, 64, 64)),
        (dict(imgsz=IMGSZ, opset=11, batch=2), (2, 3, 64, 64)),
        (dict(imgsz=IMGSZ, dynamic=True), (2, 3, 96, 128)),
        (dict(imgsz=IMGSZ, dynamic=True, opset=21), (1, 3, 64, 96)),
    ]
    jobs, wants = [], []
    for i, (options, shape) in enumerate(cases):
        path = export_to(yolo, tmp_path, monkeypatch, **options)
        x = adept.rand(*shape)
        np.save(tmp_path / f"x{i}.npy", x.numpy())
        jobs.append({"model": path, "inputs": {"images": str(tmp_path / f"x{i}.npy")}, "out": str(tmp_path / f"y{i}")})
        wants.append(eval_output(yolo, x))
    results = run_onnxruntime(jobs, tmp_path)
    assert len(results) == len(cases)
    for (options, shape), want, r in zip(cases, wants, results):
        got = np.load(r["outputs_written"][0])
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=str(options))
        assert r["opset"] == options.get("opset", 17)
        assert r["ir_version"] == {11: 6, 17: 8, 21: 10}[r["opset"]]
        if options.get("dynamic"):
            assert r["inputs"] == [["images", ["batch", 3, "height", "width"]]]
            assert r["outputs"] == [["output0", ["batch", 4 + NC, "anchors"]]]
        else:
            b = options.get("batch", 1)
            assert r["inputs"] == [["images", [b, 3, IMGSZ, IMGSZ]]]
            assert r["outputs"] == [["output0", [b, 4 + NC, 84]]]
    meta = results[0]["metadata"]  # Ultralytics' keys, values as Python literals
    assert meta["task"] == "detect" and meta["stride"] == "32" and meta["imgsz"] == "[64, 64]"
    assert meta["batch"] == "1" and meta["channels"] == "3"
    assert meta["names"] == "{0: 'class0', 1: 'class1', 2: 'class2'}"
    assert meta["args"] == "{'batch': 1, 'dynamic': False, 'opset': 17}"


def debian_onnx():
    """Whether Debian's python3 imports onnx (python3-onnx 1.12: IR <= 8, opsets <= 17)."""
    r = subprocess.run(["/usr/bin/python3", "-c", "import onnx"], capture_output=True)
    return r.returncode == 0


def test_debian_onnx_checker_accepts_the_export(yolo, tmp_path, monkeypatch, device):
    """An extra: Debian's onnx checker and shape inference, where python3-onnx is installed."""
    cpu_only(device)
    if not debian_onnx():
        pytest.skip("python3-onnx is not installed (the onnxruntime venv's onnx checks the files in any case)")
    paths = [export_to(yolo, tmp_path, monkeypatch, imgsz=IMGSZ, opset=o, dynamic=d)
             for o, d in [(11, False), (17, True)]]
    code = "import sys, onnx\nfor p in sys.argv[1:]: onnx.checker.check_model(onnx.load(p), full_check=True)\n"
    r = subprocess.run(["/usr/bin/python3", "-c", code, *paths], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_cli_exports_a_trained_checkpoint_next_to_it(tmp_path, monkeypatch, device):
    """A one-step `adept train` checkpoint: `adept export model=<ckpt> format=onnx` writes <ckpt>.onnx at the
    checkpoint's training size; re-imported it gives YOLO(ckpt)'s output; YOLO(ckpt).export() writes the same
    file, and dynamic=True / opset= reach the file."""
    cpu_only(device)
    data = adept.vision.ensure_synthetic_shapes(str(tmp_path / "shapes"), train_images=4, val_images=2, imgsz=IMGSZ)
    adept.manual_seed(0)
    trained = YOLO("yolo11n").train(data=data, imgsz=IMGSZ, epochs=1, batch=4, workers=0, project=str(tmp_path),
                                    name="t", val=False, plots=False, verbose=False)
    ckpt = Path(trained["last"])
    monkeypatch.chdir(tmp_path)
    r = subprocess.run([_cli.executable(), "export", f"model={ckpt}", "format=onnx"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    onnx_path = ckpt.with_suffix(".onnx")
    assert f"exported {onnx_path} (ONNX opset 17, IR 8): images [1, 3, {IMGSZ}, {IMGSZ}]" in r.stdout
    model = YOLO(str(ckpt)).eval()
    x = adept.rand(1, 3, IMGSZ, IMGSZ)
    np.testing.assert_allclose(reimported_output(str(onnx_path), x, "cpu"), eval_output(model, x), rtol=RTOL,
                               atol=ATOL)
    # The Python API: same file; options reach it.
    mtime = onnx_path.stat().st_mtime_ns
    assert model.export(format="onnx", dynamic=True, opset=13) == str(onnx_path)
    assert onnx_path.stat().st_mtime_ns >= mtime
    assert adept.onnx.load(str(onnx_path)).opset == 13
    x = adept.rand(2, 3, 96, 64)
    np.testing.assert_allclose(reimported_output(str(onnx_path), x, "cpu"), eval_output(model, x), rtol=RTOL,
                               atol=ATOL)
    # What the CLI refuses, each with its message and exit status 1, writing nothing.
    onnx_path.unlink()
    for args, message in [
        (["format=engine"], "format 'engine' is not supported; Adept exports format=onnx"),
        (["opset=22"], "opset 22 is not supported; the writer produces opsets 11 to 21"),
        (["imgsz=100"], "imgsz 100x100 must be positive multiples of 32"),
        (["half=True"], "'half' is not a valid option"),
    ]:
        r = subprocess.run([_cli.executable(), "export", f"model={ckpt}", *args], capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 1 and message in r.stderr, (args, r.stderr)
        assert not onnx_path.exists()
    r = subprocess.run([_cli.executable(), "export", f"model={tmp_path / 'missing.safetensors'}"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 1 and "missing.safetensors does not exist" in r.stderr


def test_export_errors_name_the_problem(yolo, tmp_path, monkeypatch, device):
    cpu_only(device)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="format 'torchscript' is not supported"):
        yolo.export(format="torchscript")
    with pytest.raises(ValueError, match="opset 10 is not supported"):
        yolo.export(opset=10)
    with pytest.raises(ValueError, match="multiples of 32"):
        yolo.export(imgsz=48)
    # the unknown option's message points to export's options, not train's
    with pytest.raises(ValueError, match=r"'simplify' is not a valid option \(`adept export --help` lists them\)"):
        yolo.export(simplify=True)
    with pytest.raises(ValueError, match="imgsz='64,96' is invalid: expected an integer"):  # one size: square input
        yolo.export(imgsz=[64, 96])
    with pytest.raises(ValueError, match="the 'model' option is not used here"):
        yolo.export(model="yolo11s")
    assert not list(tmp_path.iterdir())


def test_unknown_module_is_an_unsupported_error_naming_it(tmp_path, monkeypatch, device):
    cpu_only(device)
    monkeypatch.chdir(tmp_path)
    model = YOLO("yolo11n", nc=2)
    model.model.model[9] = adept.nn.Dropout(0.1)
    with pytest.raises(adept.onnx.UnsupportedError, match=r"module 'model.9' \(Dropout\)") as e:
        model.export(imgsz=IMGSZ)
    assert isinstance(e.value, NotImplementedError)
    assert e.value.items == [("Dropout", "", 17, "model.9", "")]
    assert not list(tmp_path.iterdir())
