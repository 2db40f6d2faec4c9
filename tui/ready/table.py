"""The readiness said: the table (question, measured, rated or bound, ratio, verdict) and one verdict line per
question, in English or Chinese, as terminal lines and as the report's blocks. Only reads a `Readiness`."""

from __future__ import annotations

from typing import Any

from tui.i18n.voice import quoted
from tui.ready.readiness import Readiness
from tui.ready.rows import Row
from tui.report.document import Block, Bullets, Heading, Para, Table
from workloads.catalogue import say, say_or
from workloads.facts.formatting import format_bytes, format_duration, format_number, percent, rate
from workloads.facts.missing import NA
from workloads.facts.text_table import text_lines


def value(figure: float | None, unit: str, lang: str = "en") -> str:
    """A row's figure in its unit: bytes as bytes, seconds as a duration, a share as a percentage."""
    if figure is None:
        return NA
    if unit == "B":
        return format_bytes(figure)
    if unit == "B/s":
        return f"{format_bytes(figure)}/s"
    if unit == "s":
        return format_duration(figure, lang)
    if unit == "fraction":
        return percent(figure, 0)
    return rate(figure, unit)


def verdict(text: str, lang: str) -> str:
    return say_or(f"verdict.{text}", lang, text) if lang == "zh" else text


def question(row: Row, lang: str) -> str:
    return say(f"ready.q.{row.question}", lang)


def _columns(lang: str, against: bool) -> list[str]:
    keys = ("col.question", "col.here", "col.reference", "col.vs_reference", "col.verdict") if against else \
        ("col.question", "col.measured", "col.bound", "col.ratio", "col.verdict")
    return [say(f"ready.{k}", lang) for k in keys]


def ratio_text(ratio: float | None) -> str:
    """A share as a percentage; one of ten times or more (the data read against the fine-tune's need) as 'N x'; one
    above zero that rounds to '0 %' (a loss 1e-8 off against a bound of 1e-3) as '< 1 %', never read as none."""
    if ratio is None:
        return NA
    if 0 < ratio < 0.005:
        return f"< {percent(0.01, 0)}"
    return percent(ratio, 0) if ratio < 10 else f"{format_number(ratio, 3)}x"


def measured(row: Row, lang: str) -> str:
    """The measured column's cell: the figure, marked where it is an estimate (the fit's plan), never read as a
    measurement."""
    figure = value(row.measured, row.unit, lang)
    return say("ready.estimate", lang, value=figure) if row.estimate and row.measured is not None else figure


def _cells(row: Row, lang: str) -> list[str]:
    return [question(row, lang), measured(row, lang), value(row.bound, row.unit, lang),
            ratio_text(row.ratio), verdict(row.verdict, lang)]


def heading(r: Readiness, lang: str) -> str:
    return say("ready.heading", lang, model=quoted(r.model), dtype=quoted(r.dtype), device=quoted(r.device or NA),
               wall=format_duration(r.wall_s, lang), budget=format_duration(r.budget_s, lang))


def verdict_lines(rows: tuple[Row, ...], lang: str) -> list[str]:
    """'PASS  Does it fit...: evidence', one per question."""
    return [say("ready.verdict_line", lang, verdict=verdict(r.verdict, lang), question=question(r, lang),
                evidence=r.said(lang)) for r in rows]


def terminal_lines(r: Readiness, lang: str = "en") -> list[str]:
    """The table, the verdict lines, and with a reference its table and lines, for the terminal."""
    out = text_lines(heading(r, lang), _columns(lang, False), [_cells(row, lang) for row in r.rows])
    out += verdict_lines(r.rows, lang)
    if r.against:
        out += [""] + text_lines(_against_heading(r, lang), _columns(lang, True),
                                 [_cells(row, lang) for row in r.against])
        out += verdict_lines(r.against, lang)
    return out


def _against_heading(r: Readiness, lang: str) -> str:
    ref: dict[str, Any] = dict(r.reference)
    return say("ready.against_heading", lang, device=quoted(ref.get("device") or NA), where=quoted(ref.get("where") or NA))


def blocks(r: Readiness, lang: str) -> list[Block]:
    """The report's readiness section: the table, then the verdict lines (and the reference's, with one)."""
    out: list[Block] = [Heading(2, say("ready.section", lang)), Para(heading(r, lang)),
                        Table(_columns(lang, False), [_cells(row, lang) for row in r.rows]),
                        Bullets(verdict_lines(r.rows, lang))]
    if r.against:
        out += [Heading(3, _against_heading(r, lang)),
                Table(_columns(lang, True), [_cells(row, lang) for row in r.against]),
                Bullets(verdict_lines(r.against, lang))]
    out.append(Para(say("ready.how_read", lang)))
    return out
