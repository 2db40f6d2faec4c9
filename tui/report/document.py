"""The report as a list of blocks, so report.md and report.html say the same thing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence, Union


@dataclass
class Heading:
    level: int
    text: str


@dataclass
class Para:
    text: str  # `code` spans are kept; nothing else is markup


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
