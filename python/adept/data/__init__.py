"""Datasets, samplers and the DataLoader (torch.utils.data)."""
from adept._C._data import sample_seed

from .collate import default_collate, default_convert
from .dataloader import DataLoader, WorkerInfo, get_worker_info
from .dataset import (ChainDataset, ConcatDataset, CppDataset, Dataset, IterableDataset, Subset, TensorDataset,
                      random_split)
from .sampler import (BatchSampler, DistributedSampler, RandomSampler, Sampler, SequentialSampler,
                      SubsetRandomSampler, WeightedRandomSampler)

__all__ = ["DataLoader", "Dataset", "IterableDataset", "ChainDataset", "CppDataset", "TensorDataset", "Subset", "ConcatDataset", "Sampler",
           "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "BatchSampler", "DistributedSampler",
           "WeightedRandomSampler", "random_split", "default_collate", "default_convert", "get_worker_info", "WorkerInfo", "sample_seed"]
