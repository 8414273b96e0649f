"""Learning-rate schedulers with torch.optim.lr_scheduler's names, arguments and semantics (torch
1.13): StepLR, MultiStepLR, ConstantLR, LinearLR, ExponentialLR, CosineAnnealingLR, LambdaLR,
SequentialLR. They run in C++ (adept._C._optim); these subclasses add the ``optimizer`` attribute,
the optimizer type check and the ignored ``verbose`` argument.
"""
from .. import _C

_S = _C._optim

__all__ = ["LRScheduler", "LambdaLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR",
           "CosineAnnealingLR", "SequentialLR"]

LRScheduler = _S.LRScheduler
_LRScheduler = LRScheduler


def _scheduler(base):
    def __init__(self, optimizer, *args, verbose=False, **kwargs):
        if not isinstance(optimizer, _S.Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        base.__init__(self, optimizer, *args, **kwargs)
        self.optimizer = optimizer

    return type(base.__name__, (base,), {"__init__": __init__, "__doc__": base.__doc__, "__module__": __name__})


LambdaLR = _scheduler(_S.LambdaLR)
StepLR = _scheduler(_S.StepLR)
MultiStepLR = _scheduler(_S.MultiStepLR)
ConstantLR = _scheduler(_S.ConstantLR)
LinearLR = _scheduler(_S.LinearLR)
ExponentialLR = _scheduler(_S.ExponentialLR)
CosineAnnealingLR = _scheduler(_S.CosineAnnealingLR)
SequentialLR = _scheduler(_S.SequentialLR)
