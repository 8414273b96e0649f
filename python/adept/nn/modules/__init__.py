"""The layer classes of ``adept.nn`` (torch.nn's names and constructor keywords), bound from C++.

``Module`` is the C++ ``adept::nn::Module`` with a trampoline: Python subclasses override
``forward`` / ``extra_repr`` and are called by C++ containers; attribute assignment registers
parameters, buffers and child modules as in torch.
"""
from ... import _C

_nn = _C._nn

Module = _nn.Module
Parameter = _nn.Parameter
Sequential = _nn.Sequential
ModuleList = _nn.ModuleList
ModuleDict = _nn.ModuleDict

Identity = _nn.Identity
Linear = _nn.Linear
Flatten = _nn.Flatten
Dropout = _nn.Dropout

ReLU = _nn.ReLU
SiLU = _nn.SiLU
Sigmoid = _nn.Sigmoid
Tanh = _nn.Tanh
GELU = _nn.GELU
LeakyReLU = _nn.LeakyReLU
Hardswish = _nn.Hardswish
LogSigmoid = _nn.LogSigmoid
Hardshrink = _nn.Hardshrink
Softmax = _nn.Softmax
LogSoftmax = _nn.LogSoftmax
ELU = _nn.ELU
Mish = _nn.Mish
Hardsigmoid = _nn.Hardsigmoid
Hardtanh = _nn.Hardtanh
ReLU6 = _nn.ReLU6
Softplus = _nn.Softplus

Conv2d = _nn.Conv2d
ConvTranspose2d = _nn.ConvTranspose2d

MaxPool2d = _nn.MaxPool2d
AvgPool2d = _nn.AvgPool2d
AdaptiveAvgPool2d = _nn.AdaptiveAvgPool2d
MaxUnpool2d = _nn.MaxUnpool2d
Upsample = _nn.Upsample

BatchNorm1d = _nn.BatchNorm1d
BatchNorm2d = _nn.BatchNorm2d
SyncBatchNorm = _C._distributed.SyncBatchNorm
SyncBatchNorm.convert_sync_batchnorm = staticmethod(_C._distributed.convert_sync_batchnorm)
LayerNorm = _nn.LayerNorm
GroupNorm = _nn.GroupNorm

BCEWithLogitsLoss = _nn.BCEWithLogitsLoss
BCELoss = _nn.BCELoss
CrossEntropyLoss = _nn.CrossEntropyLoss
NLLLoss = _nn.NLLLoss
MSELoss = _nn.MSELoss
L1Loss = _nn.L1Loss
SmoothL1Loss = _nn.SmoothL1Loss

for _cls in (Module, Parameter, Sequential, ModuleList, ModuleDict, Identity, Linear, Flatten, Dropout, ReLU, SiLU,
             Sigmoid, Tanh, GELU, LeakyReLU, Hardswish, LogSigmoid, Hardshrink, Softmax, LogSoftmax, ELU, Mish,
             Hardsigmoid, Hardtanh, ReLU6, Softplus, Conv2d,
             ConvTranspose2d, MaxPool2d,
             AvgPool2d, AdaptiveAvgPool2d, MaxUnpool2d, Upsample, BatchNorm1d, BatchNorm2d, LayerNorm, GroupNorm,
             BCEWithLogitsLoss, BCELoss, CrossEntropyLoss, NLLLoss, MSELoss, L1Loss, SmoothL1Loss):
    _cls.__module__ = "adept.nn"
del _cls

__all__ = [name for name in dir() if not name.startswith("_")]
