"""Optimizers with torch.optim's names and arguments (SGD, Adam, AdamW), the LR schedulers
(adept.optim.lr_scheduler) and ModelEMA (Ultralytics' weight EMA).

The updates run in C++ (adept._C._optim). ``param_groups`` is a live view: ``g["lr"] = 0.1`` on
one of its dicts changes the optimizer's group (and what LR schedulers set shows up in it).
"""
from collections.abc import MutableMapping

from .. import _C
from ..grad_mode import enable_grad
from . import lr_scheduler  # noqa: F401

ModelEMA = _C._optim.ModelEMA

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "ModelEMA", "lr_scheduler"]


class _RequiredParameter:
    """Marks an argument without default (SGD's lr), as torch.optim.optimizer.required."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


class _ParamGroup(MutableMapping):
    """One entry of ``optimizer.param_groups``: a dict-like view of the C++ group (reads and writes
    go to the optimizer)."""

    __slots__ = ("_opt", "_index")

    def __init__(self, opt, index):
        self._opt = opt
        self._index = index

    def __getitem__(self, key):
        if not isinstance(key, str):
            raise KeyError(key)
        return self._opt._group_get(self._index, key)

    def __setitem__(self, key, value):
        if not isinstance(key, str):
            raise TypeError(f"param group keys must be strings, got {type(key).__name__}")
        self._opt._group_set(self._index, key, value)

    def __delitem__(self, key):
        if not isinstance(key, str):
            raise KeyError(key)
        self._opt._group_del(self._index, key)

    def __iter__(self):
        return iter(self._opt._group_keys(self._index))

    def __len__(self):
        return len(self._opt._group_keys(self._index))

    def __repr__(self):
        return repr(dict(self))


class _StateView:
    """``optimizer.state[p]``: the state dict of parameter ``p`` (tensors shared with the optimizer)."""

    __slots__ = ("_opt",)

    def __init__(self, opt):
        self._opt = opt

    def __getitem__(self, param):
        return self._opt._param_state(param)


def _groups_of(params):
    """[(list of tensors, options dict), ...] from an iterable of tensors or of param-group dicts."""
    if isinstance(params, _C.Tensor):
        raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                        f"but got {type(params).__name__}")
    params = list(params)
    if len(params) == 0:
        raise ValueError("optimizer got an empty parameter list")
    if not isinstance(params[0], dict):
        params = [{"params": params}]
    return [_group_of(g) for g in params]


def _group_of(group):
    if not isinstance(group, dict):
        raise TypeError(f"param group must be a dict, got {type(group).__name__}")
    if "params" not in group:
        raise ValueError("param group must have a 'params' entry")
    p = group["params"]
    if isinstance(p, _C.Tensor):
        p = [p]
    elif isinstance(p, set):
        raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                        "tensors in sets will change between runs. Please use a list instead.")
    else:
        p = list(p)
    return p, {k: v for k, v in group.items() if k != "params"}


class Optimizer:
    """Python behaviour shared by the optimizers (torch.optim.Optimizer's methods); the state and the
    update live in the C++ base ``adept._C._optim.Optimizer``."""

    _required = ()

    def _check_required(self, groups, **values):
        for name, value in values.items():
            if value is required and any(name not in opts for _, opts in groups):
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
        self._required = tuple(n for n, v in values.items() if v is required)

    @property
    def param_groups(self):
        return [_ParamGroup(self, i) for i in range(self._num_groups())]

    @property
    def state(self):
        return _StateView(self)

    def add_param_group(self, param_group):
        params, options = _group_of(param_group)
        for name in self._required:
            if name not in options:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
        self._add_param_group(params, options)

    def step(self, closure=None):
        """One update of every param that has a grad; ``closure`` (re-evaluates the loss, called with
        grad enabled) is run first and its loss returned."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        self._step()
        return loss

    def state_dict(self):
        """``{"state": {index: {name: tensor}}, "param_groups": [{options..., "params": [index...]}]}``
        (torch's layout; tensors are shared with the optimizer)."""
        return self._state_dict()

    def load_state_dict(self, state_dict):
        """Restores options and (copied) state; ValueError when groups or their sizes differ."""
        self._load_state_dict(state_dict)

    def __repr__(self):
        lines = [type(self).__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(k for k in group if k != "params"):
                lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)


class SGD(Optimizer, _C._optim.SGD):
    """torch.optim.SGD: momentum, dampening, Nesterov, L2 weight_decay, maximize (see adept/optim/sgd.h)."""

    def __init__(self, params, lr=required, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False):
        groups = _groups_of(params)
        self._check_required(groups, lr=lr)
        _C._optim.SGD.__init__(self, groups, 0.0 if lr is required else float(lr), float(momentum),
                               float(dampening), float(weight_decay), bool(nesterov), bool(maximize))


class Adam(Optimizer, _C._optim.Adam):
    """torch.optim.Adam: L2 weight_decay, amsgrad, maximize (see adept/optim/adam.h)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=False):
        _C._optim.Adam.__init__(self, _groups_of(params), float(lr), tuple(float(b) for b in betas), float(eps),
                                float(weight_decay), bool(amsgrad), bool(maximize))


class AdamW(Optimizer, _C._optim.AdamW):
    """torch.optim.AdamW: Adam with decoupled weight decay p *= 1 - lr * weight_decay (default 1e-2)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=False):
        _C._optim.AdamW.__init__(self, _groups_of(params), float(lr), tuple(float(b) for b in betas), float(eps),
                                 float(weight_decay), bool(amsgrad), bool(maximize))
