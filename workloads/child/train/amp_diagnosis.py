"""Finding the layer that fails under mixed precision, and keeping it out of autocast.

On a new accelerator a step under autocast often dies with ``device kernel image
is invalid`` or ``... not implemented for 'BFloat16'``. :func:`diagnose` runs one
forward pass in FP32 and, from a pre-hook on each leaf module, replays that
module alone under autocast (forward and backward) on the input it just got, as
it came and cast to the autocast dtype (what it gets downstream of a cast); the
first module that raises there, and not without autocast, is the culprit. :func:`keep_in_fp32` then turns autocast
off for every module of the failing types, so the rest of the network keeps its
mixed precision.

:func:`inject_failures` makes chosen modules raise a device-like error under
autocast, so all of this is testable on a CPU (``CARDBENCH_INJECT_AMP_FAILURE``).
"""

from __future__ import annotations

import contextlib
import functools
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import torch
from torch import nn

from workloads.child import device as devices
from workloads.child.train.oom import is_out_of_memory
from workloads.errors import first_line

INJECT_ENV = "CARDBENCH_INJECT_AMP_FAILURE"
INJECTED_ERROR = "CUDA error: device kernel image is invalid"

_OP_IN_MESSAGE = re.compile(r"""["'](\w+)["'] not implemented for""")


def is_amp_device_error(exc: BaseException) -> bool:
    """A failure that running without autocast may cure: any RuntimeError from the device but out-of-memory.

    ``NotImplementedError`` (an op missing for Half/BFloat16) is a RuntimeError too.
    """
    return isinstance(exc, RuntimeError) and not is_out_of_memory(exc)


# --- the injected failure -------------------------------------------------------------------

def inject_failures(model: nn.Module, spec: str, device_type: str) -> list[str]:
    """Make the modules named in ``spec`` raise under autocast; return the names patched.

    ``spec`` is comma-separated module names (``layer1.0.conv2``) or class names (``Conv2d``).
    """
    wanted = {part.strip() for part in spec.split(",") if part.strip()}
    patched = []
    for name, module in model.named_modules():
        if name in wanted or type(module).__name__ in wanted:
            module.forward = _raising_under_autocast(module.forward, name, device_type)
            patched.append(name)
    return patched


def _raising_under_autocast(forward: Callable[..., Any], name: str, device_type: str) -> Callable[..., Any]:
    @functools.wraps(forward)
    def run(*args: Any, **kwargs: Any) -> Any:
        if torch.is_autocast_enabled(device_type):
            raise RuntimeError(
                f"{INJECTED_ERROR} (injected by {INJECT_ENV} in {name or 'the model'})\n"
                "CUDA kernel errors might be asynchronously reported at some other API call, "
                "so the stacktrace below might be incorrect.")
        return forward(*args, **kwargs)

    return run


# --- keeping some module types out of autocast ------------------------------------------------

def keep_in_fp32(model: nn.Module, type_names: Iterable[str], device_type: str) -> list[str]:
    """Run every module of the given class names with autocast off and FP32 inputs; return their names."""
    types = set(type_names)
    patched = []
    for name, module in model.named_modules():
        if type(module).__name__ in types:
            module.forward = _without_autocast(module.forward, device_type)
            patched.append(name)
    return patched


def _without_autocast(forward: Callable[..., Any], device_type: str) -> Callable[..., Any]:
    @functools.wraps(forward)
    def run(*args: Any, **kwargs: Any) -> Any:
        with torch.autocast(device_type, enabled=False):
            return forward(*(_as_fp32(a) for a in args), **kwargs)

    return run


def _as_fp32(value: Any) -> Any:
    if isinstance(value, torch.Tensor) and value.is_floating_point() and value.dtype != torch.float32:
        return value.float()
    return value


# --- the diagnosis -----------------------------------------------------------------------------

@dataclass
class LayerFailure:
    layer: str          # qualified module name, e.g. layer1.0.conv2
    module_type: str    # class name, e.g. Conv2d
    error: str          # first line of the error it raised
    aten_op: str | None = None  # the last operator dispatched before the error, when known

    def to_dict(self) -> dict[str, Any]:
        return {"layer": self.layer, "op": self.module_type, "error": self.error, "aten_op": self.aten_op}


@dataclass
class Diagnosis:
    layers_tested: int = 0
    failures: list[LayerFailure] = field(default_factory=list)
    fp32_error: str | None = None   # set when the FP32 pass itself failed

    @property
    def first(self) -> LayerFailure | None:
        return self.failures[0] if self.failures else None

    @property
    def failing_types(self) -> list[str]:
        return sorted({f.module_type for f in self.failures})


def leaf_modules(model: nn.Module) -> list[tuple[str, nn.Module]]:
    return [(name, m) for name, m in model.named_modules() if name and next(m.children(), None) is None]


