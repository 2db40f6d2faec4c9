"""report.html from the report's blocks: one self-contained page (images are the bundle's PNGs)."""

from __future__ import annotations

import html
import re
from typing import Sequence

from tui.report import zh
from tui.report.document import Block, Bullets, Code, Heading, Image, Para, Table

_STYLE = """
body { font-family: system-ui, "Noto Sans CJK SC", "Microsoft YaHei", sans-serif; max-width: 1000px;
       margin: 2em auto; padding: 0 1em; color: #222; line-height: 1.5; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
pre { background: #f6f8fa; padding: 0.8em; overflow-x: auto; font-size: 0.85em; }
code { background: #f3f3f3; padding: 0 0.2em; }
img { max-width: 100%; border: 1px solid #ddd; margin: 0.3em 0; }
figure { margin: 0.5em 0 1em; } figcaption { color: #555; font-size: 0.9em; }
td.PASS { color: #1a7f37; } td.WARN { color: #9a6700; } td.FAIL { color: #cf222e; font-weight: bold; }
"""


# a doctor verdict's cell is coloured by its class, in English or in Chinese
_VERDICTS = {**{v: v for v in zh.CHECK_STATUS}, **{said: v for v, said in zh.CHECK_STATUS.items()}}
_LINK = re.compile(r"\[(?P<label>[^\]\n]+)\]\((?P<url>[^()\s]+)\)")
# web links and paths inside the bundle; no other scheme (javascript:, data:...) becomes a link
_SAFE_URL = re.compile(r"https?://|mailto:|[^:]*(/|$)", re.IGNORECASE)
_TICKS = re.compile(r"`+")
_PUNCTUATION = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def _span_end(text: str, start: int) -> tuple[int, int] | None:
    """The code span opening at ``start`` (a run of backticks): (where its content ends, where the span ends);
    None when no run of the same length closes it (then the backticks are text)."""
    run = _TICKS.match(text, start).end() - start
    return next(((m.start(), m.end()) for m in _TICKS.finditer(text, start + run) if m.end() - m.start() == run),
                None)


def _closing_bold(text: str, start: int) -> int:
    """Where the ``**`` that closes bold text opened before ``start`` is, skipping code spans; -1: none."""
    i = start
    while i < len(text):
        if text[i] == "`":
            span = _span_end(text, i)
            if span is not None:
                i = span[1]
                continue
        if text.startswith("**", i):
            return i
        i += 1
    return -1


def _inline(text: str) -> str:
    """Inline markdown as HTML: `code` spans (any fence), **bold**, [links](url) and backslash escapes;
    everything else escaped, so a tool's output can never become markup."""
    text = str(text)
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "`":
            span = _span_end(text, i)
            run = _TICKS.match(text, i).end() - i
            if span is None:
                out.append(text[i:i + run])
                i += run
                continue
            content = text[i + run:span[0]]
            if len(content) > 1 and content.startswith(" ") and content.endswith(" ") and content.strip():
                content = content[1:-1]
            out.append(f"<code>{html.escape(content)}</code>")
            i = span[1]
        elif text.startswith("**", i) and (end := _closing_bold(text, i + 2)) > i + 2:
            out.append(f"<strong>{_inline(text[i + 2:end])}</strong>")
            i = end + 2
        elif c == "[" and (link := _LINK.match(text, i)) and _SAFE_URL.match(link["url"]):
            out.append(f'<a href="{html.escape(link["url"], quote=True)}">{_inline(link["label"])}</a>')
            i = link.end()
        elif c == "\\" and i + 1 < len(text) and text[i + 1] in _PUNCTUATION:
            out.append(html.escape(text[i + 1]))
            i += 2
        else:
            out.append(html.escape(c))
            i += 1
    return "".join(out)


def _cell(c: str) -> str:
    verdict = _VERDICTS.get(str(c))
    return f'<td class="{verdict}">{_inline(c)}</td>' if verdict else f"<td>{_inline(c)}</td>"


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
            head = "".join(f"<th>{_inline(h)}</th>" for h in b.headers)
            rows = "".join("<tr>" + "".join(_cell(c) for c in row) + "</tr>" for row in b.rows)
            body.append(f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")
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
