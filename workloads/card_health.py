"""Is a card in order, as its own management tool says? The one rule the device pane, the doctor and the soak read.

The vendor tools print a word for each card's state (npu-smi's Health "OK" / "Warning" / "Alarm" / "Critical",
mx-smi's "Available" / "Not Available(reason)"; "Operational" and "Normal" are in order too, where a tool says so).
A card whose tool reads more memory in use than the card has (Moore Threads' IOMMU fault) is not in order either,
whatever its word.
Torch-free and UI-free: plain strings and numbers.
"""

from __future__ import annotations

# the states printed for a card in working order
HEALTHY_STATES = frozenset({"ok", "available", "operational", "normal"})
# the states that mean the card cannot be trusted with a run (npu-smi's two worst levels)
FAILING_STATES = frozenset({"alarm", "critical"})
WARN, FAIL = "warn", "fail"


def over_total(used: int | float | None, total: int | float | None) -> bool:
    return used is not None and bool(total) and used > (total or 0)


def health_level(health: str | None, used: int | float | None = None, total: int | float | None = None) -> str | None:
    """"fail", "warn" (any state but one in order, a state no table here knows included, or memory over total),
    or None: in order, or nothing said."""
    if isinstance(health, str):
        word = health.strip().lower()
        if word in FAILING_STATES:
            return FAIL
        if word not in HEALTHY_STATES:
            return WARN
    return WARN if over_total(used, total) else None
