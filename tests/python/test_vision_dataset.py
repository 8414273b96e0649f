"""adept.vision: DetectionDataset, detection_collate, load_dataset_config and to_float_image.

Values are checked against the label files read with NumPy; coco128 ($ADEPT_COCO128, default
../shared/data/coco128: images/, labels/, classes.txt) is used through symlinks in a temporary folder
so the label cache never lands in the shared data.
"""
import json
import os
import struct
from pathlib import Path

import numpy as np
import pytest

import adept
import adept.vision as V

COCO128 = Path(os.environ.get("ADEPT_COCO128") or Path(__file__).resolve().parents[3] / "shared" / "data" / "coco128")


def write_bmp(path, w, h, seed=0):
    """A w x h 24-bit BMP of seeded noise (no image library needed)."""
    row = (3 * w + 3) // 4 * 4
    pixels = np.random.default_rng(seed).integers(0, 256, (h, row), dtype=np.uint8)
    header = b"BM" + struct.pack("<IHHI", 54 + row * h, 0, 0, 54)
    header += struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, row * h, 0, 0, 0, 0)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(header + pixels.tobytes())


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture(scope="module")
def coco128(tmp_path_factory):
    if not (COCO128 / "images").is_dir():
        pytest.skip(f"coco128 is not available at {COCO128} (set ADEPT_COCO128)")
    root = tmp_path_factory.mktemp("data") / "coco128"
    root.mkdir()
    for name in ("images", "labels", "classes.txt"):
        (root / name).symlink_to(COCO128 / name)
    return root


@pytest.fixture
def tiny(tmp_path):
    """3 classes; images/train: a (2 boxes), b (1 box), c (background)."""
    write_bmp(tmp_path / "images/train/a.bmp", 64, 48, 1)
    write(tmp_path / "labels/train/a.txt", "0 0.5 0.5 0.25 0.5\n2 0.25 0.25 0.1 0.2\n")
    write_bmp(tmp_path / "images/train/b.bmp", 40, 80, 2)
    write(tmp_path / "labels/train/b.txt", "1 0.5 0.4 0.5 0.3\n")
    write_bmp(tmp_path / "images/train/c.bmp", 32, 32, 3)
    write(tmp_path / "data.yaml", "train: images/train\nval: images/train\nnames: {0: cat, 1: dog, 2: bird}\n")
    return tmp_path


def np_(t):
    return np.array(t.tolist())


def test_coco128_labels_match_the_label_files(coco128):
    ds = V.DetectionDataset(coco128, split="train")
    assert len(ds) == 128
    assert ds.names[0] == "person" and len(ds.names) == 80
    assert ds.summary["backgrounds"] == 2 and ds.summary["corrupt"] == 0 and ds.summary["bad_lines"] == 0
    assert isinstance(ds, adept.data.CppDataset)
    backgrounds = []
    for entry in ds.labels:
        stem = Path(entry["im_file"]).stem
        label_file = COCO128 / "labels" / (stem + ".txt")
        if not label_file.exists():
            backgrounds.append(stem)
            assert tuple(entry["cls"].shape) == (0, 1) and tuple(entry["bboxes"].shape) == (0, 4)
            continue
        want = np.loadtxt(label_file, ndmin=2)
        np.testing.assert_array_equal(np_(entry["cls"])[:, 0], want[:, 0])
        np.testing.assert_allclose(np_(entry["bboxes"]), want[:, 1:], atol=1e-6)
    assert sorted(backgrounds) == ["000000000250", "000000000508"]
    assert V.DetectionDataset(coco128, split="val").summary["from_cache"]


