"""The screenshot when the workbench's own screen is not at hand: a plain text screen of the same facts.

The workbench's screen itself is drawn by ``tui.workbench.screenshot`` and handed to the report by its caller;
the live workbench draws its own with :func:`live_screenshot`, its fields redacted while it is drawn.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from tui.redact import Redactor, redacted_values
from tui.report.summary import summarize
from workloads.facts.formatting import device_label, format_bytes, reading
from workloads.facts.missing import NA
from tui.report.run_times import redrawn_from

WIDTH = 120


def text_screen(records: Sequence[Any], sample: Any = None) -> str:
    """Devices, runs and their last log lines, laid out in 120 columns."""
    lines = ["cardbench  -  device status and runs (text rendering)"]
    if records:   # drawn from the runs on disk, after they ran: their own times say when
        lines.append(redrawn_from(records))
    lines.append("=" * WIDTH)
    if sample is not None:
        # a card's whole name: the model matters more than the columns' alignment past 35 cells
        labels = [device_label(d.index, d.name) for d in sample.devices]
        name_width = max([35, *map(len, labels)])
        for d, label in zip(sample.devices, labels):
            lines.append(f"{label:<{name_width}} util {reading(d.util_gpu_pct, '%'):>5}  "
                         f"mem {format_bytes(d.mem_used_bytes)} / {format_bytes(d.mem_total_bytes)}  "
                         f"{reading(d.temperature_c, 'C')}  {reading(d.power_w, 'W')}")
        if not sample.devices:
            lines.append("no accelerator detected")
        h = sample.host
        lines.append(f"host {reading(h.hostname)}: CPU {reading(h.cpu_pct, '%')} of {reading(h.cpu_count)}  "
                     f"RAM {format_bytes(h.mem_used_bytes)} / {format_bytes(h.mem_total_bytes)}  "
                     f"load {reading(h.load1, digits=2)}")
    lines.append("-" * WIDTH)
    for record in records:
        s = summarize(record)
        value = s.headline
        headline = reading(value, s.headline_unit, 1) if value is not None else NA
        lines.append(f"{s.title:<24} {s.status:<10} {headline:>18}"
                     f"  steps {s.steps:<5} loss {reading(s.first_loss, digits=3)} -> {reading(s.last_loss, digits=3)}"
                     f"  fallbacks {len(s.fallbacks)}  warnings {len(s.warnings)}")
    if not records:
        lines.append("no runs")
    lines.append("-" * WIDTH)
    for record in records[-2:]:
        tail = [line for line in record.log_text.splitlines() if line.strip()][-6:]
        lines.append(f"log of {record.id}:")
        lines += [f"  {line[:WIDTH - 2]}" for line in tail]
    return "\n".join(line[:WIDTH] for line in lines)


def live_screenshot(app: Any, redactor: Redactor | None = None, run_dirs: Iterable[Any] = ()) -> str:
    """The live workbench's screen as SVG (``app.export_screenshot()``), its launcher's fields redacted.

    A field crops its text to its width, and what the crop leaves of a secret (half a token inside a
    ``--data`` path) no rule finds in the SVG afterwards. So each text field of ``app.launcher`` shows its
    value redacted (:func:`tui.redact.redacted_values`; a field whose name looks secret shows only
    the marker) while the screen is drawn, and its own value again right after, its ``Changed`` message
    held back both times. ``redactor``: one that knows the secrets, else one learns those of the
    environment and of ``run_dirs`` (their config.json and start event, without loading the runs).
    Textual-free: the fields are found by their type's name.
    """
    if redactor is None:
        redactor = Redactor()
        for path in run_dirs:
            redactor.learn_run_dir(path)
    # the ids name the fields' options (param-resnet50-data, param-x-hf_token): a secret name shows the marker
    fields = {field.id or f"#{i}": field for i, field in enumerate(app.launcher.query("Input"))}
    shown = redacted_values({name: field.value for name, field in fields.items()}, redactor)
    changed = [(field, field.value, shown[name]) for name, field in fields.items() if shown[name] != field.value]
    try:
        for field, _, new in changed:
            with field.prevent(type(field).Changed):
                field.value = new
        return app.export_screenshot()
    finally:
        for field, value, _ in changed:
            with field.prevent(type(field).Changed):
                field.value = value
