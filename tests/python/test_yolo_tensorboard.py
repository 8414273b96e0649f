"""tensorboard=True: a tiny YOLO11n training (stopped after its first batch, then resumed) writes
TensorBoard event files that the `tensorboard` package (PyPI) reads back with the values of results.csv
and batches.csv, the learning rates and a decodable image of a training batch; tensorboard=False writes
no event file.

Run: PYTHONPATH=<build dir>/python /usr/bin/python3 -m pytest -q tests/python/test_yolo_tensorboard.py
"""
import csv
import io
import math
import os

import pytest

import adept
from adept.models import YOLO

from tensorboard.backend.event_processing import event_accumulator  # PyPI (scripts/setup.sh installs it)

IMGSZ, BATCH, EPOCHS = 64, 4, 2
TRAIN_IMAGES, VAL_IMAGES = 8, 4  # 2 batches per epoch


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def event_files(folder):
    return sorted(f for f in os.listdir(folder) if "tfevents" in f)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("shapes")
    return adept.vision.ensure_synthetic_shapes(str(root), train_images=TRAIN_IMAGES, val_images=VAL_IMAGES,
                                                imgsz=IMGSZ)


def options(data, project, **kw):
    opts = dict(data=data, imgsz=IMGSZ, epochs=EPOCHS, batch=BATCH, workers=0, project=str(project), verbose=False)
    opts.update(kw)
    return opts


@pytest.fixture(scope="module")
def run(data, tmp_path_factory):
    """A run with tensorboard=True stopped after its first batch, then resumed to the end; its folder
    and the accumulated events of all its event files."""
    project = tmp_path_factory.mktemp("runs")
    adept.manual_seed(0)
    r = YOLO("yolo11n").train(**options(data, project, tensorboard=True), stop_requested=lambda: True)
    assert r["interrupted"]
    assert len(event_files(r["save_dir"])) == 1
    r2 = YOLO("yolo11n").train(resume=r["last"], workers=0)
    assert r2["save_dir"] == r["save_dir"] and r2["epochs"] == EPOCHS
    acc = event_accumulator.EventAccumulator(r["save_dir"], size_guidance={
        event_accumulator.SCALARS: 0, event_accumulator.IMAGES: 0})
    acc.Reload()
    return r["save_dir"], acc


def close(got, want):
    return (math.isnan(got) and math.isnan(want)) or got == pytest.approx(want, rel=2e-5, abs=1e-9)


def test_resume_adds_an_event_file(run):
    save_dir, _ = run
    files = event_files(save_dir)
    assert len(files) == 2 and all(f.startswith("events.out.tfevents.") for f in files), files


def test_epoch_scalars_are_results_csv(run):
    save_dir, acc = run
    results = rows(os.path.join(save_dir, "results.csv"))
    assert [int(x["epoch"]) for x in results] == list(range(1, EPOCHS + 1))
    tags = set(acc.Tags()["scalars"])
    columns = [c for c in results[0] if c != "epoch"]
    assert {"train/box_loss", "metrics/mAP50-95(B)", "val/dfl_loss", "lr/pg0", "lr/pg1", "lr/pg2"} <= set(columns)
    for col in columns:
        assert col in tags, (col, sorted(tags))
        got = [(e.step, e.value) for e in acc.Scalars(col)]
        assert [s for s, _ in got] == [int(x["epoch"]) for x in results], col
        for (_, value), x in zip(got, results):
            assert close(value, float(x[col])), (col, value, x[col])


def test_batch_scalars_are_batches_csv(run):
    save_dir, acc = run
    batches = rows(os.path.join(save_dir, "batches.csv"))
    assert len(batches) == EPOCHS * TRAIN_IMAGES // BATCH
    for name in ("box_loss", "cls_loss", "dfl_loss"):
        got = [(e.step, e.value) for e in acc.Scalars("batch/" + name)]
        assert [s for s, _ in got] == [int(x["iteration"]) for x in batches], name
        for (_, value), x in zip(got, batches):
            assert close(value, float(x[name])), (name, value, x[name])


def test_train_batch_image_decodes(run):
    from PIL import Image  # a dependency of tensorboard
    _, acc = run
    images = acc.Images("train_batch")
    assert images and images[0].step == 1
    for im in images:
        decoded = Image.open(io.BytesIO(im.encoded_image_string))
        decoded.load()
        # 4 images of 64 x 64 on a 2 x 2 grid, enlarged to 1280 pixels as train_batchN.jpg.
        assert decoded.format == "PNG" and decoded.mode == "RGB"
        assert decoded.size == (im.width, im.height) == (1280, 1280)
        assert len(decoded.getcolors(1 << 20)) > 10  # pictures, not a blank


def test_no_event_file_without_tensorboard(data, tmp_path):
    r = YOLO("yolo11n").train(**options(data, tmp_path, epochs=1))
    assert os.path.isfile(os.path.join(r["save_dir"], "results.csv"))
    assert event_files(r["save_dir"]) == []
