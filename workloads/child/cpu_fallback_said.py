"""What the CPU fallback check says once it has its :class:`~workloads.child.cpu_fallback_trace.Findings`: a
``cpu_fallback`` warning per op, its line in the log, and the result's figures. Torch-free, so the command workload
says a job's findings (read back from the file its launcher wrote, `workloads.command.fallback_check`) in the words
resnet50, finetune and llm use (`workloads.child.cpu_fallback`)."""

from __future__ import annotations

from typing import Any

from workloads.child.cpu_fallback_trace import Findings
from workloads.child.harness import Emitter, log
from workloads.facts.formatting import format_bytes, percent


def say(emitter: Emitter, where: str, found: Findings, watched: int) -> None:
    """A warning per fallen-back op on ``where`` (the device), then the check's line in the log."""
    for op in found.ops:
        share = percent(op.share_of_step)
        nbytes = f", {format_bytes(op.copy_bytes_per_step)}" if op.copy_bytes_per_step is not None else ""
        message = (f"{op.op} ran on the CPU, not on {where}: {op.calls_per_step:g} call(s) a step, {share} of "
                   f"the step time ({op.ms_per_step:.3g} ms), {op.copies_per_step:g} host<->device copies a step"
                   f"{nbytes}: {where} has no kernel for it with these inputs (PyTorch's CPU fallback ran it)")
        emitter.warning(message, code="cpu_fallback", op=op.op, calls_per_step=op.calls_per_step,
                        share_of_step=op.share_of_step)
    counted = "all, from the device's copy records" if found.copies_from_device else \
        "the fallen-back ops' own; the trace shows no device copy records"
    nbytes = format_bytes(found.copy_bytes_per_step) if found.copy_bytes_per_step is not None else "size unknown"
    log(f"CPU fallback check: {watched} step(s) profiled after the warm-up, then off; "
        f"{len(found.ops)} op(s) ran on the CPU; {found.copies_per_step:g} host<->device copies a step "
        f"({nbytes}; {counted})")


def figures(found: Findings | None, watched: int) -> dict[str, Any]:
    """The result's figures of the check (`workloads.cpu_fallback_record`); none where it did not run."""
    if found is None:
        return {}
    return {"cpu_fallback_ops": [op.row() for op in found.ops],
            "host_device_copies_per_step": found.copies_per_step,
            "host_device_copy_bytes_per_step": found.copy_bytes_per_step,
            "cpu_fallback_steps_watched": watched}
