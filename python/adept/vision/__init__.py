"""Detection datasets (adept.vision): Ultralytics-style dataset YAMLs, YOLO txt and COCO JSON labels,
YOLO training augmentation and detection collation, over the C++ library adept_vision.

    ds = adept.vision.DetectionDataset("coco128", split="train", imgsz=640, augment=True, mosaic=1.0)
    loader = adept.data.DataLoader(ds, batch_size=16, shuffle=True, num_workers=2,
                                   collate_fn=adept.vision.detection_collate)
    batch = next(iter(loader))   # img (B, 3, 640, 640) uint8, targets (N, 6) float32
    images = adept.vision.to_float_image(batch["img"])
"""
from adept._C._vision import DetectionDataset, detection_collate, load_dataset_config, to_float_image

__all__ = ["DetectionDataset", "detection_collate", "load_dataset_config", "to_float_image"]
