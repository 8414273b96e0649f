"""torch.distributed's gloo group from the environment mpirun gives each process (OMPI_COMM_WORLD_RANK and
_SIZE), rendezvous on 127.0.0.1:$MASTER_PORT (one machine): the PyTorch side of bench/distributed/."""
import os

import torch.distributed as dist


def init_gloo():
    """Joins the gloo group of this mpirun job; returns (rank, world_size)."""
    rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", "0"))
    world = int(os.environ.get("OMPI_COMM_WORLD_SIZE", "1"))
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29531")
    dist.init_process_group("gloo", rank=rank, world_size=world)
    return rank, world
