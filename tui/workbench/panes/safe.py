"""Text from outside (a run directory someone else wrote, a server's message, a file name) as a widget may show it.

Rich strips BEL, BS and CR from a Text but not ESC: a workload name holding ESC ]0; retitles the terminal, ESC [2J
clears it and ESC ]52; writes its clipboard. Every string that came from a file, a server or a run directory goes
through the rule `cardbench run command` applies to a job's output (`workloads.safe_text`) on its way to a widget;
this module applies it to Rich Text without losing the styles the workbench gave it. What it returns is a Text, so
Textual never reads markup ('[bold]') from a run's strings either.
"""

from __future__ import annotations

from rich.text import Text

from workloads.safe_text import one_line, printable

__all__ = ["line", "shown"]


def shown(text: str | Text, style: str = "") -> Text:
    """``text`` without escape sequences or control characters (newlines kept), its styles kept."""
    if isinstance(text, str):
        return Text(printable(text), style=style)
    plain = text.plain
    if printable(plain) == plain:   # the usual case: nothing from outside, or nothing hostile in it
        return text
    # cut where a style starts or ends, so each piece has one set of styles, and clean each piece
    cuts = sorted({offset for span in text.spans for offset in (span.start, span.end)} - {0, len(plain)})
    out = text.blank_copy()
    for piece in text.divide(cuts):
        piece.plain = printable(piece.plain)
        piece.style = ""   # the whole text's style is the copy's, once
        out.append_text(piece)
    return out


def line(text: object, limit: int | None = None) -> Text:
    """A string from outside on one line (a list's entry, a legend, a question), as an unstyled Text: no escape
    sequence, and no markup read from it."""
    return Text(one_line(text, limit))
