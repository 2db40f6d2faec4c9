"""How a training step runs, and what it falls back to when it cannot: autocast, the gradient scaler, torch.compile.

When a step under autocast raises a device error, the run diagnoses it (see
:mod:`workloads.child.train.amp_diagnosis`), emits a ``fallback`` event naming the first
failing layer and its type, and carries on with autocast off for the failing
module types where that works, else in FP32. A ``--compile`` model that fails
its first step is dropped for the eager one, also with a ``fallback`` event.

What ``--compile`` compiles (:meth:`Precision.compile_asked`): ``model``, ``torch.compile`` of what a step calls
(ResNet-50's), or ``block``, the regional compile of PyTorch's recipe: each repeated block
(:meth:`Precision.regions`) compiled in place by ``nn.Module.compile``, so dynamo compiles one block's code and
reuses it for the others, and the state_dict keeps its names. Undone by clearing each block's
``_compiled_call_impl``, the attribute ``nn.Module.compile`` sets and ``Module._wrapped_call_impl`` reads.

The step itself is a supervised one (``criterion(model(inputs), targets)``, then one optimiser step); a
workload whose step differs (the fine-tune's causal LM over micro-batches) overrides
:meth:`Precision._forward_backward` and keeps the rest.

Environment variables for testing without the hardware that fails:
``CARDBENCH_INJECT_AMP_FAILURE=layer1.0.conv2`` (module names or class names,
comma-separated) makes those modules raise a device error under autocast;
``CARDBENCH_INJECT_OOM_BATCH=N`` makes any step with more than N samples raise
out-of-memory (:mod:`workloads.child.train.oom`).
"""

from __future__ import annotations

import contextlib
from typing import Any, Protocol

import torch

from workloads.child import device as devices
from workloads.child.harness import Emitter, WorkloadError, log
from workloads.child.train import amp_diagnosis, oom
from workloads.errors import first_line
from workloads.hints import hint_for


# what a fallback calls the compile it drops, by --compile's value
COMPILE_WORDS = {"model": "torch.compile", "block": "the regional torch.compile (each block compiled in place)"}


def compile_in_place(blocks: Any) -> None:
    """Each block compiled in place (``nn.Module.compile``): its call goes through the compiled code, its parameters
    and state_dict keys stay where they were."""
    for block in blocks:
        block.compile()


def uncompile_in_place(blocks: Any) -> None:
    """What :func:`compile_in_place` did, undone: each block called eager again."""
    for block in blocks:
        block._compiled_call_impl = None


class TrainingSetup(Protocol):
    """What :class:`Precision` reads of a workload's built run (ResNet-50's and the fine-tune's ``Setup``)."""

    args: Any            # .amp ('off', 'bf16', 'fp16'), .compile, and optionally .fp32_from_scan
    device: Any
    model: Any           # the module diagnosed and patched
    trained: Any         # what a step calls: the model, or its data-parallel wrapper
    criterion: Any
    optimizer: Any
    scaler: Any
    oom_above: int | None
    is_main: bool
    emitter: Emitter


