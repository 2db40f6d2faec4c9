"""SVG -> PNG without a browser (resvg), with the text pointed at an installed monospace font.

A terminal SVG (rich's or Textual's export) names "Fira Code" and fetches it
from a CDN; resvg fetches nothing, so without a local font the PNG would show
boxes or nothing. We rewrite the font families to a monospace font found on
this machine, and when there is none we return None: the caller keeps the SVG
and says so in the report.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

# (file name, family) of common monospace fonts, best first
_KNOWN_FONTS = (
    ("DejaVuSansMono.ttf", "DejaVu Sans Mono"),
    ("LiberationMono-Regular.ttf", "Liberation Mono"),
    ("NotoSansMono-Regular.ttf", "Noto Sans Mono"),
    ("UbuntuMono-R.ttf", "Ubuntu Mono"),
    ("FiraCode-Regular.ttf", "Fira Code"),
    ("SourceCodePro-Regular.ttf", "Source Code Pro"),
    ("cour.ttf", "Courier New"),
)
_FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts", "~/.local/share/fonts", "~/.fonts",
              "/usr/lib/X11/fonts", "/System/Library/Fonts", "/Library/Fonts")


@dataclass(frozen=True)
class Font:
    family: str
    path: str


def _search(dirs: tuple[str, ...]) -> Font | None:
    wanted = {name.lower(): family for name, family in _KNOWN_FONTS}
    found: dict[str, Font] = {}
    for root in dirs:
        root = os.path.expanduser(root)
        if not os.path.isdir(root):
            continue
        for dirpath, _dirs, files in os.walk(root):
            for name in files:
                family = wanted.get(name.lower())
                if family and family not in found:
                    found[family] = Font(family, os.path.join(dirpath, name))
    for _name, family in _KNOWN_FONTS:
        if family in found:
            return found[family]
    return None


def _fc_list() -> Font | None:
    if not shutil.which("fc-list"):
        return None
    try:
        out = subprocess.run(["fc-list", ":spacing=mono:style=Regular", "family", "file"], capture_output=True,
                             text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    for line in out.splitlines():
        path, _, family = line.partition(":")
        if path.endswith((".ttf", ".otf", ".ttc")) and family.strip():
            return Font(family.split(",")[0].strip(), path.strip())
    return None


@functools.lru_cache(maxsize=1)
def monospace_font() -> Font | None:
    """An installed monospace font, or None ($CARDBENCH_FONT=path/to/font.ttf picks one)."""
    chosen = os.environ.get("CARDBENCH_FONT")
    if chosen:
        if chosen.lower() == "none":  # lets a test see the no-font path
            return None
        if os.path.isfile(chosen):
            stem = Path(chosen).name.lower()
            family = next((f for n, f in _KNOWN_FONTS if n.lower() == stem), Path(chosen).stem)
            return Font(family, chosen)
    return _search(_FONT_DIRS) or _fc_list()


def renderer_available() -> bool:
    try:
        import resvg_py  # noqa: F401
    except ImportError:
        return False
    return True


_FONT_FACE = re.compile(r"@font-face\s*\{[^}]*\}", re.S)
_FAMILY = re.compile(r"font-family\s*:\s*[^;}\"]*(?:\"[^\"]*\"[^;}]*)*")
_FAMILY_ATTR = re.compile(r"font-family=\"[^\"]*\"")


def point_fonts(svg: str, family: str) -> str:
    """Every font family in the SVG -> the given installed one; web-font rules dropped."""
    svg = _FONT_FACE.sub("", svg)
    svg = _FAMILY.sub(f"font-family: '{family}', monospace", svg)
    return _FAMILY_ATTR.sub(f"font-family=\"'{family}', monospace\"", svg)


class PngError(Exception):
    """The SVG could not be rendered (no renderer, no font, or resvg refused it)."""


def svg_to_png(svg: str, *, zoom: float = 1.0, background: str | None = None) -> bytes:
    """Render an SVG to PNG bytes with a local monospace font; raise PngError with the reason."""
    if not renderer_available():
        raise PngError("resvg_py is not installed (pip install resvg-py)")
    font = monospace_font()
    if font is None:
        raise PngError("no monospace font is installed (e.g. apt-get install fonts-dejavu-core)")
    import resvg_py

    text = point_fonts(svg, font.family)
    try:
        try:
            data = resvg_py.svg_to_bytes(
                svg_string=text, font_files=[font.path], font_family=font.family,
                monospace_family=font.family, sans_serif_family=font.family, serif_family=font.family,
                zoom=zoom if zoom != 1.0 else None, background=background)
        except TypeError:  # an older resvg_py without these keywords (checked with 0.5): system fonts only
            data = resvg_py.svg_to_bytes(svg_string=text)
    except (ValueError, RuntimeError, OSError, TypeError) as exc:
        raise PngError(f"resvg could not render the SVG: {exc}") from None
    return bytes(data)


def terminal_svg(text: str, title: str, *, width: int | None = None) -> str:
    """A terminal-window SVG of a text, as rich draws it (the look of a screenshot of a terminal)."""
    from rich.console import Console
    from rich.text import Text

    lines = text.expandtabs(8).splitlines() or [""]
    cols = width or max(40, min(240, max(len(line) for line in lines) + 1))
    console = Console(record=True, width=cols, file=open(os.devnull, "w"), color_system="truecolor",
                      force_terminal=True, legacy_windows=False, soft_wrap=False)
    # no markup, no highlighting: the text is shown exactly as the tool printed it
    console.print(Text("\n".join(lines)), highlight=False, markup=False, crop=True, overflow="crop", no_wrap=True)
    svg = console.export_svg(title=title)
    console.file.close()
    return svg


def text_to_png(text: str, title: str) -> bytes:
    return svg_to_png(terminal_svg(text, title))