def diagnose(model: nn.Module, sample: torch.Tensor, device: torch.device, dtype: torch.dtype) -> Diagnosis:
    """Replay each leaf module under autocast on its real input; report those that fail, in order."""
    result = Diagnosis()
    leaves = leaf_modules(model)
    result.layers_tested = len(leaves)
    replaying = False
    saved_buffers = {name: b.detach().clone() for name, b in model.named_buffers()}

    def make_hook(name: str) -> Callable[[nn.Module, tuple[Any, ...]], None]:
        def hook(module: nn.Module, args: tuple[Any, ...]) -> None:
            nonlocal replaying
            if replaying:
                return
            replaying = True
            try:
                failure = _replay_under_autocast(name, module, args, device, dtype)
            finally:
                replaying = False
            if failure is not None:
                result.failures.append(failure)

        return hook

    handles = [module.register_forward_pre_hook(make_hook(name)) for name, module in leaves]
    try:
        with torch.no_grad(), torch.autocast(device.type, enabled=False):
            model(sample)
        devices.synchronize(device)
    except RuntimeError as exc:
        if is_out_of_memory(exc):
            raise
        result.fp32_error = first_line(exc)
    finally:
        for handle in handles:
            handle.remove()
        with torch.no_grad():  # the replays ran batch norm in training mode: undo their statistics
            for name, buffer in model.named_buffers():
                buffer.copy_(saved_buffers[name])
    return result


def _replay_under_autocast(name: str, module: nn.Module, args: tuple[Any, ...], device: torch.device,
                           dtype: torch.dtype) -> LayerFailure | None:
    # the FP32 pass captured FP32 inputs; under autocast a module downstream of a cast gets them in
    # the low precision, and ops outside autocast's lists (batch norm, activations) run in it
    variants = [args]
    if any(isinstance(a, torch.Tensor) and a.is_floating_point() and a.dtype != dtype for a in args):
        variants.append(tuple(_as_dtype(a, dtype) for a in args))
    try:
        for inputs in variants:
            if _forward_backward(module, inputs, device, dtype):
                break  # autocast cast the inputs itself: the low-precision variant adds nothing
        return None
    except RuntimeError as exc:
        if is_out_of_memory(exc):
            raise
        error = exc
    finally:
        _drop_grads(module)
    try:  # a module that fails without autocast too is not what autocast broke
        _forward_backward(module, args, device, None)
    except RuntimeError:
        return None
    finally:
        _drop_grads(module)
    named = _OP_IN_MESSAGE.search(str(error))
    return LayerFailure(layer=name, module_type=type(module).__name__, error=first_line(error),
                        aten_op=named.group(1) if named else _last_op_before_failure(module, inputs, device, dtype))


def _drop_grads(module: nn.Module) -> None:
    for p in module.parameters():
        p.grad = None


def _last_op_before_failure(module: nn.Module, args: tuple[Any, ...], device: torch.device,
                            dtype: torch.dtype) -> str | None:
    """Replay the failing module once more, recording operators (slow, so only for the culprit)."""
    recorder = _last_op_recorder()
    try:
        _forward_backward(module, args, device, dtype, recorder)
    except RuntimeError:
        pass
    finally:
        _drop_grads(module)
    return getattr(recorder, "last", None)


def _forward_backward(module: nn.Module, args: tuple[Any, ...], device: torch.device, dtype: torch.dtype | None,
                      recorder: Any = None) -> bool:
    """Run forward and backward; True when an output came out in ``dtype`` (autocast cast the inputs)."""
    # the inputs are copies that are not autograd leaves, so in-place modules (ReLU(inplace=True)) can run
    inputs = tuple(a.detach().clone().requires_grad_().clone() if isinstance(a, torch.Tensor) and a.is_floating_point()
                   else a for a in args)
    autocast = torch.autocast(device.type, dtype=dtype) if dtype is not None else contextlib.nullcontext()
    with torch.enable_grad(), autocast, recorder or contextlib.nullcontext():
        out = module(*inputs)
        grads_from = [t for t in _tensors(out) if t.requires_grad]
        if grads_from:
            torch.autograd.backward([t.float().sum() for t in grads_from])
    devices.synchronize(device)
    return dtype is not None and any(t.dtype == dtype for t in _tensors(out))


def _as_dtype(value: Any, dtype: torch.dtype) -> Any:
    if isinstance(value, torch.Tensor) and value.is_floating_point():
        return value.to(dtype)
    return value


def _tensors(value: Any) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tensors(v)]
    return []


def _last_op_recorder() -> Any:
    """A dispatch mode remembering the last aten operator run; a no-op context where unsupported."""
    try:
        from torch.utils._python_dispatch import TorchDispatchMode
    except ImportError:  # pragma: no cover - private API moved
        return contextlib.nullcontext()

    class LastOp(TorchDispatchMode):
        last: str | None = None

        def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            self.last = str(func.overloadpacket.__name__)
            return func(*args, **(kwargs or {}))

    return LastOp()
