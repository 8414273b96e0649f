"""adept.vision's built-in synthetic shapes dataset: ensure_synthetic_shapes returns a data.yaml that
DetectionDataset and the DataLoader read, labels agree with synthetic_shapes_image, a second call
reuses the folder, and the default root follows $ADEPT_DATASETS_DIR."""
import json
import os
from pathlib import Path

import numpy as np
import pytest

import adept
import adept.vision as V

SMALL = dict(train_images=24, val_images=8, imgsz=96)


def np_(t):
    return np.array(t.tolist())


def test_ensure_returns_a_loadable_yaml(tmp_path):
    root = tmp_path / "shapes"
    yaml = V.ensure_synthetic_shapes(root, **SMALL)
    assert yaml == str(root / "data.yaml") and Path(yaml).is_file()
    names = V.synthetic_shapes_names()
    assert 5 <= len(names) <= 8 and names[0] == "circle"
    cfg = V.load_dataset_config(yaml)
    assert cfg["names"] == names and cfg["path"] == str(root)
    ds = V.DetectionDataset(yaml, "train", imgsz=96)
    assert len(ds) == 24 and ds.names == names
    assert ds.summary["corrupt"] == 0 and ds.summary["bad_lines"] == 0 and ds.summary["boxes"] > 24
    assert len(V.DetectionDataset(yaml, "val", imgsz=96)) == 8
    # The files' labels are the boxes of synthetic_shapes_image, normalised.
    for i, entry in enumerate(ds.labels):
        assert Path(entry["im_file"]).name == f"{i:06d}.jpg"
        r = V.synthetic_shapes_image("train", i, **SMALL)
        h, w = entry["shape"]
        assert tuple(r["image"].shape) == (h, w, 3) and r["image"].dtype == adept.uint8
        b = np_(r["boxes"]).reshape(-1, 4)
        want = np.stack([(b[:, 0] + b[:, 2]) / 2 / w, (b[:, 1] + b[:, 3]) / 2 / h, (b[:, 2] - b[:, 0]) / w,
                         (b[:, 3] - b[:, 1]) / h], 1)
        np.testing.assert_allclose(np_(entry["bboxes"]).reshape(-1, 4), want, atol=1e-6)
        np.testing.assert_array_equal(np_(entry["cls"]).reshape(-1), np_(r["cls"]))
    loader = adept.data.DataLoader(V.DetectionDataset(yaml, "train", imgsz=96, augment=True), batch_size=8,
                                   shuffle=True, seed=0, collate_fn=V.detection_collate)
    batch = next(iter(loader))
    assert tuple(batch["img"].shape) == (8, 3, 96, 96) and batch["targets"].shape[1] == 6
    assert set(np_(batch["targets"])[:, 1].astype(int)) <= set(range(len(names)))


def test_second_call_reuses_the_folder_and_other_options_regenerate(tmp_path):
    root = tmp_path / "shapes"
    V.ensure_synthetic_shapes(str(root), **SMALL)
    marker = root / "marker"
    marker.write_text("kept")
    V.ensure_synthetic_shapes(root, **SMALL)
    assert marker.exists()
    V.ensure_synthetic_shapes(root, **dict(SMALL, seed=3))
    assert not marker.exists() and sorted(os.listdir(tmp_path)) == ["shapes"]
    marker.write_text("kept")
    V.ensure_synthetic_shapes(root, **dict(SMALL, seed=3, max_objects=2, min_size=0.3, max_size=0.3, clutter=0.0))
    assert not marker.exists()
    assert json.loads((root / "shapes.json").read_text())["options"]["max_objects"] == 2
    img = V.synthetic_shapes_image("train", 0, **dict(SMALL, max_objects=1))
    assert img["boxes"].shape[0] <= 1


def test_default_root_and_errors(tmp_path, monkeypatch):
    monkeypatch.setenv("ADEPT_DATASETS_DIR", str(tmp_path))
    assert V.default_synthetic_shapes_root() == str(tmp_path / "shapes-v2")
    assert V.ensure_synthetic_shapes(**SMALL) == str(tmp_path / "shapes-v2" / "data.yaml")
    with pytest.raises(ValueError, match="imgsz"):
        V.ensure_synthetic_shapes(tmp_path / "bad", imgsz=8)
    with pytest.raises(ValueError, match="split"):
        V.synthetic_shapes_image("test", 0)
    with pytest.raises(ValueError, match="unknown option 'max_object'"):
        V.ensure_synthetic_shapes(tmp_path / "bad", max_object=3)
    with pytest.raises(ValueError, match="min_size"):
        V.synthetic_shapes_image("train", 0, min_size=0.7, max_size=0.6)
