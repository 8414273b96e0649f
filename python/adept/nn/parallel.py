"""``adept.nn.parallel``: DistributedDataParallel over adept.distributed's process group (torch's names)."""
import contextlib

from .modules import Module

__all__ = ["DistributedDataParallel"]


def _tensors_in(obj, out):
    # The tensors of a forward's output (nested tuples, lists and dicts), whose backward DDP arms for.
    from .. import _C
    if isinstance(obj, _C.Tensor):
        out.append(obj)
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            _tensors_in(o, out)
    elif isinstance(obj, dict):
        for o in obj.values():
            _tensors_in(o, out)
    return out


class DistributedDataParallel(Module):
    """Data-parallel training of ``module`` over the default process group (torch.nn.parallel's DDP).

    At construction rank 0's parameters and buffers are broadcast to every rank. Each training forward
    (grad mode on, train or eval mode) arms the next backward, which averages the gradients across ranks in buckets of about
    ``bucket_cap_mb`` MiB (reverse registration order, a 1 MiB first bucket), each bucket's all-reduce
    starting as soon as its gradients are accumulated so communication overlaps backward.
    ``broadcast_buffers`` copies rank 0's buffers (BatchNorm statistics) before each forward with grad mode on.
    ``find_unused_parameters`` tolerates parameters the forward did not use (found by walking the
    autograd graph from the outputs); without it such a parameter is an error at the end of backward.
    ``no_sync()`` accumulates gradients locally. State dict keys start with ``module.``.
    ``device_ids``, ``output_device``, ``gradient_as_bucket_view`` and ``static_graph`` are accepted for
    torch compatibility: every rank's module already lives on its device, and gradients are copied.
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False):
        super().__init__()
        from .. import distributed as dist
        if process_group is not None:
            raise ValueError("DistributedDataParallel: only the default process group is supported")
        if not dist.is_initialized():
            raise ValueError("DistributedDataParallel: Default process group has not been initialized, please "
                             "make sure to call init_process_group.")
        if not any(p.requires_grad for p in module.parameters()):
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        cap = 25 if bucket_cap_mb is None else bucket_cap_mb
        if cap <= 0:
            raise ValueError(f"DistributedDataParallel: bucket_cap_mb must be positive, got {cap}")
        self.module = module
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.reducer = dist._lib().Reducer(list(module.named_parameters()), int(cap * 1024 * 1024),
                                           min(int(cap * 1024 * 1024), 1024 * 1024), bool(find_unused_parameters))
        dist._lib().broadcast_coalesced(list(module.parameters()) + list(module.buffers()), 0)

    @property
    def require_backward_grad_sync(self):
        return self.reducer.require_sync

    def forward(self, *inputs, **kwargs):
        from .. import distributed as dist
        from .._C import is_grad_enabled
        grad = is_grad_enabled()
        if grad and self.broadcast_buffers and dist.get_world_size() > 1:
            buffers = list(self.module.buffers())
            if buffers:
                dist._lib().broadcast_coalesced(buffers, 0)
        out = self.module(*inputs, **kwargs)
        if grad:  # as torch: also in eval mode (fine-tuning with frozen BatchNorm)
            self.reducer.prepare_for_backward(_tensors_in(out, []))
        return out

    @contextlib.contextmanager
    def no_sync(self):
        """Within this context backwards accumulate gradients locally; the first backward after it
        averages the accumulated gradients."""
        previous = self.reducer.require_sync
        self.reducer.require_sync = False
        try:
            yield
        finally:
            self.reducer.require_sync = previous
