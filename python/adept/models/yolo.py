"""``adept.models.YOLO``: Ultralytics' ``YOLO`` interface over the C++ YOLO11 engine.

    model = YOLO("yolo11n")                        # new model; or YOLO("runs/detect/train/weights/best.safetensors")
    model.train(epochs=3)                          # built-in shapes dataset; data="coco128.yaml" for your own
    metrics = model.val()                          # {"map50": ..., "map50_95": ..., "per_class": [...], ...}
    results = model.predict("bus.jpg", conf=0.3)   # [Results], boxes in original-image pixels
    path = model.export(format="onnx")             # best.onnx next to the checkpoint
    out = model(adept.rand(1, 3, 640, 640))        # a tensor: the Yolo11 forward (nn.Module)

Options are those of ``adept train | val | predict | export`` (include/adept/models/yolo/config.h; the list
is ``adept.models.yolo.option_specs()``): an unknown name or a bad value raises ValueError naming
the option before any work starts. ``model=`` is not accepted by the methods: the object's own
model runs (``YOLO(...)`` chooses it).
"""
from .. import nn
from .._C import Tensor, cat
from .._C._models import LoadedModel, Yolo11, check_options, load_model, option_specs
from .._C import _models as _engine

__all__ = ["YOLO", "Results", "Boxes", "option_specs", "check_options"]


def _own_model_only(method, options):
    """A YOLO object runs its own model: ValueError for the command's ``model=`` option."""
    if "model" in options:
        raise ValueError(f"YOLO.{method}: the 'model' option is not used here (this object's model runs); "
                         f"make another object with YOLO({options['model']!r}) instead")


class Boxes:
    """The detections of one image (Ultralytics' ``Boxes``).

    ``data``: (n, 6) float32 [x1, y1, x2, y2, conf, cls], confidence descending, in the pixels of
    the original image of shape ``orig_shape`` (h, w).
    """

    def __init__(self, data, orig_shape):
        self.data = data
        self.orig_shape = orig_shape

    @property
    def xyxy(self):
        """(n, 4) corners x1, y1, x2, y2 in pixels."""
        return self.data[:, :4]

    @property
    def conf(self):
        """(n,) confidences."""
        return self.data[:, 4]

    @property
    def cls(self):
        """(n,) class ids (float, as Ultralytics)."""
        return self.data[:, 5]

    @property
    def xywh(self):
        """(n, 4) centre x, centre y, width, height in pixels."""
        wh = self.data[:, 2:4] - self.data[:, 0:2]
        return cat([self.data[:, 0:2] + wh / 2, wh], 1)

    @property
    def shape(self):
        """(n, 6)."""
        return tuple(self.data.shape)

    def __len__(self):
        return self.data.shape[0]

    def __repr__(self):
        return f"Boxes({len(self)} detections, orig_shape={self.orig_shape})"


class Results:
    """What ``YOLO.predict`` found in one image (a small subset of Ultralytics' ``Results``).

    Attributes: ``path`` (the image file), ``orig_shape`` (h, w), ``boxes`` (Boxes), ``names``
    ({class id: name}), ``save_dir`` (the run folder holding predictions.json and, with
    ``save=True``, the drawn image).
    """

    def __init__(self, path, orig_shape, boxes, names, save_dir):
        self.path = path
        self.orig_shape = orig_shape
        self.boxes = Boxes(boxes, orig_shape)
        self.names = names
        self.save_dir = save_dir

    def __len__(self):
        return len(self.boxes)

    def __repr__(self):
        return f"Results(path={self.path!r}, orig_shape={self.orig_shape}, boxes={len(self.boxes)})"