def test_coco128_samples_with_and_without_augment(coco128):
    val = V.DetectionDataset(coco128, split="val", imgsz=320)
    train = V.DetectionDataset(os.fspath(coco128), "train", imgsz=320, augment=True, mosaic=1.0, fliplr=0.5)
    for ds in (val, train):
        for i in (0, 77, -1):
            s = ds[i]
            assert set(s) == {"img", "cls", "bboxes", "ori_shape", "ratio_pad", "index"}
            assert tuple(s["img"].shape) == (3, 320, 320) and s["img"].dtype == adept.uint8
            b = np_(s["bboxes"])
            assert b.shape == (s["cls"].shape[0], 4)
            assert (b >= 0).all() and (b <= 1).all() and (b[:, 2:] > 0).all()
            assert s["index"].item() == i % 128
    s = val[5]
    h, w = val.labels[5]["shape"]
    assert np_(s["ori_shape"]).tolist() == [h, w]
    gain, pad_x, pad_y = np_(s["ratio_pad"])
    assert gain * max(h, w) == pytest.approx(320, abs=1e-3)
    # Validation boxes are the label boxes mapped through (gain, pad).
    want = np.loadtxt(COCO128 / "labels" / (Path(val.im_files[5]).stem + ".txt"), ndmin=2)[:, 1:]
    got = np_(s["bboxes"])
    np.testing.assert_allclose(got[:, 0] * 320, want[:, 0] * w * gain + pad_x, atol=0.6)
    np.testing.assert_allclose(got[:, 1] * 320, want[:, 1] * h * gain + pad_y, atol=0.6)
    with pytest.raises(IndexError):
        val[128]


def test_dataloader_workers_match_the_main_process(coco128):
    ds = V.DetectionDataset(coco128, "train", imgsz=256, augment=True)
    runs = []
    for workers in (0, 2):
        loader = adept.data.DataLoader(ds, batch_size=4, shuffle=True, num_workers=workers, seed=5,
                                       collate_fn=V.detection_collate)
        batches = []
        for b in loader:
            batches.append({k: np_(v) for k, v in b.items()})
            if len(batches) == 2:
                break
        runs.append(batches)
    for a, b in zip(*runs):
        assert a["img"].shape == (4, 3, 256, 256) and a["targets"].shape[1] == 6
        for k in a:
            np.testing.assert_array_equal(a[k], b[k])


def test_collate_concatenates_targets_with_batch_index(tiny):
    ds = V.DetectionDataset(tiny / "data.yaml", imgsz=64)
    samples = [ds[2], ds[0], ds[1]]
    b = V.detection_collate(samples)
    assert tuple(b["img"].shape) == (3, 3, 64, 64) and b["img"].dtype == adept.uint8
    want = np.concatenate([np.concatenate([np.full((s["cls"].shape[0], 1), k), np_(s["cls"]).reshape(-1, 1),
                                           np_(s["bboxes"]).reshape(-1, 4)], 1) for k, s in enumerate(samples)])
    np.testing.assert_array_equal(np_(b["targets"]), want)
    assert np_(b["index"]).tolist() == [2, 0, 1]
    assert tuple(b["ori_shape"].shape) == (3, 2) and tuple(b["ratio_pad"].shape) == (3, 3)
    empty = V.detection_collate([ds[2], ds[2]])
    assert tuple(empty["targets"].shape) == (0, 6)
    with pytest.raises(RuntimeError, match="sample 1"):
        V.detection_collate([ds[0], V.DetectionDataset(tiny / "data.yaml", imgsz=96)[0]])
    f = V.to_float_image(b["img"])
    assert f.dtype == adept.float32
    np.testing.assert_allclose(np_(f), np_(b["img"]) / 255.0, rtol=1e-6)


def test_malformed_labels_and_corrupt_images_are_skipped_and_counted(tiny):
    write(tiny / "labels/train/a.txt", "0 0.5 0.5 0.25 0.5\n1 0.5 0.5\n7 0.5 0.5 0.1 0.1\n0 0.5 nan 0.1 0.1\n"
          "0 0.5 0.5 0.25 0.5\n")
    (tiny / "images/train/broken.jpg").write_bytes(b"\xff\xd8\xff\xe0" + bytes(300))
    (tiny / "images/train/noise.png").write_bytes(os.urandom(2000))
    ds = V.DetectionDataset(tiny / "data.yaml")
    s = ds.summary
    assert (s["images"], s["corrupt"], s["bad_lines"], s["duplicates"], s["backgrounds"]) == (3, 2, 3, 1, 1)
    assert len(s["warnings"]) == 6
    for line in (2, 3, 4):
        assert sum(f"a.txt:{line}:" in w for w in s["warnings"]) == 1
    assert sum("broken.jpg" in w for w in s["warnings"]) == 1 and sum("noise.png" in w for w in s["warnings"]) == 1
    assert [Path(f).name for f in ds.im_files] == ["a.bmp", "b.bmp", "c.bmp"]
    assert ds.labels[0]["cls"].shape[0] == 1


