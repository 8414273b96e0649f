"""Model zoo: the YOLO11 detector (``yolo11``) as a C++-backed ``adept.nn.Module``, and ``summary``."""
from .. import _C

Yolo11 = _C._models.Yolo11
Yolo11.__module__ = "adept.models"
DetectionLoss = _C._models.DetectionLoss  # YOLO11 detection loss: loss, items = crit(maps, targets)
DetectionLoss.__module__ = "adept.models"
# Detection post-processing and COCO-style metrics (C++: include/adept/models/yolo/{nms,metrics}.h).
from .._C._models import non_max_suppression, box_iou, scale_boxes, DetectionMetrics  # noqa: E402,F401
# Ultralytics-style YOLO (train / val / predict over the C++ engine) as an nn.Module.
from .yolo import YOLO  # noqa: E402,F401


def yolo11(scale="n", nc=80):
    """YOLO11 at scale ``"n" | "s" | "m" | "l" | "x"`` for ``nc`` classes (randomly initialised).

    State-dict keys are Ultralytics' (``model.<i>.<submodule>...``). ``model(x)`` with ``x`` of shape
    (B, 3, H, W), H and W multiples of 32, returns the three raw maps in training mode and the
    decoded predictions (B, 4 + nc, A) in eval mode.
    """
    return Yolo11(scale, nc)


def summary(model, imgsz=640, verbose=True):
    """Per-layer parameters and conv GFLOPs of ``model`` at an ``imgsz`` x ``imgsz`` input.

    Returns a dict with ``layers`` (index, from, n, params, module, args, gflops), ``params``,
    ``gradients``, ``gflops``, ``imgsz`` and the printable ``table`` (printed when ``verbose``).
    """
    s = _C._models.summary(model, imgsz)
    if verbose:
        print(s["table"], end="")
    return s
