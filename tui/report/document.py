"""The report as a list of blocks, so report.md and report.html say the same thing."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence, Union


@dataclass
class Heading:
    level: int
    text: str


@dataclass
class Para:
    text: str  # inline markdown: `code` spans, **bold** and [links](url); everything else is text


@dataclass
class Bullets:
    items: Sequence[str]


@dataclass
class Table:
    headers: Sequence[str]
    rows: Sequence[Sequence[str]]


@dataclass
class Image:
    path: str  # relative to the report
    alt: str


@dataclass
class Code:
    text: str


Block = Union[Heading, Para, Bullets, Table, Image, Code]


def code(text: str) -> str:
    """``text`` as a markdown code span, whatever backticks it holds: fenced by one more backtick than its
    longest run, padded with a space where it starts or ends with one (CommonMark's rule)."""
    text = " ".join(str(text).split("\n"))
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"
