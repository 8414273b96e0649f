"""The plots of a run folder (plots=True, the default), named as Ultralytics writes them: a tiny
YOLO11n training holds results.png, labels.jpg, train_batch0-2.jpg, val_batch0/1_labels/pred.jpg, the
four Box*_curve.png and both confusion matrices, each a decodable image of a sensible size with real
content; `val` writes the curves and matrices into its own run folder; plots=False writes none; no
temporary file is left behind.

Run: PYTHONPATH=<build dir>/python /usr/bin/python3 -m pytest -q tests/python/test_yolo_plots.py
"""
import os

import numpy as np
import pytest
from PIL import Image  # Debian's python3-pil (scripts/setup.sh)

import adept
from adept.models import YOLO

IMGSZ, BATCH, EPOCHS = 64, 4, 2
TRAIN_IMAGES, VAL_IMAGES = 12, 16  # 3 training batches; 2 validation batches (of 2 x batch, as Ultralytics)

CURVES = ["BoxPR_curve.png", "BoxF1_curve.png", "BoxP_curve.png", "BoxR_curve.png",
          "confusion_matrix.png", "confusion_matrix_normalized.png"]
VAL_BATCHES = ["val_batch0_labels.jpg", "val_batch0_pred.jpg", "val_batch1_labels.jpg", "val_batch1_pred.jpg"]
TRAIN_PLOTS = ["results.png", "labels.jpg", "train_batch0.jpg", "train_batch1.jpg", "train_batch2.jpg"]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("shapes")
    return adept.vision.ensure_synthetic_shapes(str(root), train_images=TRAIN_IMAGES, val_images=VAL_IMAGES,
                                                imgsz=IMGSZ)


def train(data, project, **kw):
    adept.manual_seed(0)
    opts = dict(data=data, imgsz=IMGSZ, epochs=EPOCHS, batch=BATCH, workers=0, project=str(project), verbose=False)
    opts.update(kw)
    return YOLO("yolo11n").train(**opts)


@pytest.fixture(scope="module")
def run(data, tmp_path_factory):
    return train(data, tmp_path_factory.mktemp("runs"))


def image(path):
    with Image.open(path) as im:
        im.load()
        return np.asarray(im.convert("RGB"))


def test_train_run_folder_has_every_plot(run):
    folder = run["save_dir"]
    files = set(os.listdir(folder))
    missing = [f for f in TRAIN_PLOTS + VAL_BATCHES + CURVES if f not in files]
    assert not missing, f"{folder} lacks {missing} (has {sorted(files)})"
    assert not [f for f in files if ".tmp" in f], sorted(files)


@pytest.mark.parametrize("name", TRAIN_PLOTS + VAL_BATCHES + CURVES)
def test_each_plot_is_a_real_picture(run, name):
    a = image(os.path.join(run["save_dir"], name))
    h, w, _ = a.shape
    assert w >= 640 and h >= 400, (name, a.shape)
    # Not a blank page: several colours, and a fair share of pixels that are not the background.
    assert len(np.unique(a.reshape(-1, 3)[::7], axis=0)) > 20, name
    assert (a.astype(int).sum(axis=2) < 600).mean() > 0.01, name


def test_results_png_is_two_rows_of_five_panels(run):
    a = image(os.path.join(run["save_dir"], "results.png"))
    assert a.shape[1] > 2 * a.shape[0]  # a wide 2 x 5 grid


def test_batch_mosaic_scales_small_images_up(run):
    # 4 images of 64 px: a 2 x 2 mosaic drawn at a readable size, not 128 px.
    a = image(os.path.join(run["save_dir"], "train_batch0.jpg"))
    assert min(a.shape[:2]) >= 512, a.shape


def test_val_writes_curves_and_matrices(run, data, tmp_path):
    m = YOLO(run["last"]).val(data=data, imgsz=IMGSZ, batch=BATCH, workers=0, project=str(tmp_path), name="v",
                              verbose=False)
    assert m["save_dir"] == str(tmp_path / "v")
    files = set(os.listdir(m["save_dir"]))
    assert set(CURVES + VAL_BATCHES) <= files, sorted(files)


def test_plots_false_writes_no_plot(data, tmp_path):
    r = train(data, tmp_path / "train", epochs=1, plots=False)
    pictures = [f for f in os.listdir(r["save_dir"]) if f.endswith((".png", ".jpg"))]
    assert pictures == [], pictures
    m = YOLO(r["last"]).val(data=data, imgsz=IMGSZ, batch=BATCH, workers=0, project=str(tmp_path / "val"),
                            plots=False, verbose=False)
    assert m["save_dir"] == "" and not (tmp_path / "val").exists()
