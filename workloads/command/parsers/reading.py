"""What a parser makes of one line of the job's output."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

TRAIN, EVAL, SUMMARY = "train", "eval", "summary"
# a progress bar or log whose name says it is not training: its counts are not the run's steps
EVAL_WORDS = re.compile(r"valid|eval|test|sanity|predict", re.IGNORECASE)


@dataclass(frozen=True)
class Reading:
    """Figures a tool printed on one line, as it printed them.

    ``count`` is what the line says is done in its pass (tqdm's n, a logged batch index + 1),
    ``bar`` names the progress it belongs to (two bars of one tool are told apart by it),
    ``rate`` is in ``unit`` and ``rate_as`` says which rate the tool printed; ``values`` are all the
    figures the line names, ``asked`` those of the user's `--metric`s. ``kind``:
    training progress, an evaluation (never a step) or the tool's closing summary.
    """

    source: str
    kind: str = TRAIN
    count: int | None = None
    total: int | None = None
    epoch: int | None = None
    loss: float | None = None
    rate: float | None = None
    unit: str | None = None
    rate_as: str | None = None
    bar: str | None = None
    remaining_s: float | None = None  # the time left the tool itself printed for this pass (tqdm's `<01:13`)
    values: Mapping[str, float] = field(default_factory=dict)
    asked: Mapping[str, float] = field(default_factory=dict)  # the figures of the user's `--metric`s on this line


def to_number(value: Any) -> float | None:
    """A printed figure as a float: numbers, and numbers written as strings ('0.414', '1e-05'); else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip().replace(",", ""))
        except ValueError:
            return None
    return None


def batch_line(line: str, train: re.Pattern, test: re.Pattern, source: str,
               build: Callable[[re.Match, str], Reading]) -> Reading | None:
    """A script that logs every Nth batch (timm, torchvision): its evaluation lines, else its training ones."""
    if test.match(line):
        return Reading(source=source, kind=EVAL)
    m = train.match(line)
    return build(m, line) if m else None
