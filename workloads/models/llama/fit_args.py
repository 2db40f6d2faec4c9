"""The plan's options, shared by llm's and finetune's ``--fit-only`` (torch-free): ``--card NAME`` (repeatable, from
rated.csv), ``--memory SIZE``, ``--price-per-hour``, and what they are read as, the plan's targets.

A card or a size is planned for before it is rented: the verdicts read its memory, never this host's, and auto's
dtype is bf16 (what a card would run), not the CPU's fp32. Without either, the plan is read against the memory this
device has free now (`workloads.child.device.free_bytes`, said as such).
"""

from __future__ import annotations

import argparse

from workloads.child.harness import positive_float
from workloads.facts.card import Card, UnknownCard, named_card
from workloads.facts.formatting import format_bytes
from workloads.facts.memory_size import memory_size
from workloads.models.llama.fit_plan import Target

PLANNED_DTYPE = "bf16"
ELEMENT_SIZE = {"fp32": 4, "fp16": 2, "bf16": 2}
# the start event's device for a plan of cards named: nothing was touched, and no torch imported
NO_DEVICE = "no device (a plan for the cards and sizes named)"   # "start llm on no device (...)"


def card_argument(text: str) -> Card:
    """argparse's type= for --card: the card, or the refusal with the close names."""
    try:
        return named_card(text)
    except UnknownCard as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def memory_argument(text: str) -> int:
    """argparse's type= for --memory: bytes."""
    try:
        return memory_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


# argparse's type= for --price-per-hour: a finite number above 0 (`cardbench fit` checks with it too; tui/ never
# imports workloads/child/)
price_argument = positive_float


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The plan's options, beside --fit-only."""
    p.add_argument("--card", dest="cards", action="append", type=card_argument, default=[], metavar="NAME",
                   help='with --fit-only: plan for a card of rated.csv (repeatable, side by side), e.g. --card '
                        '"Ascend 910B3"')
    p.add_argument("--memory", dest="memory", action="append", type=memory_argument, default=[], metavar="SIZE",
                   help="with --fit-only: plan for a card of this memory (repeatable), e.g. 32GB (GB read as GiB, "
                        "as cards are sold)")
    p.add_argument("--price-per-hour", dest="price_per_hour", type=price_argument, default=None, metavar="PRICE",
                   help="with --fit-only: a card's price an hour, for the cost per million tokens at the decode bound")
    p.add_argument("--currency", default="USD", help="currency of --price-per-hour (default USD)")


def named(args: argparse.Namespace) -> bool:
    """Whether the plan is for cards or a size named, not this device."""
    return bool(args.cards or args.memory)


def refusal(args: argparse.Namespace) -> str | None:
    """Why the plan's options cannot go with the run asked for (they plan; a measuring run measures this device)."""
    if (named(args) or args.price_per_hour is not None) and not args.fit_only:
        return "--card, --memory and --price-per-hour plan for a card before it is rented: they go with --fit-only"
    return None


def dtype_for(args: argparse.Namespace, picked: str) -> str:
    """The plan's dtype: auto is bf16 for a card or a size named, else what this device picked."""
    return PLANNED_DTYPE if named(args) and picked == "auto" else picked


def versions() -> dict[str, str]:
    """The start event's versions of a plan that imports no torch."""
    import platform

    return {"python": platform.python_version()}


def targets(args: argparse.Namespace, dtype: str, free: int | None, cpu: bool = False) -> list[Target]:
    """The cards and the size asked for, else this device's free memory now (none when it cannot be told; ``cpu``:
    the host's, where a training step leaves its own runtime)."""
    found = [card_target(card, dtype) for card in args.cards]
    found += [Target(format_bytes(size), "size", size) for size in args.memory]
    if not found and free:
        found.append(Target("", "free", free, cpu=cpu))
    return found


def card_target(card: Card, dtype: str) -> Target:
    """A card as the plan reads it: its memory, rated bandwidth and the rated peak of ``dtype``'s products."""
    peak = card.peak(dtype)
    return Target(card.name, "card", card.memory_bytes, card.bandwidth_gbps, peak.value if peak else None,
                  f"{peak.figure} {peak.source}" if peak else None, card.memory_source)
