"""report.html from the report's blocks: one self-contained page (images are the bundle's PNGs)."""

from __future__ import annotations

import html
import re
from typing import Sequence

from markdown_it import MarkdownIt

from tui.doctor.check import STATUSES
from tui.i18n import say
from tui.report.document import Block, Bullets, Code, Heading, Image, Para, Table

_STYLE = """
body { font-family: system-ui, "Noto Sans CJK SC", "Microsoft YaHei", sans-serif; max-width: 1000px;
       margin: 2em auto; padding: 0 1em; color: #222; line-height: 1.5; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
td.long { overflow-wrap: anywhere; }
td.whole { white-space: nowrap; }
table.wide { font-size: clamp(0.6em, 1.3vw, 0.8em); }
table.wide th, table.wide td { padding: 0.2em 0.3em; }
h1, h2, h3, h4, p, li { overflow-wrap: break-word; }
th { background: #f3f3f3; }
pre { background: #f6f8fa; padding: 0.8em; overflow-x: auto; font-size: 0.85em; }
code { background: #f3f3f3; padding: 0 0.2em; }
img { max-width: 100%; border: 1px solid #ddd; margin: 0.3em 0; }
figure { margin: 0.5em 0 1em; } figcaption { color: #555; font-size: 0.9em; }
td.PASS { color: #1a7f37; } td.WARN { color: #9a6700; } td.FAIL { color: #cf222e; font-weight: bold; }
"""

# No table runs past the window (issue 36 item 11: the LLM sweep's 17 columns, 1422 px, ran past 1280 px). A cell
# wraps between words; a word as long as LONG_WORD (a path, a URL, a run id) may also break anywhere, while a cell
# as short as WHOLE (a number, "80.8 %") never wraps, so a table is as wide as its longest short words and no wider.
# A table of more than WIDE_COLUMNS columns is set smaller, the smaller the window (800 px: 10.4 px type), and
# its headers' long words may be hyphenated in the middle ("band-width"): 768 px wide at 800, 1000 px at 1280.
# Breaking them anywhere instead starved short headers ("inpu t") even at 1280. bench/report_width.py measures it.
WIDE_COLUMNS = 8
LONG_WORD = 16
WHOLE = 10
_HYPHENATED = re.compile(r"[A-Za-z]{7,}")

# a doctor verdict's cell is coloured by its class, in English or in Chinese
_VERDICTS = {**{v: v for v in STATUSES}, **{say(f"verdict.{v}", "zh"): v for v in STATUSES}}
# CommonMark's inline rules (code spans of any fence, emphasis, links, backslash escapes) by markdown-it-py, which
# Textual already installs; raw HTML is off, so a tool's output quoted in the report can never become markup, and
# its link validation keeps javascript:, vbscript:, file: and data: out of an href
_MARKDOWN = MarkdownIt("commonmark", {"html": False})


def _inline(text: str) -> str:
    """One line of the report's markdown as HTML."""
    return _MARKDOWN.renderInline(str(text))


def _cell(c: str) -> str:
    text = str(c)
    # a doctor verdict (one short word) is coloured by its class; a short cell that could wrap (at a space, or
    # between two Chinese characters) is kept whole, and one word of ASCII cannot wrap anyway
    wraps = " " in text or not text.isascii()
    said = _VERDICTS.get(text) or ("whole" if len(text) <= WHOLE and wraps else
                                   "long" if any(len(w) >= LONG_WORD for w in text.split()) else "")
    return f'<td class="{said}">{_inline(c)}</td>' if said else f"<td>{_inline(c)}</td>"


def _header(h: str, wide: bool) -> str:
    """A column's header; in a wide table its long English words may break in the middle, hyphenated (a soft
    hyphen, drawn only where the line breaks there). Markup (a code span, a link) is left as it is: a hyphen
    inside a link's address would change it."""
    h = str(h)
    if wide and not any(mark in h for mark in "`[]<>*_\\"):
        h = _HYPHENATED.sub(lambda m: m[0][:len(m[0]) // 2] + "\u00ad" + m[0][len(m[0]) // 2:], h)
    return f"<th>{_inline(h)}</th>"


def render(blocks: Sequence[Block], title: str, lang: str = "en") -> str:
    body: list[str] = []
    for b in blocks:
        if isinstance(b, Heading):
            body.append(f"<h{b.level}>{_inline(b.text)}</h{b.level}>")
        elif isinstance(b, Para):
            body.append(f"<p>{_inline(b.text)}</p>")
        elif isinstance(b, Bullets):
            body.append("<ul>" + "".join(f"<li>{_inline(i)}</li>" for i in b.items) + "</ul>")
        elif isinstance(b, Table):
            wide = len(b.headers) > WIDE_COLUMNS
            head = "".join(_header(h, wide) for h in b.headers)
            rows = "".join("<tr>" + "".join(_cell(c) for c in row) + "</tr>" for row in b.rows)
            opening = '<table class="wide">' if wide else "<table>"
            body.append(f"{opening}<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")
        elif isinstance(b, Image):
            # the alt text shown too: a chart's own words are English (its font), its caption the reader's language
            body.append(f'<figure><img src="{html.escape(b.path, quote=True)}" alt="{html.escape(b.alt, quote=True)}">'
                        f"<figcaption>{html.escape(b.alt)}</figcaption></figure>")
        elif isinstance(b, Code):
            body.append(f"<pre>{html.escape(b.text)}</pre>")
    html_lang = "zh-CN" if lang == "zh" else "en"
    return (f'<!DOCTYPE html>\n<html lang="{html_lang}">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{html.escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")
