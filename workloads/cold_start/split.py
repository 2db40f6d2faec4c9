"""A cold start's stamps as the result's figures (torch-free): each phase's seconds, from the end of the one before.

The phases, in the order the child runs them (`workloads.cold_start.child`): the process started and torch imported
(from the parent's wall clock just before the start: the interpreter's own start is in it), the device's first
context, the weights read from storage into host memory, the model built and the weights moved onto the device, the
first compile or graph capture (when one is asked for, else N/A with the reason), and the first output (llm's first
token, finetune's first optimizer step's loss). The total runs from the start to the first output.
"""

from __future__ import annotations

from typing import Any

from workloads.cold_start.page_cache import ReadState
from workloads.cold_start.spawn import Stamps
from workloads.cold_start.words import compile_message

# (figure key, the stamp that ends the phase): each phase runs from the stamp before it that is present
PHASES = (
    ("cold_start_import_s", "imported"),
    ("cold_start_device_s", "device"),
    ("cold_start_read_s", "read"),
    ("cold_start_build_s", "built"),
    ("cold_start_compile_s", "compiled"),
    ("cold_start_first_token_s", "first"),
)
KEYS = ("cold_start_s", *(key for key, _ in PHASES), "cold_start_read_state", "cold_start_read_reason",
        "cold_start_read_how", "cold_start_read_resident", "cold_start_read_refused", "cold_start_read_bytes",
        "cold_start_compile_note", "cold_start_compile_how", "cold_start_compile_error")


def figures(stamps: Stamps, read: ReadState, read_bytes: int | None) -> dict[str, Any]:
    """Every cold start figure; a phase the child did not end is None (N/A), and so is the total then. The child's
    note says what its compile phase was (or why there was none)."""
    out: dict[str, Any] = {}
    how, error = stamps.notes.get("compile_how"), stamps.notes.get("compile_error")
    before = stamps.spawned
    for key, stamp in PHASES:
        at = stamps.at.get(stamp)
        out[key] = max(at - before, 0.0) if at is not None and before is not None else None
        if at is not None:
            before = at
        elif stamp != "compiled":   # a phase not ended: those after it cannot be timed from it
            before = None
    first = stamps.at.get("first")
    out = {"cold_start_s": first - stamps.spawned if first is not None else None, **out}
    # the reason in English, and its parts, so the report says it in either language (`table`)
    out.update(cold_start_read_state=read.state, cold_start_read_reason=read.reason, cold_start_read_how=read.how,
               cold_start_read_resident=read.resident, cold_start_read_bytes=read_bytes,
               # what the compile phase was, as a catalogue key and in English; None: the child never got there
               cold_start_compile_how=how, cold_start_compile_note=str(compile_message(how, error)) if how else None)
    # what was refused, and the compile's error, only where there was one: the RESULT line says every figure given
    out.update({k: v for k, v in (("cold_start_read_refused", read.refused), ("cold_start_compile_error", error)) if v})
    return out


def interpreter_s(stamps: Stamps) -> float | None:
    """The share of the import phase the interpreter took before the child's first line ran (its own imports)."""
    at = stamps.at.get("python")
    return at - stamps.spawned if at is not None else None
