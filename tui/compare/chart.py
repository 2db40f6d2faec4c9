"""compare.png: each side's headline ratio to the baseline as a bar, its uncertainty as a whisker, 1.0 marked.

Drawn as SVG and rendered by the report's renderer (``tui.report.png``); its words are English, as the
report's charts are (the monospace font may have no Chinese glyphs).
"""

from __future__ import annotations

from html import escape

from tui.compare.comparison import Comparison
from tui.report.png import svg_to_png

WIDTH, BAR_H, GAP, LEFT, RIGHT, TOP = 900, 26, 10, 230, 140, 56
COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")


def bars(c: Comparison) -> list[tuple[str, float, float | None]]:
    """(label, ratio, uncertainty) per workload and side; the baseline is 1 with no whisker."""
    out = []
    base = c.sides[c.baseline].label
    for w in c.workloads:
        for i, (side, r) in enumerate(zip(c.sides, w.headline.ratios)):
            if i == c.baseline:
                out.append((f"{w.title} {base} (baseline)", 1.0, None))
            elif r is not None:
                out.append((f"{w.title} {side.label}", r.value, r.uncertainty))
    return out


def svg(c: Comparison) -> str:
    items = bars(c)
    height = TOP + len(items) * (BAR_H + GAP) + 40
    top = max([1.0, *(v + (u or 0.0) for _, v, u in items)]) * 1.05
    plot = WIDTH - LEFT - RIGHT

    def x(v: float) -> float:
        return LEFT + v / top * plot

    base = c.sides[c.baseline].label
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
           f'viewBox="0 0 {WIDTH} {height}" font-family="monospace">',
           f'<rect x="0" y="0" width="{WIDTH}" height="{height}" fill="#ffffff"/>',
           f'<text x="{WIDTH / 2}" y="26" font-size="16" text-anchor="middle" fill="#222">'
           f'{escape(f"Headline ratio to {base} (median after warm-up), whisker: +/- from the per-step spread")}'
           f'</text>']
    for n, (label, value, unc) in enumerate(items):
        y = TOP + n * (BAR_H + GAP)
        color = COLORS[n % len(COLORS)]
        out.append(f'<text x="{LEFT - 8}" y="{y + BAR_H * 0.7:.1f}" font-size="13" text-anchor="end" fill="#222">'
                   f'{escape(label)}</text>')
        out.append(f'<rect x="{LEFT}" y="{y}" width="{x(value) - LEFT:.1f}" height="{BAR_H}" fill="{color}"/>')
        if unc:
            lo, hi, mid = x(max(0.0, value - unc)), x(value + unc), y + BAR_H / 2
            out.append(f'<line x1="{lo:.1f}" y1="{mid}" x2="{hi:.1f}" y2="{mid}" stroke="#222" stroke-width="2"/>')
            for end in (lo, hi):
                out.append(f'<line x1="{end:.1f}" y1="{y + 5}" x2="{end:.1f}" y2="{y + BAR_H - 5}" stroke="#222" '
                           f'stroke-width="2"/>')
        text = f"{value:.2f}" + (f" +/- {unc:.2f}" if unc else "")
        # in a column of their own, right of the plot: the 1.0 line never crosses them
        out.append(f'<text x="{WIDTH - RIGHT + 12}" y="{y + BAR_H * 0.7:.1f}" font-size="13" '
                   f'fill="#222">{escape(text)}</text>')
    one = x(1.0)
    bottom = TOP + len(items) * (BAR_H + GAP)
    out.append(f'<line x1="{one:.1f}" y1="{TOP - 8}" x2="{one:.1f}" y2="{bottom}" stroke="#888" '
               f'stroke-dasharray="4 3"/>')
    out.append(f'<text x="{one:.1f}" y="{bottom + 18}" font-size="12" text-anchor="middle" fill="#444">1.0</text>')
    out.append("</svg>")
    return "\n".join(out)


def png(c: Comparison) -> bytes:
    """The chart as PNG; raises ``tui.report.png.PngError`` with the reason when it cannot be drawn."""
    return svg_to_png(svg(c))
