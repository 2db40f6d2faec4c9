"""The CPU fallback check's flag, which resnet50, finetune and llm take (torch-free: parsed before torch is imported;
the check itself is `workloads.child.cpu_fallback`)."""

from __future__ import annotations

from typing import Any

WATCHED_STEPS = 3   # enough to tell an op called every step from one called once; few enough to cost little
MODES = ("auto", "on", "off")


def add_argument(parser: Any, what: str = "steps after the warm-up") -> None:
    parser.add_argument("--cpu-fallback-check", choices=MODES, default="auto",
                        help=f"profile {WATCHED_STEPS} {what} and name each op that ran on the CPU "
                             "while the model is on the card (default auto: on any device but the CPU)")


def wanted(mode: str, device_type: str) -> bool:
    """Whether the check runs: forced ``on``, or ``auto`` on any device but the CPU (where every op is a CPU op)."""
    return mode == "on" or (mode == "auto" and device_type != "cpu")