def test_cache_is_reused_until_a_file_changes(tiny):
    first = V.DetectionDataset(tiny / "data.yaml")
    assert not first.summary["from_cache"]
    assert first.summary["cache_file"] == str(tiny / "labels" / "train.adept.cache")
    assert V.DetectionDataset(tiny / "data.yaml").summary["from_cache"]
    write(tiny / "labels/train/c.txt", "2 0.5 0.5 0.5 0.5\n")
    again = V.DetectionDataset(tiny / "data.yaml")
    assert not again.summary["from_cache"] and again.summary["backgrounds"] == 0


def test_read_only_folder_caches_in_xdg_cache_home(tiny, tmp_path_factory, monkeypatch):
    xdg = tmp_path_factory.mktemp("xdg")
    monkeypatch.setenv("XDG_CACHE_HOME", str(xdg))
    os.chmod(tiny / "labels", 0o555)
    try:
        ds = V.DetectionDataset(tiny / "data.yaml")
        assert ds.summary["cache_file"].startswith(str(xdg / "adept" / "labels"))
        assert not (tiny / "labels" / "train.adept.cache").exists()
        assert V.DetectionDataset(tiny / "data.yaml").summary["from_cache"]
    finally:
        os.chmod(tiny / "labels", 0o755)


def test_coco_json_is_converted(tmp_path):
    write_bmp(tmp_path / "images/val2017/p.bmp", 200, 100)
    write_bmp(tmp_path / "images/val2017/q.bmp", 50, 50)
    write(tmp_path / "annotations/instances_val2017.json", json.dumps({
        "images": [{"id": 1, "file_name": "p.bmp", "width": 200, "height": 100},
                   {"id": 2, "file_name": "q.bmp", "width": 50, "height": 50}],
        "categories": [{"id": 90, "name": "toothbrush"}, {"id": 1, "name": "person"}],
        "annotations": [{"id": 1, "image_id": 1, "category_id": 90, "bbox": [10, 20, 50, 40], "iscrowd": 0},
                        {"id": 2, "image_id": 1, "category_id": 1, "bbox": [0, 0, 200, 100], "iscrowd": 1}]}))
    write(tmp_path / "coco.yaml", "train: annotations/instances_val2017.json\nval: annotations/instances_val2017.json\n")
    cfg = V.load_dataset_config(tmp_path / "coco.yaml")
    assert cfg["names"] == ["person", "toothbrush"] and cfg["nc"] == 2
    assert cfg["val"] == [{"kind": "coco", "path": str(tmp_path / "annotations/instances_val2017.json"),
                           "images": str(tmp_path / "images/val2017")}]
    ds = V.DetectionDataset(tmp_path / "coco.yaml", "val", imgsz=64)
    assert len(ds) == 2
    np.testing.assert_array_equal(np_(ds.labels[0]["cls"]), [[1]])
    np.testing.assert_allclose(np_(ds.labels[0]["bboxes"]), [[35 / 200, 40 / 100, 50 / 200, 40 / 100]], rtol=1e-6)
    assert tuple(ds.labels[1]["bboxes"].shape) == (0, 4)


def test_config_variants_and_errors(tiny):
    write(tiny / "lists/train.txt", "../images/train/b.bmp\n../images/train/c.bmp\n")
    write(tiny / "sub/list.yaml", "path: ..\ntrain: lists/train.txt\nval: [images/train]\nnames: [cat, dog, bird]\n")
    cfg = V.load_dataset_config(tiny / "sub/list.yaml")
    assert cfg["path"] == str(tiny)
    assert cfg["train"] == [{"kind": "list", "path": str(tiny / "lists/train.txt")}]
    assert len(V.DetectionDataset(tiny / "sub/list.yaml", "train")) == 2
    write(tiny / "bad.yaml", "train: a\nnames: [x]\n")
    with pytest.raises(ValueError, match="'val'"):
        V.load_dataset_config(tiny / "bad.yaml")
    with pytest.raises(OSError):
        V.load_dataset_config(tiny / "missing.yaml")
    with pytest.raises(TypeError, match="mosaik"):
        V.DetectionDataset(tiny / "data.yaml", mosaik=0.5)
