"""adept.models.YOLO, the Python face of the YOLO11 engine: train / val / predict with the command's
options on a tiny synthetic dataset, the object as an nn.Module, option errors, worker processes,
stop + resume, and Ctrl-C in a subprocess.

Run: PYTHONPATH=<build dir>/python /usr/bin/python3 -m pytest -q tests/python/test_yolo_api.py
"""
import csv
import glob
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import adept
from adept.models import YOLO

IMGSZ = 64
EPOCHS = 2
TRAIN_IMAGES, VAL_IMAGES, BATCH = 12, 6, 4  # 3 batches per epoch
LOSSES = ("box_loss", "cls_loss", "dfl_loss")


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def child_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p and os.path.isdir(os.path.join(p, "adept")))
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("shapes")
    return adept.vision.ensure_synthetic_shapes(str(root), train_images=TRAIN_IMAGES, val_images=VAL_IMAGES,
                                                imgsz=IMGSZ)


def train_options(data, project, **kw):
    opts = dict(data=data, imgsz=IMGSZ, epochs=EPOCHS, batch=BATCH, workers=0, project=project, verbose=False)
    opts.update(kw)
    return opts


@pytest.fixture(scope="module")
def trained(data, tmp_path_factory):
    """yolo11n trained for 2 epochs from seeded weights; the batches its on_batch_end saw."""
    project = tmp_path_factory.mktemp("runs")
    adept.manual_seed(0)
    model = YOLO("yolo11n")
    seen = []
    result = model.train(**train_options(data, project),
                         on_batch_end=lambda epoch, batch, items: seen.append((epoch, batch, items)))
    return model, result, seen


def test_train_result_files_and_callback(trained, data):
    model, r, seen = trained
    assert r["epochs"] == EPOCHS and not r["interrupted"] and not r["early_stopped"]
    assert os.path.isfile(r["last"]) and os.path.isfile(r["best"])
    assert os.path.isfile(os.path.join(r["save_dir"], "args.yaml"))
    assert [int(x["epoch"]) for x in rows(os.path.join(r["save_dir"], "results.csv"))] == [1, 2]
    batches = rows(os.path.join(r["save_dir"], "batches.csv"))
    # on_batch_end saw every batch, 0-based, with the loss items the CSV records (6 digits there).
    assert [(e, b) for e, b, _ in seen] == [(e, b) for e in range(EPOCHS) for b in range(3)]
    assert [(int(x["epoch"]) - 1, int(x["batch"]) - 1) for x in batches] == [(e, b) for e, b, _ in seen]
    for (_, _, items), row in zip(seen, batches):
        expected = [float(row[k]) for k in LOSSES]
        assert items == pytest.approx(expected, rel=2e-5, abs=1e-12)
    names = adept.vision.synthetic_shapes_names()
    # The model took the dataset's classes and holds the best checkpoint's EMA weights.
    assert model.names == dict(enumerate(names))
    assert model.model.nc == len(names)
    assert model.ckpt_path == r["best"]
    assert model.train_args["imgsz"] == str(IMGSZ) and model.train_args["data"] == data
    assert model.training  # the mode it had before training
    v = r["best_val"]
    assert v is not None and model.metrics is v
    assert v["images"] == VAL_IMAGES
    assert [c["name"] for c in v["per_class"]] == [names[c["class"]] for c in v["per_class"]]
    assert v["instances"] == sum(c["instances"] for c in v["per_class"]) > 0
    assert all(0 <= c["ap50_95"] <= c["ap50"] <= 1 for c in v["per_class"])
    assert v["fitness"] == pytest.approx(0.1 * v["map50"] + 0.9 * v["map50_95"])
    assert len(v["loss"]) == 3 and all(x > 0 for x in v["loss"])
    assert "mAP50-95" in v["table"] and names[v["per_class"][0]["class"]] in v["table"]


