"""One area of the catalogue said in one language: the report's `Words` and compare's sentences are each one.

    w = Voice("zh", "compare.")
    w("title")            -> the catalogue's ``compare.title`` in Chinese
    w.quote("H100 SXM")   -> '`H100 SXM`': what cardbench only quotes is a code span in Chinese, as written in English
    w.join(["a", "b"])    -> 'a；b'
"""

from __future__ import annotations

from typing import Any, Iterable

from tui.i18n import joined, say, say_or
from tui.report.document import code


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
