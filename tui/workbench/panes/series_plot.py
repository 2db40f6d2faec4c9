"""One plotext plot drawing a snapshot's lines (`tui.workbench.view.snapshot`), downsampled to its width when painted.

A module of its own so that textual-plotext (and plotext) load after the
workbench's first frame, not before it.

What plotext would decide for itself and get wrong is decided here: the y ticks (`tui.workbench.plot_lines.y_axis`:
each label on the row whose points have its value), round x ticks clear of each other with the x unit at
the end of their row, one colour and marker per line, the title set in the top frame, and the legend
above the plot rather than over its data (plotext's own covers the canvas's top rows, and marks the axes
of a two-axis plot with an unexplained ``L`` and ``⅃``; here each axis's labels carry its unit).
"""

from __future__ import annotations

from typing import Sequence

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual_plotext import PlotextPlot

from tui.workbench.history_series import DrawCache
from tui.workbench.plot_lines import Line, line_styles, time_axis, x_ticks, y_axis
from workloads.safe_text import one_line

# the rows plotext takes from a plot's height besides the canvas: the frame's top and bottom and the x tick
# labels (plotext 5.3.2's build_plot, given no title and no axis labels: the header above says those)
FRAME_ROWS = 3
Y_LABEL_COLUMNS = 12   # what the y-axis labels and the frame leave for points, about
WARMUP_STYLE = ((154, 154, 154), "·")   # the report's WARMUP_GREY (#9a9a9a), and a marker of its own without colour


def header_max_rows(height: int) -> int:
    """Rows the title and legend may take: the canvas keeps most of a small plot."""
    return 1 if height < 9 else 2 if height < 13 else 3


def header_rows(title: Text, entries: list[tuple[str, str, Style]], width: int, max_rows: int) -> list[Text]:
    """The title, then the legend entries ``(marker, label, style)``, packed into rows of ``width`` cells.

    Above the plot, not over its data (plotext's own legend covers the canvas's top rows). Entries that do
    not fit in ``max_rows`` are left out whole and counted (``+2 more``); the title is never cut for them.
    """
    pieces = [Text(marker, style=style) + Text(f" {label}") for marker, label, style in entries]
    rows: list[list[Text]] = [[title]] if title.plain else [[]]
    for piece in pieces:
        row = rows[-1]
        if row and _width(row + [piece]) > width:
            rows.append([piece])
        else:
            row.append(piece)
    if len(rows) > max_rows:
        rows = rows[:max_rows]
        last = rows[-1]
        shown = sum(len(row) for row in rows) - bool(title.plain)
        while True:
            more = Text(f"+{len(pieces) - shown} more", style="dim")
            if _width(last + [more]) <= width:
                last.append(more)
                break
            if not last or last[-1] is title:
                break   # a title that fills the row: it names what the plot draws
            last.pop()
            shown -= 1
    out = []
    for row in rows:
        text = Text("  ").join(row)
        text.truncate(width)
        out.append(text)
    return out


def _width(pieces: list[Text]) -> int:
    return sum(piece.cell_len for piece in pieces) + 2 * max(0, len(pieces) - 1)


