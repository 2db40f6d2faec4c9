"""What each workbench plot draws, as UI-free functions of the `History` (no Textual, no plotext).

The plots pane (`tui.panes.plots`) names the plots and the plot widget
(`tui.panes.series_plot`) draws whatever lines it is handed; both read them from
here, so neither pane imports the other and the lines can be tested without a screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from tui.formatting import device_tag
from tui.history import History, Series

__all__ = ["CARDS_UNUSED", "Line", "loss_lines", "thermal_lines", "throughput_lines", "time_axis", "time_scale",
           "util_lines"]

# what the card plots say instead of lines while the runs shown are on the CPU
CARDS_UNUSED = "cards unused (CPU run)"


@dataclass
class Line:
    label: str
    series: Series
    side: str = "left"   # "right": the second unit of the plot


def time_scale(span_s: float) -> tuple[float, str]:
    """Seconds per tick unit and its name, so a long run reads in minutes or hours, not in 86400 s."""
    if span_s >= 2 * 3600:
        return 3600.0, "h"
    if span_s >= 120:
        return 60.0, "min"
    return 1.0, "s"


def time_axis(lines: Sequence[Line]) -> tuple[float, str]:
    """The time scale for these lines (each with at least one point): over the span they cover together."""
    span = max(line.series.xs[-1] for line in lines) - min(line.series.xs[0] for line in lines)
    return time_scale(span)


def loss_lines(history: History) -> list[Line]:
    return [Line(f"{run.label} loss", run.loss) for run in history.runs.values()]


def throughput_lines(history: History) -> list[Line]:
    """One line per run; the first unit seen reads on the left axis, any other on the right."""
    units: list[str] = []
    out: list[Line] = []
    for run in history.runs.values():
        unit = run.unit or "items/s"
        if unit not in units:
            units.append(unit)
        side = "left" if units.index(unit) == 0 else "right"
        out.append(Line(f"{run.label} {unit}", run.throughput, side))
    return out


def util_lines(history: History) -> list[Line]:
    """Each card's utilisation and memory, and the host's CPU; only the host while the runs are on the CPU.

    An idle card's flat line drawn during a CPU run reads as the run's data: it is
    left out (the device pane still shows the cards, marked as not used).
    """
    out: list[Line] = []
    on_cpu = history.cards_unused
    for index in [] if on_cpu else history.device_indices():
        out.append(Line(f"{device_tag(index)} util %", history.telemetry[f"util:{index}"]))
        out.append(Line(f"{device_tag(index)} mem %", history.telemetry[f"mem:{index}"]))
    if "cpu" in history.telemetry:
        out.append(Line("host cpu % (the run)" if on_cpu else "host cpu %", history.telemetry["cpu"]))
    return out


def thermal_lines(history: History) -> list[Line]:
    """Each card's temperature and power; none while the runs are on the CPU (the cards did not work)."""
    out: list[Line] = []
    if history.cards_unused:
        return out
    for index in history.device_indices():
        out.append(Line(f"{device_tag(index)} °C", history.telemetry[f"temp:{index}"]))
        out.append(Line(f"{device_tag(index)} W", history.telemetry[f"power:{index}"], "right"))
    return out
