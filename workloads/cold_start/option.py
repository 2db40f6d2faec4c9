"""``--cold-start [cold|warm]``, the one option llm and finetune take for a cold start (argparse, torch-free)."""

from __future__ import annotations

import argparse


def add_argument(p: argparse.ArgumentParser, first: str, phase: str) -> None:
    """The option, its help naming the workload's ``first`` output ("token", "optimizer step's loss") and its last
    phase ("first token", "first step")."""
    p.add_argument("--cold-start", nargs="?", const="cold", choices=("cold", "warm"), default=None,
                   help=f"measure only the time from a fresh process to the first {first}, phase by phase (import, "
                        f"device, weights read, build, compile, {phase}); the weights' page cache is "
                        "dropped first, or with 'warm' read once before")