class SeriesPlot(PlotextPlot):
    """One plot; ``lines`` is what it draws (the plots pane sets them from each snapshot), read when it is painted."""

    DEFAULT_CSS = """
    SeriesPlot { height: 1fr; width: 1fr; }
    """

    def __init__(self, title: str, lines: Sequence[Line] = (), *, xlabel: str, time_axis: bool = False,
                 empty: str = "no data yet", percent: bool = False, axis_units: tuple[str, str] = ("", ""),
                 **kwargs) -> None:
        super().__init__(**kwargs)
        self.title = title
        self.lines = tuple(lines)
        self.xlabel = xlabel        # the x unit, named by the last x tick label ("60 steps")
        # (left, right): a two-axis plot's y labels carry their unit ("70°C", "500W"), so each reads on its own
        self.axis_units = axis_units
        self.time_axis = time_axis
        self.empty = empty
        self.percent = percent      # y from 0 to 100 (or above, if a reading is): a flat line reads true
        self.renders = 0            # paints so far: tests assert hidden plots are not drawn
        self._cache = DrawCache()
        self._drawn_versions: tuple = ()

    def has_data(self) -> bool:
        return any(len(line.series) for line in self.lines)

    def data_version(self) -> tuple:
        return tuple((line.series.key, line.series.version) for line in self.lines)

    def refresh_if_changed(self) -> None:
        """Repaint when the data moved since the last paint (a no-op for an unchanged or hidden plot)."""
        if not self.display:
            return
        version = self.data_version()
        if version != self._drawn_versions:
            self.refresh()

    def render(self):
        self.renders += 1
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        lines = [line for line in self.lines if len(line.series)]
        self._drawn_versions = self.data_version()
        width, height = self.size.width, self.size.height
        if not lines:
            plt.xticks([])
            plt.yticks([])
            title = f"{self.title}: {self.empty}"
            framed = self._title_fits(title, width)
            return self._with_header([] if framed else [Text(title, style="bold")], width, height,
                                     title if framed else None)
        # the warm-up steps' line is grey, as in the report's chart; the others each have a colour of their own
        colours = iter(line_styles(sum(not line.warmup for line in lines)))
        styles = [WARMUP_STYLE if line.warmup else next(colours) for line in lines]
        scale, xunit = 1.0, one_line(lines[0].x_unit) or self.xlabel
        if self.time_axis:
            scale, xunit = time_axis(lines)
        two_axes = len({line.side for line in lines}) > 1
        # a percent plot's title says '%': its legend need not, and then fits two cards and the host in 38 columns
        # a label names a run's workload and unit, which a run directory someone else wrote may fill: printable
        entries = [(marker, one_line(line.label.replace(" %", "") if self.percent else line.label),
                    Style(color=f"rgb{colour}")) for line, (colour, marker) in zip(lines, styles)]
        framed = self._title_fits(self.title, width)
        header = header_rows(Text() if framed else Text(self.title, style="bold"), entries, width,
                             header_max_rows(height))
        rows = max(1, height - len(header)) - FRAME_ROWS
        drawn = [self._cache.get(line.series, max(10, width - Y_LABEL_COLUMNS)) for line in lines]
        for side, unit in zip(("left", "right"), self.axis_units):
            ys = [y for line, d in zip(lines, drawn) if line.side == side for y in d.ys]
            if not ys:
                continue
            lo, hi = min(ys), max(ys)
            if self.percent:
                lo, hi = 0.0, max(100.0, hi)
            axis = y_axis(lo, hi, rows)
            plt.ylim(axis.lo, axis.hi, yside=side)
            plt.yticks(list(axis.ticks), [label + unit for label in axis.labels] if two_axes else list(axis.labels),
                       yside=side)
        xs_all = [x / scale for d in drawn for x in d.xs]
        xlo, xhi = min(xs_all), max(xs_all)
        if xhi > xlo:
            plt.xlim(xlo, xhi)
        # the x unit ends the labels' row: the ticks keep clear of its cells (plotext would draw a label there)
        columns = max(1, width - Y_LABEL_COLUMNS)
        room = max(0, columns - len(xunit) - 3) / columns
        # a step axis counts: whole steps only (a time axis in minutes may read 1.5)
        ticks, labels = (x_ticks(xlo, xlo + (xhi - xlo) * room, int(columns * room), whole=not self.time_axis)
                         if room else ([], []))
        plt.xticks(ticks, labels)
        for line, d, (colour, marker) in zip(lines, drawn, styles):
            xs = [x / scale for x in d.xs] if scale != 1.0 else d.xs
            plt.plot(xs, d.ys, yside=line.side, color=colour, marker=marker)
        return self._with_header(header, width, height, self.title if framed else None, xunit)

    @staticmethod
    def _title_fits(title: str, width: int) -> bool:
        """Whether ``title`` fits in the top frame (else it heads the legend, on a row of its own if need be)."""
        return cell_len(title) + 2 <= width - Y_LABEL_COLUMNS + 4

    def _with_header(self, header: list[Text], width: int, height: int, framed_title: str | None,
                     x_unit: str = "") -> Text:
        """The header rows, then PlotextPlot.render at the height they leave (size, Textual's theme, build),
        with ``framed_title`` on its top frame, like a pane's border title, and ``x_unit`` at the right end
        of the x labels' row."""
        plot_height = max(1, height - len(header))
        self._plot.plotsize(width, plot_height)
        self._plot._set_size(width, plot_height)   # as PlotextPlot.render does (textual-plotext issue 5)
        self._plot.theme(self._get_plotext_theme_name(self.app.theme))
        rows = Text.from_ansi(self._plot.build().rstrip("\n")).split("\n")   # its last row ends in a newline
        if rows and framed_title:
            rows[0] = _framed(rows[0], framed_title)
        if len(rows) > 1 and x_unit:
            rows[-1] = _x_unit_on(rows[-1], x_unit)
        return Text("\n").join([*header, *rows])


def _framed(row: Text, title: str) -> Text:
    """The top frame row ``   ┌────┐`` with `` title `` set into it after the corner, if it has room."""
    corner = row.plain.find("┌")
    end = row.plain.rfind("┐")
    if corner < 0:
        return row
    label = f" {title} "
    stop = corner + 2 + cell_len(label)
    if stop > (end if end > corner else len(row.plain)):
        return row
    return row[:corner + 2] + Text(label, style="bold") + row[stop:]


def _x_unit_on(row: Text, unit: str) -> Text:
    """The x labels' row with `` unit`` right-aligned after the labels (the last label gives way if need be)."""
    plain = row.plain
    start = len(plain) - len(unit) - 1   # a cell short of the right frame's corner, as the tick labels are
    used = len(plain.rstrip())
    if used + 1 > start:   # the last label is in the way: it goes, its tick mark stays on the axis
        used = len(plain[:used].rstrip("0123456789.-").rstrip())
        if used + 1 > start:
            return row
        row = row[:used] + Text(" " * (len(plain) - used))
    return row[:start] + Text(unit, style="dim") + row[start + len(unit):]
