"""PyTorch's boxed CPU fallback, done in Python for chosen ops, so a CPU-only machine records the trace a card
that lacks them would (tests/fixtures/cpu_fallback/*.source says what it does and does not prove).

``at::native::cpu_fallback`` (aten/src/ATen/native/CPUFallback.cpp, the fallback torch_npu, torch_musa, MPS under
PYTORCH_ENABLE_MPS_FALLBACK and PrivateUse1 backends register) copies the op's tensor arguments to the CPU with
``at::_to_cpu``, runs the op's CPU kernel and moves each output back with ``tensor.to(device)``. This mode does the
same for the ops it is given, from inside the op's own profiler event (a dispatch mode runs under the dispatcher's
record of the op). On the CPU the way back is ``to(device, copy=True)``: a real cross-device ``to`` copies
(``aten::_to_copy`` -> ``aten::copy_``), where a CPU-to-CPU ``to`` would return its input and record no copy."""
from __future__ import annotations

import torch
from torch.utils._python_dispatch import TorchDispatchMode


class CpuFallback(TorchDispatchMode):
    def __init__(self, ops):
        super().__init__()
        self.ops = set(ops)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func not in self.ops:
            return func(*args, **kwargs)
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        on_cpu = iter(torch._to_cpu(tensors))
        cpu_args = [next(on_cpu) if isinstance(a, torch.Tensor) else a for a in args]
        out = func(*cpu_args, **kwargs)
        return out.to(tensors[0].device, copy=True)


GELU_OPS = (torch.ops.aten.gelu.default, torch.ops.aten.gelu_backward.default)


def small_model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU(), torch.nn.LayerNorm(64),
                               torch.nn.Linear(64, 8))


def train_step(model: torch.nn.Module, optimizer: torch.optim.Optimizer, fall_back: bool) -> None:
    """One step of the small model on a batch of 16: forward, backward, SGD; GELU on the CPU with ``fall_back``."""
    x = torch.randn(16, 32)
    with CpuFallback(GELU_OPS) if fall_back else _nothing():
        loss = model(x).square().mean()
        loss.backward()
    optimizer.step()
    optimizer.zero_grad()


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
