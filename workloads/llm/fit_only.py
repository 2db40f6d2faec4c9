"""llm's fit: the plan (`workloads.models.llama.fit_plan`) for this run's first cell, against the cards and sizes
asked for or this device's free memory; all a ``--fit-only`` run gives, and every run's log (torch-free).

``--card NAME`` (repeatable, rated.csv) and ``--memory SIZE`` name what to plan for before it is rented: the
verdicts are read against their memory, never this host's, and auto's dtype is bf16 (what a card would run), not
the CPU's fp32. Without either, the plan is read against the memory this device has free now.
"""

from __future__ import annotations

import argparse
from typing import Any

from workloads.child.harness import log, positive_float
from workloads.facts.card import Card, UnknownCard, named_card
from workloads.facts.formatting import format_bytes
from workloads.facts.memory_size import memory_size
from workloads.facts.text_table import text_lines
from workloads.llm.plan import Plan
from workloads.models.llama import fit_plan, fit_table
from workloads.models.llama.fit_plan import Ask, Target

PLANNED_DTYPE = "bf16"


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


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The plan's options, beside --fit-only."""
    p.add_argument("--card", dest="cards", action="append", type=card_argument, default=[], metavar="NAME",
                   help='plan for a card of rated.csv (repeatable, side by side), e.g. --card "Ascend 910B3"')
    p.add_argument("--memory", type=memory_argument, default=None, metavar="SIZE",
                   help="plan for a card of this memory, e.g. 32GB (GB read as GiB, as cards are sold)")
    p.add_argument("--price-per-hour", dest="price_per_hour", type=positive_float, default=None, metavar="PRICE",
                   help="a card's price an hour: the plan's cost per million tokens at the decode bound")
    p.add_argument("--currency", default="USD", help="currency of --price-per-hour (default USD)")


def named(args: argparse.Namespace) -> bool:
    return bool(args.cards or args.memory)


def dtype_for(args: argparse.Namespace, picked: str) -> str:
    """The plan's dtype: auto is bf16 for a card named before it is rented, else what this device picked."""
    return PLANNED_DTYPE if named(args) and args.dtype == "auto" else picked


def targets(args: argparse.Namespace, free: int | None) -> list[Target]:
    """The cards and the size asked for, else this device's free memory now (none when it cannot be told)."""
    found = [card_target(card, dtype_for(args, args.dtype)) for card in args.cards]
    if args.memory:
        found.append(Target(format_bytes(args.memory), "size", args.memory))
    if not found and free:
        found.append(Target("", "free", free))
    return found


def card_target(card: Card, dtype: str) -> Target:
    peak = card.peak(dtype)
    return Target(card.name, "card", card.memory_bytes, card.bandwidth_gbps, peak.value if peak else None,
                  f"{peak.figure} {peak.source}" if peak else None, card.memory_source)


def figures(args: argparse.Namespace, plan: Plan, dtype: str, element_size: int, free: int | None) -> dict[str, Any]:
    """The result's fit figures at the first cell, and (against free memory) llm's largest batch and context."""
    first = plan.cells[0]
    ask = Ask(plan.config, plan.model, dtype, element_size, first.batch, first.context, first.input_len)
    found = targets(args, free)
    out = fit_plan.plan(ask, found, args.price_per_hour, args.currency if args.price_per_hour else None)
    out.update(free_bytes=free, largest_batch=None, largest_context=None)
    if found:
        inference = out["fit"][0]["targets"][0]
        out.update(largest_batch=inference["largest_batch"], largest_context=out["fit_targets"][0]["longest_context"])
    return out


def log_table(metrics: dict[str, Any]) -> None:
    for line in text_lines(*fit_table.report_table(metrics)):
        log(line)
