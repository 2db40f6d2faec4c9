"""report.md from the report's blocks."""

from __future__ import annotations

from typing import Sequence

from tui.report.document import Block, Bullets, Code, Heading, Image, Para, Table


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render(blocks: Sequence[Block]) -> str:
    out: list[str] = []
    for b in blocks:
        if isinstance(b, Heading):
            out.append(f"{'#' * b.level} {b.text}")
        elif isinstance(b, Para):
            out.append(b.text)
        elif isinstance(b, Bullets):
            out.append("\n".join(f"- {item}" for item in b.items))
        elif isinstance(b, Table):
            lines = ["| " + " | ".join(_cell(h) for h in b.headers) + " |",
                     "| " + " | ".join("---" for _ in b.headers) + " |"]
            lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in b.rows]
            out.append("\n".join(lines))
        elif isinstance(b, Image):
            out.append(f"![{b.alt}]({b.path})")
        elif isinstance(b, Code):
            fence = "````" if "```" in b.text else "```"
            out.append(f"{fence}\n{b.text}\n{fence}")
    return "\n\n".join(out) + "\n"
