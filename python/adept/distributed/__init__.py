"""Process groups over Open MPI, with torch.distributed's names.

Start the processes with ``mpirun -np N python3 script.py``; ``init_process_group("mpi")`` reads the rank
and world size from MPI. One communication thread per process makes every MPI call, so collectives
started with ``async_op=True`` progress while the caller computes. GPU tensors are staged through host
memory (a device-to-host copy before the collective, host-to-device in ``wait()``). A collective that
does not finish within ``timeout`` prints which collective and which ranks never arrived, then aborts the
whole job (MPI_Abort); an exception that escapes the script on one rank aborts the job too, so the other
ranks never wait for it.

The ``group`` arguments accept only ``None`` (the default group of all ranks).
"""
import atexit
import datetime
import sys

__all__ = [
    "ReduceOp", "Work", "is_available", "is_mpi_available", "is_initialized", "init_process_group",
    "destroy_process_group", "get_rank", "get_world_size", "get_node_local_rank", "all_reduce", "broadcast",
    "all_gather", "all_gather_into_tensor", "reduce_scatter", "reduce_scatter_tensor", "barrier",
    "DistributedSampler", "DistributedDataParallel", "SyncBatchNorm",
]

from .. import _C

_D = _C._distributed

from ..utils.data import DistributedSampler  # noqa: E402,F401


def is_available():
    """True when Adept's process groups can run here (its Open MPI plugin, libadept_mpi.so, loads)."""
    return _D.is_mpi_available()


is_mpi_available = is_available


def _lib():
    return _D


ReduceOp = _D.ReduceOp
Work = _D.Work


def _check_group(group, op):
    if group is not None:
        raise ValueError(f"{op}: only the default process group (group=None) is supported")


_previous_excepthook = None


def _abort_on_uncaught(exc_type, exc, tb):
    # Print the traceback as usual, then end every rank: the others may be waiting in a collective
    # for this one, and would otherwise wait until their timeout.
    (_previous_excepthook or sys.__excepthook__)(exc_type, exc, tb)
    if is_initialized():
        what = f"{exc_type.__name__}: {exc}" if str(exc) else exc_type.__name__
        _D.abort(1, f"adept.distributed: rank {get_rank()} raised {what}; aborting the job")


def _destroy_at_exit():
    if is_initialized():
        destroy_process_group()


def init_process_group(backend="mpi", init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    """Initialises MPI and the default process group of all ``mpirun`` ranks.

    ``backend`` must be ``"mpi"`` (None means mpi). Rank and world size come from MPI: ``world_size`` and
    ``rank``, when given, must match them. ``timeout`` (a ``datetime.timedelta``, default 30 minutes)
    bounds every collective. Raises ValueError when called twice, for another backend or a mismatched
    rank, and RuntimeError when Open MPI cannot start.
    """
    global _previous_excepthook
    if backend is None:
        backend = "mpi"
    if init_method is not None or store is not None:
        raise ValueError("init_process_group: the mpi backend takes its ranks from mpirun; "
                         "init_method and store are not supported")
    if timeout is None:
        timeout = datetime.timedelta(minutes=30)
    if not isinstance(timeout, datetime.timedelta):
        raise TypeError(f"init_process_group: timeout must be a datetime.timedelta, got {type(timeout).__name__}")
    _lib().init_process_group(str(backend).lower(), timeout)
    for name, given, actual in (("world_size", world_size, get_world_size()), ("rank", rank, get_rank())):
        if given not in (-1, None) and given != actual:
            raise ValueError(f"init_process_group: {name}={given} but mpirun started this process with "
                             f"{name} {actual}")
    if _previous_excepthook is None:
        _previous_excepthook = sys.excepthook
        sys.excepthook = _abort_on_uncaught
        atexit.register(_destroy_at_exit)


def is_initialized():
    """True between init_process_group and destroy_process_group."""
    return _D.is_initialized()


def destroy_process_group(group=None):
    """Finishes queued collectives and finalises MPI. Every rank must call it; MPI cannot start again."""
    _check_group(group, "destroy_process_group")
    _D.destroy_process_group()


def get_rank(group=None):
    """This process's rank (ValueError before init_process_group)."""
    _check_group(group, "get_rank")
    return _lib().get_rank()


def get_world_size(group=None):
    """Number of processes in the default group (ValueError before init_process_group)."""
    _check_group(group, "get_world_size")
    return _lib().get_world_size()


def get_node_local_rank(fallback_rank=None):
    """This process's rank among those on its node (Open MPI's OMPI_COMM_WORLD_LOCAL_RANK)."""
    if not is_initialized():
        import os
        env = os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", os.environ.get("LOCAL_RANK"))
        if env is not None:
            return int(env)
        if fallback_rank is not None:
            return int(fallback_rank)
        raise RuntimeError("get_node_local_rank: no process group, OMPI_COMM_WORLD_LOCAL_RANK or LOCAL_RANK, "
                           "and no fallback_rank")
    return _D.get_node_local_rank()


def all_reduce(tensor, op=None, group=None, async_op=False):
    """Reduces ``tensor`` across ranks with ``op`` (default SUM), in place. float16/bfloat16 reduce in
    float32; AVG needs a floating-point tensor. Returns a Work with ``async_op``, else None."""
    _check_group(group, "all_reduce")
    return _lib().all_reduce(tensor, ReduceOp.SUM if op is None else op, bool(async_op))


def broadcast(tensor, src, group=None, async_op=False):
    """Copies rank ``src``'s ``tensor`` into ``tensor`` on every rank."""
    _check_group(group, "broadcast")
    return _lib().broadcast(tensor, int(src), bool(async_op))


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Fills ``tensor_list[r]`` with rank r's ``tensor`` (world_size tensors of its shape and dtype)."""
    _check_group(group, "all_gather")
    return _lib().all_gather(list(tensor_list), tensor, bool(async_op))


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Stacks every rank's ``input_tensor`` along dim 0 into ``output_tensor`` (world_size times its elements)."""
    _check_group(group, "all_gather_into_tensor")
    return _lib().all_gather_into_tensor(output_tensor, input_tensor, bool(async_op))


def reduce_scatter(output, input_list, op=None, group=None, async_op=False):
    """Reduces ``input_list[r]`` of every rank into ``output`` of rank r."""
    _check_group(group, "reduce_scatter")
    return _lib().reduce_scatter(output, list(input_list), ReduceOp.SUM if op is None else op, bool(async_op))


def reduce_scatter_tensor(output, input, op=None, group=None, async_op=False):
    """reduce_scatter over the world_size equal chunks of ``input``'s dim 0."""
    _check_group(group, "reduce_scatter_tensor")
    return _lib().reduce_scatter_tensor(output, input, ReduceOp.SUM if op is None else op, bool(async_op))


def barrier(group=None, async_op=False, device_ids=None):
    """Returns once every rank has reached the barrier (a Work with ``async_op``)."""
    _check_group(group, "barrier")
    return _lib().barrier(bool(async_op))


def __getattr__(name):
    # DistributedDataParallel and SyncBatchNorm live in adept.nn.parallel / adept.nn; reachable here too.
    if name == "DistributedDataParallel":
        from ..nn.parallel import DistributedDataParallel
        return DistributedDataParallel
    if name == "SyncBatchNorm":
        from ..nn import SyncBatchNorm
        return SyncBatchNorm
    raise AttributeError(f"module 'adept.distributed' has no attribute '{name}'")