class YOLO(nn.Module):
    """A YOLO11 detector with Ultralytics' ``YOLO`` methods, usable as an ``adept.nn.Module``.

    ``model``: a scale name (``"yolo11n"`` ... ``"yolo11x"``, ``"n"``, ``"yolo11s.yaml"``) for a new,
    randomly initialised model with ``nc`` classes (default 80; training on a dataset with another
    class count rebuilds the head), a checkpoint path (``.safetensors`` written by ``adept train``:
    its scale, class names and EMA weights; ``nc`` is ignored), or a ``Yolo11`` module to wrap.
    ValueError for a name that is neither a scale nor an existing file, IOError for an unreadable
    checkpoint.

    Attributes: ``model`` (the ``Yolo11`` submodule, so state-dict keys are ``"model."`` + its
    keys), ``names`` ({class id: name}), ``ckpt_path`` (the checkpoint it holds the weights of,
    or None), ``train_args`` (that checkpoint's training options, or None), ``metrics`` (the last
    ``val`` / ``train`` metrics, or None).
    """

    def __init__(self, model="yolo11n", nc=None):
        super().__init__()
        if isinstance(model, Yolo11):
            loaded = LoadedModel(model)
        else:
            loaded = load_model(model, 0 if nc is None else int(nc))
        self.metrics = None
        self._use(loaded)

    # ---- state ----
    def _use(self, loaded):
        self.model = loaded.model
        self._loaded = loaded

    def _engine_model(self):
        """The LoadedModel the engine runs: this object's current ``model`` with its names."""
        if self._loaded.model is not self.model:  # the user assigned another Yolo11
            self._loaded.model = self.model
        return self._loaded

    @property
    def names(self):
        """{class id: class name}."""
        return dict(enumerate(self._loaded.names))

    @property
    def ckpt_path(self):
        """The checkpoint file the weights came from (None for a new model)."""
        return self._loaded.checkpoint or None

    @property
    def train_args(self):
        """The options the checkpoint was trained with ({option: text}), None for a new model."""
        return self._loaded.train_config if self._loaded.checkpoint else None

    # ---- nn.Module ----
    def forward(self, x):
        """``self.model(x)``: x (B, 3, H, W) float, H and W multiples of 32. Training mode: the three
        raw head maps; eval mode: decoded predictions (B, 4 + nc, A)."""
        return self.model(x)

    def __call__(self, source=None, *args, **kwargs):
        """A Tensor runs ``forward`` (nn.Module); anything else (a path, a list of paths, None) runs
        ``predict(source, **kwargs)`` as Ultralytics' ``model(source)``."""
        if isinstance(source, Tensor):
            return super().__call__(source, *args, **kwargs)
        if args:
            raise TypeError("YOLO(source, **options): options are keywords")
        return self.predict(source, **kwargs)

    # ---- modes ----
    def train(self, mode=None, *, on_batch_end=None, stop_requested=None, **options):
        """Trains this model in place (``adept train`` with ``options``) and returns the run's result.

        ``options``: ``data`` (dataset YAML or folder; none: the built-in shapes dataset with its own
        defaults), ``epochs``, ``imgsz``, ``batch``, ``workers``, ``device``, ``project``, ``name``,
        ``resume`` (True or a last.safetensors path: continue that run with its options; the model
        is then the checkpoint's) ... Values may be bool, int, float, str, paths or lists.
        ``on_batch_end(epoch, batch, (box, cls, dfl))`` runs after every batch (0-based indices);
        ``stop_requested()`` is polled after every batch and stops the run as Ctrl-C does (which
        also works here): ``last`` then holds the state at that batch and ``resume`` continues it.

        Afterwards this object holds the EMA weights of the best checkpoint (else the last), its
        class names and ``ckpt_path``, and is in the training mode it had before.
        Returns {save_dir, last, best ("" if no epoch was validated), epochs, interrupted,
        early_stopped, best_val (the best epoch's ``val`` metrics, or None)}.

        ``train(True)`` / ``train(False)`` (a bool, no options) set the nn.Module training mode
        instead, so ``eval()`` works as for any module; ``train()`` with no argument trains.
        Errors: ValueError for an unknown option or a bad value (before any work), IOError for
        unreadable data; what a callback raises ends the run and propagates.
        """
        if mode is not None:
            if not isinstance(mode, bool) or options or on_batch_end is not None or stop_requested is not None:
                raise TypeError("YOLO.train(mode: bool) sets the module's training mode; "
                                "train(**options) trains (options are keywords)")
            return super().train(mode)
        _own_model_only("train", options)
        was_training = self.training
        result = _engine.train(options, self._engine_model(), on_batch_end, stop_requested)
        if result["best"] or result["last"]:
            self._adopt(result["best"] or result["last"])
        # else: a rank other than 0 of a data-parallel run (rank 0 writes the checkpoints); its model holds
        # the trained weights (the same on every rank), not the EMA that the checkpoints hold.
        super().train(was_training)
        self.metrics = result["best_val"]
        return result

    def _adopt(self, checkpoint):
        """Loads the EMA weights, names and options of `checkpoint` into this object (in place when
        the architecture matches, else by replacing ``model``)."""
        loaded = load_model(checkpoint)
        if loaded.model.scale == self.model.scale and loaded.model.nc == self.model.nc:
            self.model.load_state_dict(loaded.model.state_dict())
            loaded.model = self.model
        self._use(loaded)

    def val(self, **options):
        """Validates this model (``adept val``): ``data`` and ``imgsz`` default to the checkpoint's,
        ``split`` ("val"), ``batch``, ``conf`` (0.001), ``iou``, ``workers``, ``device`` ...

        With ``plots`` (default True) a run folder receives the curves and confusion matrices.

        Returns {map50, map50_95, map75, mp, mr, fitness, best_conf, images, instances, per_class:
        [{class, name, images, instances, precision, recall, ap50, ap50_95}], loss, seconds, table,
        save_dir}
        (COCO-style AP as pycocotools computes it). ValueError for bad options or a dataset whose
        class count differs from the model's.
        """
        _own_model_only("val", options)
        self.metrics = _engine.val(options, self._engine_model())
        return self.metrics

    def predict(self, source=None, **options):
        """Detects objects in ``source`` (an image, a folder, a .txt list, or a list of these; None:
        images of the built-in dataset) with ``conf`` (0.25), ``iou``, ``imgsz`` (the checkpoint's),
        ``max_det``, ``classes`` ... Writes predictions.json into a new run folder and, with
        ``save=True`` (default False, as Ultralytics' Python API), the images with boxes drawn.

        Returns one ``Results`` per image, in order. Errors: IOError for a missing or unreadable
        image, ValueError for bad options.
        """
        _own_model_only("predict", options)
        if source is not None:
            options["source"] = source
        options.setdefault("save", False)
        save_dir, images = _engine.predict(options, self._engine_model())
        names = self.names
        return [Results(im["path"], (im["height"], im["width"]), im["boxes"], names, save_dir) for im in images]

    def export(self, **options):
        """Writes this model as an ONNX file (``adept export``) and returns its path, as Ultralytics'
        ``YOLO(...).export(format="onnx")``.

        ``options``: ``format`` ("onnx", the only one), ``imgsz`` (one integer, a multiple of 32: the
        input is square; default: the checkpoint's training size, else 640), ``batch`` (1), ``dynamic`` (False: symbolic batch, height and
        width when True), ``opset`` (17; 11 to 21). The graph computes this model's evaluation-mode
        forward: input ``images`` float32 (batch, 3, imgsz, imgsz), output ``output0`` (batch, 4 + nc,
        anchors): boxes cx, cy, w, h in input pixels, then the sigmoid class scores; BatchNorm folded
        into the convolutions; metadata (names, stride, imgsz, task ...) as Ultralytics writes it. The
        file goes next to the checkpoint with the suffix ``.onnx`` (a new model: ``yolo11<scale>.onnx``
        in the working directory). ``adept.onnx.load`` and onnxruntime run it.

        Errors: ValueError for an unknown option (pointing to ``adept export --help``), a format other
        than onnx, an unsupported opset or a size that is not a multiple of 32;
        ``adept.onnx.UnsupportedError`` naming a module the exporter does not know (e.g. a replaced
        activation); IOError when the file cannot be written.
        """
        _own_model_only("export", options)
        return _engine.export(options, self._engine_model())
