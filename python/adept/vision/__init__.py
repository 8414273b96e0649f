"""Detection datasets (adept.vision): Ultralytics-style dataset YAMLs, YOLO txt and COCO JSON labels,
YOLO training augmentation and detection collation, over the C++ library adept_vision.

    ds = adept.vision.DetectionDataset("coco128", split="train", imgsz=640, augment=True, mosaic=1.0)
    loader = adept.data.DataLoader(ds, batch_size=16, shuffle=True, num_workers=2,
                                   collate_fn=adept.vision.detection_collate)
    batch = next(iter(loader))   # img (B, 3, 640, 640) uint8, targets (N, 6) float32
    images = adept.vision.to_float_image(batch["img"])

The built-in synthetic shapes dataset: ``adept.vision.ensure_synthetic_shapes()`` returns its data.yaml
(generated on first use).
"""
from adept._C._vision import DetectionDataset, detection_collate, load_dataset_config, to_float_image
from adept._C._vision import (default_synthetic_shapes_root, ensure_synthetic_shapes, synthetic_shapes_image,
                              synthetic_shapes_names)

__all__ = ["DetectionDataset", "detection_collate", "load_dataset_config", "to_float_image",
           "default_synthetic_shapes_root", "ensure_synthetic_shapes", "synthetic_shapes_image",
           "synthetic_shapes_names"]
