"""Recording the aten calls a model dispatches, with the module that made each one.

:class:`Recorder` is a ``TorchDispatchMode``: below autograd, so it sees the
forward ops, the backward ops autograd runs and the optimizer's ops, each as an
overload (``aten.convolution.default``). Each call is kept as a JSON-able
description of its arguments (:func:`describe`): tensors by shape, dtype,
strides, storage offset and size, and the range of their values (so a replay
draws inputs the op meets in practice: a variance stays positive, an index stays
in range); small integer and boolean tensors by their values (indices, labels,
masks). Calls that differ only in values are one entry.

Which module made a call: forward pre-hooks and hooks keep a stack of module
paths, the innermost is the caller. For the backward, the hooks label the
autograd nodes each module's forward created (innermost first), and a backward
op is charged to the module whose node is running
(``torch._C._current_autograd_node``). Paths are ``source:path (Type)``, e.g.
``gpt2-train:h.0.ln_1 (LayerNorm)``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Iterator

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_map

EXACT_VALUES_MAX = 4096   # integer/boolean tensors up to this many elements are kept whole: indices, labels, masks
RANGE_SAMPLE = 65536     # elements read for a tensor's value range
MODULES_KEPT = 12         # caller paths kept per call (the rest counted)


def describe(value: Any) -> Any:
    """A JSON-able description of one argument, from which :mod:`workloads.opscan.replay` rebuilds one like it."""
    if isinstance(value, torch.Tensor):
        return _tensor(value)
    if isinstance(value, (list, tuple)):
        return {"list": [describe(v) for v in value]}
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"float": repr(value)}
    if isinstance(value, torch.dtype):
        return {"dtype": str(value).removeprefix("torch.")}
    if isinstance(value, torch.device):
        return {"device": value.type}
    if isinstance(value, torch.memory_format):
        return {"memory_format": str(value).removeprefix("torch.")}
    if isinstance(value, torch.layout):
        return {"layout": str(value).removeprefix("torch.")}
    return {"unsupported": type(value).__name__}


def _tensor(t: torch.Tensor) -> dict[str, Any]:
    out: dict[str, Any] = {"shape": list(t.shape), "dtype": str(t.dtype).removeprefix("torch."),
                           "stride": list(t.stride()), "offset": t.storage_offset(),
                           "storage": t.untyped_storage().nbytes() // max(t.element_size(), 1)}
    if t.numel() == 0 or t.is_complex():
        return out
    detached = t.detach()
    storage_numel = out["storage"]
    if not t.is_floating_point() and storage_numel <= EXACT_VALUES_MAX:
        # the whole storage, so a view (an expanded mask, a slice of labels) is rebuilt exactly
        base = torch.empty(0, dtype=t.dtype, device=t.device).set_(t.untyped_storage())
        out["values"] = base.cpu().tolist()
        return out
    flat = detached.reshape(-1)
    if flat.numel() > RANGE_SAMPLE:  # the range of a spread sample: a weight read whole on every op costs seconds
        flat = flat[::flat.numel() // RANGE_SAMPLE]
    if t.is_floating_point():
        flat = flat[torch.isfinite(flat)]
        if not flat.numel():
            return out
    lo, hi = torch.aminmax(flat.to(torch.float64 if t.is_floating_point() else torch.int64))
    out["range"] = [lo.item(), hi.item()]
    if t.is_floating_point():
        # real values crowd near their mean: drawn uniformly over [min, max] they would be far larger on the
        # whole, and overflow fp16 where the model does not
        out["spread"] = [flat.double().mean().item(), flat.double().std().item() if flat.numel() > 1 else 0.0]
    return out


def _key(op: str, args: Any) -> str:
    """Two calls are one entry when they differ only in the values of their tensors."""
    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in ("range", "spread")}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return json.dumps([op, strip(args)], sort_keys=True)


def _widen(into: Any, new: Any) -> None:
    """Grow the value ranges of an entry's tensors to cover another call's."""
    if isinstance(into, dict) and isinstance(new, dict):
        if "range" in into and "range" in new:
            into["range"] = [min(into["range"][0], new["range"][0]), max(into["range"][1], new["range"][1])]
        for k in into.keys() & new.keys():
            if k != "range":
                _widen(into[k], new[k])
    elif isinstance(into, list) and isinstance(new, list):
        for a, b in zip(into, new):
            _widen(a, b)


@dataclass
class Call:
    """One recorded overload with one argument layout: what the scan replays."""

    op: str                                 # aten.convolution.default
    args: list[Any]
    kwargs: dict[str, Any]
    phases: list[str]                       # forward, backward, optimizer: where it was seen
    source: str                             # which model (resnet50, gpt2-decode, ...)
    modules: list[str] = field(default_factory=list)
    more_modules: int = 0
    count: int = 1                          # how often it ran while recording

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Call":
        return cls(**data)

    @property
    def packet(self) -> str:
        """The op without its overload: aten.convolution."""
        return self.op.rsplit(".", 1)[0] if self.op.count(".") >= 2 else self.op

    @property
    def optimizer_only(self) -> bool:
        """Seen only in optimizer steps: mixed-precision training keeps those in fp32 (master weights)."""
        return self.phases == ["optimizer"]

    def add_phase(self, phase: str) -> None:
        if phase not in self.phases:
            self.phases.append(phase)

    def add_module(self, path: str) -> None:
        """Keep a caller's path: up to MODULES_KEPT, and past that every source and module type not kept yet
        (what ``--ops-from`` keeps in fp32 is the types, so none may be lost to the cap)."""
        if path in self.modules:
            return
        if len(self.modules) < MODULES_KEPT or _kind(path) not in {_kind(m) for m in self.modules}:
            self.modules.append(path)
        else:
            self.more_modules += 1


class Recorder(TorchDispatchMode):
    """Collects :class:`Call` entries while active; :meth:`watch` a model first to know who calls what."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: dict[str, Call] = {}
        self.source = ""
        self.phase = "forward"
        self._stack: list[str] = []
        self._inputs: list[set[Any]] = []     # the autograd nodes of each open module's inputs
        self._nodes: dict[Any, str] = {}
        self._handles: list[Any] = []

    # --- which module ---------------------------------------------------------------------------
    def watch(self, model: torch.nn.Module, source: str) -> None:
        self.source = source
        for name, module in model.named_modules():
            path = f"{source}:{name or '(model)'} ({type(module).__name__})"
            self._handles.append(module.register_forward_pre_hook(self._enter(path)))
            self._handles.append(module.register_forward_hook(self._leave(path)))

    def unwatch(self) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles.clear()

    def train_step(self, loss_of: Any, optimizer: Any) -> None:
        """A watched model's training step recorded: forward, backward, optimizer step, each as its phase; then
        the model unwatched. ``loss_of()`` runs the forward (under autocast where the source wants it)."""
        with self:
            self.phase = "forward"
            loss = loss_of()
            self.phase = "backward"
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            self.phase = "optimizer"
            optimizer.step()
        self.unwatch()

    def _enter(self, path: str) -> Any:
        def hook(module: Any, args: Any) -> None:
            self._stack.append(path)
            self._inputs.append({t.grad_fn for t in _tensors(args) if t.grad_fn is not None})
        return hook

    def _leave(self, path: str) -> Any:
        def hook(module: Any, args: Any, output: Any) -> None:
            if not (self._stack and self._stack[-1] == path):
                return
            self._stack.pop()
            inputs = self._inputs.pop()
            for t in _tensors(output):
                self._label(t.grad_fn, path, inputs)
        return hook

    def _label(self, node: Any, path: str, inputs: set[Any]) -> None:
        """Charge the autograd nodes this module's forward made: back from its outputs to its inputs' nodes,
        leaving those an inner module was charged with (its hook ran first)."""
        todo, seen = [node], set()
        while todo:
            node = todo.pop()
            if node is None or node in inputs or node in seen or type(node).__name__ == "AccumulateGrad":
                continue
            seen.add(node)
            self._nodes.setdefault(node, path)
            todo.extend(next_node for next_node, _ in node.next_functions)

    def _caller(self) -> str:
        if self.phase == "backward":
            node = torch._C._current_autograd_node()
            return self._nodes.get(node, f"{self.source}:(autograd)")
        if self.phase == "optimizer":
            return f"{self.source}:(optimizer)"
        return self._stack[-1] if self._stack else f"{self.source}:(model)"

    # --- the recording ---------------------------------------------------------------------------
    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if func.namespace == "profiler":  # the optimizer's record_function markers: no computation
            return out
        op = str(func)  # aten.convolution.default
        described_args = [describe(a) for a in args]
        described_kwargs = {k: describe(v) for k, v in kwargs.items()}
        key = _key(op, [self.source, described_args, described_kwargs])
        call = self.calls.get(key)
        if call is None:
            call = self.calls[key] = Call(op, described_args, described_kwargs, [self.phase], self.source)
        else:
            call.add_phase(self.phase)
            call.count += 1
            _widen(call.args, described_args)
            _widen(call.kwargs, described_kwargs)
        call.add_module(self._caller())
        return out


def _kind(path: str) -> tuple[str, str]:
    """(source, module type) of a caller's path ``gpt2-train:h.0.ln_1 (LayerNorm)``."""
    return path.split(":", 1)[0], path.rsplit(" (", 1)[-1]


def _tensors(value: Any) -> Iterator[torch.Tensor]:
    found: list[torch.Tensor] = []
    tree_map(lambda v: found.append(v) if isinstance(v, torch.Tensor) else None, value)
    return iter(found)


def merged(calls: list[Call]) -> list[Call]:
    """Calls from several sources, the same op and layout once (callers joined): the scan's work list."""
    out: dict[str, Call] = {}
    for call in calls:
        key = _key(call.op, [call.args, call.kwargs])
        if key not in out:
            out[key] = Call(call.op, call.args, call.kwargs, list(call.phases), call.source, list(call.modules),
                            call.more_modules, call.count)
            continue
        seen = out[key]
        seen.count += call.count
        _widen(seen.args, call.args)
        _widen(seen.kwargs, call.kwargs)
        for path in call.modules:
            seen.add_module(path)
        seen.more_modules += call.more_modules
        for phase in call.phases:
            seen.add_phase(phase)
    return list(out.values())
