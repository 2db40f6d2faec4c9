"""A cold start's reasons said in either language from the result's figures (torch-free, and free of the child's
modules, so the report's table reads them): why the read was cold or warm, what the compile phase was."""

from __future__ import annotations

from typing import Any

from workloads.catalogue import CATALOGUE, Message, message
from workloads.facts.formatting import percent
from workloads.facts.missing import NA


def reason_message(how: Any, resident: Any, refused: str = "") -> Message | str:
    """Why the read is cold or warm (`page_cache.ReadState`'s how, resident share and refusal); a key no catalogue
    has (a run of another version) is said as written."""
    key = f"workload.cold_start.how.{how}"
    return message(key, resident=percent(resident), refused=refused or NA) if key in CATALOGUE else str(how or NA)


def state_message(state: Any) -> Message | str:
    """The read's state (cold or warm) in either language; any other (a run of another version) as written."""
    key = f"workload.cold_start.state.{state}"
    return Message(key) if key in CATALOGUE else str(state or NA)


def compile_message(how: Any, error: Any = None) -> Message | str:
    """What the compile phase was (the child's ``compile_how``), in either language; a key no catalogue has is said
    as written."""
    key = f"workload.cold_start.compile.{how}"
    return message(key, error=str(error or NA)) if key in CATALOGUE else str(how or NA)
