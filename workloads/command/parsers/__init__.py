"""One module per tool whose log lines cardbench reads; :func:`read` asks them all.

The tools' own formats come first (a Lightning line is also a tqdm bar), plain tqdm last; a line that
holds two (a Trainer dict printed onto a bar's redraw) gives the first's figures at the bar's count.
The user's `--metric` figures are read from every line and win over a tool's.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

from workloads.command.parsers import custom, hf_trainer, lightning, timm, torchvision_ref, tqdm
from workloads.command.parsers.reading import TRAIN, Reading
from workloads.safe_text import printable

PARSERS: tuple[Callable[[str], Reading | None], ...] = (
    lightning.parse, hf_trainer.parse, timm.parse, torchvision_ref.parse, tqdm.parse,
)


def read(line: str, metrics: tuple[custom.Metric, ...] = ()) -> Reading | None:
    """What the line says, or None when no parser understands it."""
    text = printable(line)   # colours, cursor moves (tqdm's nested bars move up with ESC[A) are not what it says
    readings = [r for r in (parse(text) for parse in PARSERS) if r is not None]
    found = readings[0] if readings else None
    if found is not None and found.kind == TRAIN and found.bar is None:
        # a Trainer dict glued to a bar's redraw: the dict's figures at the bar's count
        bar = next((r for r in readings[1:] if r.kind == TRAIN and r.bar is not None), None)
        if bar is not None:
            found = replace(found, count=bar.count, total=bar.total, epoch=bar.epoch, rate=bar.rate, unit=bar.unit,
                            rate_as=bar.rate_as, bar=bar.bar)
    mine = custom.parse(text, metrics) if metrics else None
    if mine is None:
        return found
    if found is None:
        return mine
    return _merge(found, mine)


def _merge(found: Reading, mine: Reading) -> Reading:
    """A tool's reading with the user's figures on top: a `--metric` names what the user wants counted."""
    changes: dict = {"values": {**found.values, **mine.values}, "asked": mine.asked}
    for name in ("count", "epoch", "loss"):
        if getattr(mine, name) is not None:
            changes[name] = getattr(mine, name)
    if mine.rate is not None:
        changes.update(rate=mine.rate, unit=mine.unit, rate_as=mine.rate_as)
    if mine.count is not None and found.bar is None:
        changes["bar"] = mine.bar
    return replace(found, **changes)
