"""One area of the catalogue said in one language: the report's `Words` and compare's sentences are each one.

    w = Voice("zh", "compare.")
    w("title")            -> the catalogue's ``compare.title`` in Chinese
    w.quote("H100 SXM")   -> '`H100 SXM`': what cardbench only quotes is a code span in Chinese, as written in English
    w.join(["a", "b"])    -> 'a；b'
    w.counted("steps_fmt", 1)  -> '1 step' (the ``_one`` form), w.duration(131) -> '2 min 11 s' (in Chinese units)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from workloads.facts.formatting import code, format_duration
from tui.i18n import CATALOGUE, joined, say, say_or
from workloads.spec import Text


class Voice:
    area = ""   # the catalogue's id prefix a subclass speaks from ("report.", "compare.")

    def __init__(self, lang: str, area: str | None = None):
        self.lang = "zh" if lang == "zh" else "en"
        if area is not None:
            self.area = area

    @property
    def zh(self) -> bool:
        return self.lang == "zh"

    def __call__(self, key: str, **values: Any) -> str:
        return say(self.area + key, self.lang, **values)

    def say_or(self, key: str, fallback: str, **values: Any) -> str:
        """Any catalogue id (not only this area's) in this language, else ``fallback``."""
        return say_or(key, self.lang, fallback, **values)

    def quote(self, text: Any) -> str:
        """Text cardbench did not write (a tool's output, an error, a model name): in a code span in Chinese; ""
        for none."""
        if text in (None, ""):
            return ""
        return code(str(text)) if self.zh else str(text)

    def join(self, items: Iterable[str], comma: bool = False) -> str:
        return joined(items, self.lang, comma)

    def counted(self, key: str, n: Any, **values: Any) -> str:
        """``key`` for a count ``n``: its ``<key>_one`` form when n is 1 and the catalogue has one ('1 step',
        not '1 steps'), as gettext's ngettext picks a plural form."""
        one = f"{key}_one"
        return self(one if n == 1 and self.area + one in CATALOGUE else key, n=n, **values)

    def duration(self, seconds: Any) -> str:
        """A duration in this language's units: '2 min 11 s' (report.unit.* of the catalogue)."""
        return format_duration(seconds, self.lang)


@dataclass(frozen=True)
class _Quoted:
    text: str

    def __call__(self, lang: str = "en") -> str:
        return Voice(lang).quote(self.text)


def quoted(text: Any) -> _Quoted:
    """A value of a sentence that is not cardbench's words (an exception's text, a tool's output, a command): as
    it was written, and in a code span in Chinese so that the reader sees it is quoted (the report's notes, the
    doctor's evidence)."""
    return _Quoted(str(text))


def listed(items: Iterable[Any], comma: bool = True) -> Text:
    """Items in a sentence of either language, joined as each language joins them ('nvidia-smi, ixsmi' /
    '`nvidia-smi`，`ixsmi`' for ``quoted`` items): a callable item (``quoted(...)``, a `Text`) said in each."""
    items = list(items)
    return Text(*(joined((i(lang) if callable(i) else str(i) for i in items), lang, comma) for lang in ("en", "zh")))