def test_yolo_is_an_nn_module_and_checkpoint_matches(trained):
    model, r, _ = trained
    assert isinstance(model, adept.nn.Module)
    inner = model.model.state_dict()
    sd = model.state_dict()
    assert list(sd) == ["model." + k for k in inner]
    assert all(adept.equal(sd["model." + k], t) for k, t in inner.items())
    assert len(list(model.parameters())) == len(list(model.model.parameters()))

    x = adept.rand(2, 3, IMGSZ, IMGSZ, generator=adept.Generator().manual_seed(1))
    model.eval()  # nn.Module's eval reaches YOLO.train(False): a mode switch, not a training run
    assert not model.training and not model.model.training
    out = model(x)  # a tensor: forward
    assert out.shape == (2, 4 + model.model.nc, (IMGSZ // 8) ** 2 + (IMGSZ // 16) ** 2 + (IMGSZ // 32) ** 2)
    assert adept.equal(out, model.model(x))
    # The checkpoint the object says it holds gives the same eval outputs.
    again = YOLO(model.ckpt_path).eval()
    assert again.names == model.names and again.ckpt_path == model.ckpt_path
    assert adept.equal(again(x), out)
    model.train(True)
    assert model.training and model.model.training
    # A training-mode forward updates BatchNorm statistics: run it on the copy.
    maps = again.train(True)(x)
    assert [tuple(m.shape) for m in maps] == [(2, 64 + again.model.nc, IMGSZ // s, IMGSZ // s) for s in (8, 16, 32)]
    with pytest.raises(TypeError):
        model.train(True, epochs=1)


def test_val_matches_checkpoint(trained, tmp_path):
    model, _, _ = trained
    v = model.val(project=str(tmp_path), verbose=False)  # data and imgsz from the checkpoint
    assert model.metrics is v
    assert v["images"] == VAL_IMAGES and v["instances"] > 0
    assert set(v) >= {"map50", "map50_95", "map75", "mp", "mr", "per_class", "loss", "seconds", "table"}
    w = YOLO(model.ckpt_path).val(project=str(tmp_path), verbose=False, batch=2)
    for k in ("map50", "map50_95", "map75", "mp", "mr", "instances"):
        assert w[k] == v[k], k
    assert w["per_class"] == v["per_class"]


def test_predict_results(trained, data, tmp_path):
    model, _, _ = trained
    val_dir = os.path.join(os.path.dirname(data), "images", "val")
    files = sorted(os.path.join(val_dir, f) for f in os.listdir(val_dir))
    results = model.predict(source=val_dir, conf=0.001, project=str(tmp_path), verbose=False)
    assert [r.path for r in results] == files
    total = 0
    for k, r in enumerate(results):
        h, w = tuple(adept.vision.synthetic_shapes_image("val", k, train_images=TRAIN_IMAGES, val_images=VAL_IMAGES,
                                                               imgsz=IMGSZ)["image"].shape[:2])
        assert r.orig_shape == (h, w)
        n = len(r.boxes)
        total += n
        assert r.boxes.data.shape == (n, 6) and r.boxes.xyxy.shape == (n, 4)
        assert r.boxes.conf.shape == (n,) and r.boxes.cls.shape == (n,) and r.boxes.xywh.shape == (n, 4)
        if n:
            xyxy = r.boxes.xyxy
            assert bool((xyxy[:, 0] >= 0).all()) and bool((xyxy[:, 2] <= w).all()) and bool((xyxy[:, 3] <= h).all())
            assert bool((r.boxes.conf >= 0.001).all())
            assert r.boxes.conf.tolist() == sorted(r.boxes.conf.tolist(), reverse=True)
            assert adept.allclose(r.boxes.xywh[:, 2:], xyxy[:, 2:] - xyxy[:, :2])
        assert r.names == model.names
    assert total > 0  # conf=0.001 keeps the untrained model's weak boxes: the checks above ran
    assert results[0].save_dir.startswith(str(tmp_path))
    saved = json.load(open(os.path.join(results[0].save_dir, "predictions.json")))
    assert [len(e["detections"]) for e in saved] == [len(r) for r in results]
    # Default save=False (Ultralytics' Python default): no drawn images; save=True draws them.
    assert sorted(os.listdir(results[0].save_dir)) == ["predictions.json"]
    # __call__ on paths predicts; the checkpoint gives the same boxes.
    again = YOLO(model.ckpt_path)(files[:2], conf=0.001, project=str(tmp_path), verbose=False, save=True)
    assert [r.path for r in again] == files[:2]
    assert all(adept.equal(a.boxes.data, b.boxes.data) for a, b in zip(again, results))
    drawn = sorted(os.path.basename(f) for f in files[:2])
    assert sorted(os.listdir(again[0].save_dir)) == sorted(drawn + ["predictions.json"])
    # A class filter beyond the model's classes fails and leaves no run folder.
    runs = sorted(os.listdir(tmp_path))
    with pytest.raises(ValueError, match="classes filter 7"):
        model.predict(source=files[0], classes=[7], project=str(tmp_path), name="bad")
    assert sorted(os.listdir(tmp_path)) == runs


def test_option_values_as_command_text(tmp_path):
    """Python values become the text the command line would give each option."""
    c = adept.models.yolo.check_options(dict(epochs=3, imgsz=3.0, lr0=0.1 + 0.2, lrf=1e-5, val=False, cos_lr=True,
                                             classes=[0, 2], conf=None, project=tmp_path, name="x"))
    assert (c["epochs"], c["imgsz"], c["lr0"], c["lrf"]) == ("3", "3.0", "0.30000000000000004", "1e-05")
    assert (c["val"], c["cos_lr"], c["classes"], c["conf"], c["project"], c["name"]) == (
        "false", "true", "0,2", "", str(tmp_path), "x")
    specs = {o["key"]: o for o in adept.models.yolo.option_specs()}
    assert set(c) == set(specs) and c["batch"] == specs["batch"]["default"] == "16"
    assert specs["epochs"]["kind"] == "int" and specs["val"]["kind"] == "bool"


def test_option_errors(tmp_path):
    model = YOLO("n")
    assert adept.models.yolo.check_options(dict(epochs=None, data=None))["epochs"] == "100"  # None: not given
    with pytest.raises(ValueError, match="'epochz'.*did you mean 'epochs'"):
        model.train(epochz=None, project=str(tmp_path))
    with pytest.raises(ValueError, match=r"'foo' is not a valid option \(`adept train --help` lists them\)"):
        model.train(foo=1, project=str(tmp_path))  # no far-fetched suggestion
    with pytest.raises(ValueError, match=r"'foo' is not a valid option \(`adept predict --help` lists them\)"):
        model.predict(foo=1)
    with pytest.raises(ValueError, match="conf must be in"):
        model.val(conf=2, project=str(tmp_path))
    with pytest.raises(ValueError, match="'epochz'.*did you mean 'epochs'"):
        model.train(epochz=3, project=str(tmp_path))
    with pytest.raises(ValueError, match="epochs='three'"):
        model.train(epochs="three", project=str(tmp_path))
    with pytest.raises(ValueError, match="imgsz='1.5'"):
        model.val(imgsz=1.5, project=str(tmp_path))
    with pytest.raises(ValueError, match="agnostic_nms='maybe'"):
        model.predict(source=str(tmp_path), agnostic_nms="maybe", project=str(tmp_path))
    with pytest.raises(TypeError, match="'conf'"):
        model.predict(conf={"a": 1}, project=str(tmp_path))
    with pytest.raises(ValueError, match="'model' option"):
        model.val(model="yolo11s", project=str(tmp_path))
    assert os.listdir(tmp_path) == []  # every error came before any work
    assert isinstance(adept.ValueError("x"), ValueError)
    with pytest.raises(ValueError, match="yolo12q"):
        YOLO("yolo12q")
    with pytest.raises(OSError, match="does not exist"):
        YOLO(str(tmp_path / "missing.safetensors"))
    # A new model keeps the scale and class count it was made with.
    m = YOLO("yolo11s.yaml", nc=3)
    assert (m.model.scale, m.model.nc, m.ckpt_path, m.train_args) == ("s", 3, None, None)
    assert m.names == {0: "class0", 1: "class1", 2: "class2"}


def test_stop_with_workers_then_resume(trained, data, tmp_path):
    """stop_requested after the first batch (2 worker processes), then resume=<last>: the resumed
    run continues where it stopped and reproduces the uninterrupted run's losses."""
    adept.manual_seed(0)
    model = YOLO("yolo11n")
    r = model.train(**train_options(data, str(tmp_path), workers=2), stop_requested=lambda: True)
    assert r["interrupted"] and r["epochs"] == 0 and r["best"] == "" and r["best_val"] is None
    assert os.path.isfile(r["last"]) and model.ckpt_path == r["last"]
    assert len(rows(os.path.join(r["save_dir"], "batches.csv"))) == 1

    # The GIL is released while the C++ trainer runs: another Python thread keeps ticking between
    # two on_batch_end calls (holding the GIL, it could tick at most once there, when a callback
    # hands the GIL over).
    ticks, calls, stop = [], [], threading.Event()
    ticker = threading.Thread(target=lambda: [ticks.append(time.monotonic()) or time.sleep(0.005)
                                              for _ in iter(stop.is_set, True)])
    resumed = YOLO("yolo11n")
    ticker.start()
    try:
        r2 = resumed.train(resume=r["last"], workers=2, on_batch_end=lambda *a: calls.append(time.monotonic()))
    finally:
        stop.set()
        ticker.join()
    between = [sum(a < t < b for t in ticks) for a, b in zip(calls, calls[1:])]
    assert len(between) == 3 * EPOCHS - 2 and max(between) >= 3, between
    assert r2["save_dir"] == r["save_dir"] and r2["epochs"] == EPOCHS and not r2["interrupted"]
    assert resumed.ckpt_path == r2["best"] and resumed.names == model.names
    got = rows(os.path.join(r["save_dir"], "batches.csv"))
    want = rows(os.path.join(trained[1]["save_dir"], "batches.csv"))
    assert [(x["epoch"], x["batch"]) for x in got] == [(x["epoch"], x["batch"]) for x in want]
    for g, w in zip(got, want):
        assert [g[k] for k in LOSSES] == [w[k] for k in LOSSES]
    # Both runs end with the same weights.
    x = adept.rand(1, 3, IMGSZ, IMGSZ)
    assert adept.equal(resumed.eval()(x), trained[0].eval()(x))


def children():
    pids = []
    for task in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{task}/children") as f:
            pids += f.read().split()
    return pids


def test_callback_error_propagates(data, tmp_path):
    """What a callback raises ends the run (workers stopped) and reaches the caller; Python's SIGINT
    handler is back afterwards."""
    class Boom(Exception):
        pass

    def fail(epoch, batch, items):
        raise Boom(f"batch {batch}")

    before = set(children())  # processes of earlier tests in this session are not ours
    with pytest.raises(Boom, match="batch 0"):
        YOLO("yolo11n").train(**train_options(data, str(tmp_path), workers=1), on_batch_end=fail)
    deadline = time.time() + 10
    while not set(children()) <= before and time.time() < deadline:
        time.sleep(0.1)
    assert set(children()) <= before, "the run's data-loader workers are gone"
    # A background job (`cmd &`) starts with SIGINT ignored and Python installs no handler: then
    # there is no Python handler to get back.
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGINT)
            time.sleep(1)


def signal_after_first_batch(proc, batches_csv, sig, group=False):
    """Waits until the training subprocess `proc` has logged a batch, sends it `sig` (to its whole
    process group with `group`: it must lead its own session) and returns its (stdout, stderr);
    kills it if it does not end."""
    def send(s):
        if group:
            os.killpg(proc.pid, s)
        else:
            proc.send_signal(s)

    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if batches_csv.exists() and len(batches_csv.read_text().splitlines()) >= 2:
                break
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()
        send(sig)
        return proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            send(signal.SIGKILL)
            proc.wait()


CTRL_C_SCRIPT = """
import json, signal, sys, time
import adept
from adept.models import YOLO

def slow(epoch, batch, items):
    time.sleep(1.0)  # a Python callback: the GIL is taken back while the C++ trainer runs

r = YOLO("yolo11n").train(data=sys.argv[1], project=sys.argv[2], name="run", imgsz={imgsz}, epochs=1, batch={batch},
                          workers=1, verbose=False, on_batch_end=slow)
try:  # the trainer's SIGINT handler is gone: Python's raises KeyboardInterrupt again
    signal.raise_signal(signal.SIGINT)
    time.sleep(1)
    print("no KeyboardInterrupt")
except KeyboardInterrupt:
    print(json.dumps({{"interrupted": r["interrupted"], "last": r["last"], "epochs": r["epochs"]}}))
""".format(imgsz=IMGSZ, batch=BATCH)


def test_ctrl_c_saves_and_resumes(data, tmp_path):
    # A background job starts with SIGINT ignored (and Python then installs no handler): give the
    # child the default disposition, as a terminal would.
    proc = subprocess.Popen([sys.executable, "-c", CTRL_C_SCRIPT, data, str(tmp_path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=child_env(),
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    batches_csv = tmp_path / "run" / "batches.csv"
    out, err = signal_after_first_batch(proc, batches_csv, signal.SIGINT)
    assert proc.returncode == 0, err.decode()
    assert b"Traceback" not in err and b"Ctrl-C" in err
    r = json.loads(out.decode().strip().splitlines()[-1])
    assert r["interrupted"] and r["epochs"] == 0 and os.path.isfile(r["last"])
    done = len(rows(batches_csv))
    assert 1 <= done < TRAIN_IMAGES // BATCH
    r2 = YOLO("yolo11n").train(resume=True, project=str(tmp_path), workers=0)
    assert r2["last"] == r["last"] and r2["epochs"] == 1 and not r2["interrupted"]
    assert [int(x["batch"]) for x in rows(batches_csv)] == list(range(1, TRAIN_IMAGES // BATCH + 1))


SIGTERM_SCRIPT = """
import json, signal, sys, time
from adept.models import YOLO

def slow(epoch, batch, items):
    time.sleep(1.0)

r = YOLO("yolo11n").train(data=sys.argv[1], project=sys.argv[2], name="run", imgsz={imgsz}, epochs=1, batch={batch},
                          workers=2, verbose=False, on_batch_end=slow)
assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL  # the trainer's handler is gone
print(json.dumps({{"interrupted": r["interrupted"], "last": r["last"]}}))
""".format(imgsz=IMGSZ, batch=BATCH)


def test_sigterm_to_the_process_group_saves_and_leaves_no_shared_memory(data, tmp_path):
    # As `timeout`, a batch scheduler or a closed terminal do: SIGTERM to the trainer and its data
    # workers at once. The trainer stops at the batch boundary and saves; the workers leave it to
    # the trainer, which stops them and unlinks every shared-memory segment.
    proc = subprocess.Popen([sys.executable, "-c", SIGTERM_SCRIPT, data, str(tmp_path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=child_env(), start_new_session=True)
    out, err = signal_after_first_batch(proc, tmp_path / "run" / "batches.csv", signal.SIGTERM, group=True)
    assert proc.returncode == 0, err.decode()
    assert b"SIGTERM: saving a checkpoint" in err
    r = json.loads(out.decode().strip().splitlines()[-1])
    assert r["interrupted"] and os.path.isfile(r["last"])
    assert not glob.glob("/dev/shm/adept.{}.*".format(proc.pid))


@pytest.mark.skipif(not adept.vulkan.is_available(), reason="no Vulkan device")
def test_train_on_vulkan(data, tmp_path):
    """train(device="vulkan") trains, validates and writes the epoch's peak device memory; the
    checkpoint predicts on the CPU as the model does on the device."""
    adept.manual_seed(0)
    model = YOLO("yolo11n")
    seen = []
    r = model.train(**train_options(data, str(tmp_path), epochs=1, device="vulkan", seed=3),
                    on_batch_end=lambda epoch, batch, items: seen.append(items))
    assert r["epochs"] == 1 and r["best_val"] is not None and len(seen) == 3
    row = rows(os.path.join(r["save_dir"], "results.csv"))[0]
    assert float(row["gpu/peak_reserved_MiB"]) >= float(row["gpu/peak_allocated_MiB"]) > 0
    x = adept.rand(1, 3, IMGSZ, IMGSZ, generator=adept.Generator().manual_seed(2))
    # The object holds the checkpoint's EMA weights (on the CPU, as YOLO(path) loads them); the same
    # checkpoint on the device predicts the same.
    on_cpu = YOLO(r["last"]).eval()(x)
    assert adept.equal(model.eval()(x), on_cpu)
    vk = YOLO(r["last"]).eval()
    vk.model.to("vulkan")
    assert adept.allclose(vk(x.to("vulkan")).cpu(), on_cpu, rtol=1e-3, atol=1e-3)