class Precision:
    """The way steps run on a built :class:`TrainingSetup`, and every fallback taken so far."""

    samples = "images"   # what a batch holds, in an injected out-of-memory's message

    def __init__(self, setup: TrainingSetup):
        args = setup.args
        self.setup = setup
        self.amp_dtype = devices.autocast_dtype(args.amp)
        self.requested = "fp32" if args.amp == "off" else args.amp
        self.scaler_on = setup.scaler.is_enabled()
        self.fp32_types: list[str] = list(getattr(args, "fp32_from_scan", None) or [])  # --ops-from's, at the start
        self.diagnosed = False
        self.fallbacks: list[dict[str, Any]] = []
        self.compile_scope = self.compile_asked()   # what is compiled now: a failed compile leaves "off"
        self.compile_checked = self.compile_scope == "off"
        self.stepped: Any = setup.trained
        if self.compile_scope == "model":
            self.stepped = torch.compile(setup.trained)
        elif self.compile_scope == "block":
            compile_in_place(self.regions())
        self._refuse_unsupported_autocast()

    def compile_asked(self) -> str:
        """What ``--compile`` asks for: "model" (``torch.compile`` of what a step calls) or "off"; a workload with
        repeated blocks (the fine-tune's) may also say "block"."""
        return "model" if self.setup.args.compile else "off"

    def regions(self) -> list[Any]:
        """The repeated blocks a regional compile ("block") compiles in place; none here."""
        return []

    def _refuse_unsupported_autocast(self) -> None:
        """FP32 from the start, said as a fallback, where the device table says the device has no autocast in the
        dtype asked for: torch.autocast would only warn and run fp32 while the figures said bf16."""
        refusal = devices.autocast_refusal(self.setup.device, self.amp_dtype)
        if refusal is None:
            return
        self.amp_dtype = None
        self.scaler_on = False
        self._note_fallback(0, refusal, "continuing in FP32 (autocast off)")

    @property
    def label(self) -> str:
        """The precision steps run in now, which a fallback may have changed from the one asked for."""
        if self.amp_dtype is None:
            return "fp32"
        if self.fp32_types:
            return f"{self.requested} (fp32: {', '.join(self.fp32_types)})"
        return self.requested

    @property
    def compiled(self) -> bool:
        return self.compile_scope != "off"

    def _eager(self) -> str:
        """The compile undone (the whole model's wrapper dropped, or each block's compiled call cleared); what was
        dropped, in words, or "" where nothing was compiled."""
        words = COMPILE_WORDS.get(self.compile_scope, "")
        if self.compile_scope == "block":
            uncompile_in_place(self.regions())
        self.stepped = self.setup.trained
        self.compile_scope = "off"
        return words

    def _autocast(self) -> Any:
        if self.amp_dtype is None:
            return contextlib.nullcontext()
        return torch.autocast(devices.autocast_type(self.setup.device), dtype=self.amp_dtype)

    def _forward_backward(self, inputs: Any, targets: Any) -> Any:
        s = self.setup
        oom.raise_if_injected(int(inputs.shape[0]), s.oom_above, self.samples)
        with self._autocast():
            loss = s.criterion(self.stepped(inputs), targets)
        s.optimizer.zero_grad(set_to_none=True)
        if self.scaler_on:
            s.scaler.scale(loss).backward()
            s.scaler.step(s.optimizer)
            s.scaler.update()
        else:
            loss.backward()
            s.optimizer.step()
        return loss

    def train_step(self, inputs: Any, targets: Any, step: int) -> tuple[Any, bool]:
        """One step, numbered ``step`` in a fallback; returns (loss, whether it fell back to another way of running)."""
        try:
            loss = self._forward_backward(inputs, targets)
            self.compile_checked = True
            return loss, False
        except Exception as exc:  # noqa: BLE001 - sorted below: compile, autocast, or a real failure
            if oom.is_out_of_memory(exc):
                raise
            if not self.compile_checked:
                return self._drop_compile(exc, inputs, targets, step), True
            if self.amp_dtype is None or not amp_diagnosis.is_amp_device_error(exc):
                raise
            error = first_line(exc)
        return self._fall_back(error, inputs, targets, step), True

    def _drop_compile(self, exc: BaseException, inputs: Any, targets: Any, step: int) -> Any:
        self.compile_checked = True
        words = self._eager()
        self._note_fallback(step, first_line(exc), f"{words} failed: continuing with the eager model")
        loss, _ = self.train_step(inputs, targets, step)
        return loss

    def _fall_back(self, error: str, inputs: Any, targets: Any, step: int) -> Any:
        s = self.setup
        if s.is_main:
            log(f"step under {self.label} autocast failed: {error}")
        dropped = self._eager()  # the diagnosis and the patches work on the eager model
        eager = f"; {dropped} dropped for the eager model" if dropped else ""
        first: amp_diagnosis.LayerFailure | None = None
        diagnosis: amp_diagnosis.Diagnosis | None = None
        reason = ""
        if not self.diagnosed:
            self.diagnosed = True
            if s.is_main:
                log("diagnosing: replaying each layer alone under autocast")
            diagnosis = amp_diagnosis.diagnose(s.model, inputs[:2], s.device, self.amp_dtype)
            if diagnosis.fp32_error:
                raise WorkloadError(f"the step fails without autocast too: {diagnosis.fp32_error}",
                                    hint=hint_for(diagnosis.fp32_error), bad_input=False)
            first = diagnosis.first
            if diagnosis.failing_types:
                types = diagnosis.failing_types
                amp_diagnosis.keep_in_fp32(s.model, types, s.device.type)
                try:
                    loss = self._forward_backward(inputs, targets)
                except RuntimeError as exc:
                    if not amp_diagnosis.is_amp_device_error(exc):
                        raise
                    reason = f"; autocast off for {', '.join(types)} was not enough: {first_line(exc)}"
                else:
                    self.fp32_types = sorted(set(self.fp32_types) | set(types))
                    self._note_fallback(step, error, f"autocast off for {', '.join(types)}; "
                                                     f"the rest stays in {self.requested}{eager}",
                                        first, diagnosis)
                    return loss
            else:
                reason = "; no single layer fails alone under autocast"
        else:
            reason = "; autocast failed again after the first fallback"
        self.amp_dtype = None
        self.scaler_on = False
        self.fp32_types = []
        loss = self._forward_backward(inputs, targets)
        self._note_fallback(step, error, f"continuing in FP32 (autocast off){reason}{eager}", first, diagnosis)
        return loss

    def _note_fallback(self, step: int, error: str, action: str, first: Any = None, diagnosis: Any = None) -> None:
        record: dict[str, Any] = {"step": step, "error": error, "action": action,
                                  "layer": first.layer if first else None, "op": first.module_type if first else None}
        extra: dict[str, Any] = {}
        if first is not None:
            extra["aten_op"] = first.aten_op
        if diagnosis is not None:
            extra["failing_layers"] = [f.layer for f in diagnosis.failures][:20]
            extra["layers_tested"] = diagnosis.layers_tested
        self.fallbacks.append({**record, **extra})
        if self.setup.is_main:
            where = f" at {record['layer']} ({record['op']})" if first else ""
            log(f"FALLBACK{where}: {action}")
        self.setup.emitter.fallback(error, action, layer=record["layer"], op=record["op"],
                                    step=record["step"], **extra)
