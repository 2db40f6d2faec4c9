"""The report as a list of blocks, so report.md and report.html say the same thing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence, Union

from workloads.facts.formatting import code  # noqa: F401 - the report's blocks and their users quote with it


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


