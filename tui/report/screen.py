"""The screenshot when the workbench's own screen is not at hand: a plain text screen of the same facts.

The workbench's screen itself is drawn by ``tui.screenshot`` and handed to the report by its caller.
"""

from __future__ import annotations

from typing import Any, Sequence

from tui.report.summary import summarize
from tui.telemetry.sample import fmt, fmt_bytes

WIDTH = 120


def text_screen(records: Sequence[Any], sample: Any = None) -> str:
    """Devices, runs and their last log lines, laid out in 120 columns."""
    lines = ["cardbench  -  device status and runs (text rendering)", "=" * WIDTH]
    if sample is not None:
        for d in sample.devices:
            lines.append(f"[{fmt(d.index)}] {fmt(d.name)[:30]:<30} util {fmt(d.util_gpu_pct, '%'):>5}  "
                         f"mem {fmt_bytes(d.mem_used_bytes)} / {fmt_bytes(d.mem_total_bytes)}  "
                         f"{fmt(d.temperature_c, 'C')}  {fmt(d.power_w, 'W')}")
        if not sample.devices:
            lines.append("no accelerator detected")
        h = sample.host
        lines.append(f"host {fmt(h.hostname)}: CPU {fmt(h.cpu_pct, '%')} of {fmt(h.cpu_count)}  "
                     f"RAM {fmt_bytes(h.mem_used_bytes)} / {fmt_bytes(h.mem_total_bytes)}  load {fmt(h.load1, digits=2)}")
    lines.append("-" * WIDTH)
    for record in records:
        s = summarize(record)
        value = s.headline
        lines.append(f"{s.title:<24} {s.status:<10} {fmt(value, s.throughput.unit or '', 1) if value is not None else 'N/A':>18}"
                     f"  steps {s.steps:<5} loss {fmt(s.first_loss, digits=3)} -> {fmt(s.last_loss, digits=3)}"
                     f"  fallbacks {len(s.fallbacks)}  warnings {len(s.warnings)}")
    if not records:
        lines.append("no runs")
    lines.append("-" * WIDTH)
    for record in records[-2:]:
        tail = [line for line in record.log_text.splitlines() if line.strip()][-6:]
        lines.append(f"log of {record.id}:")
        lines += [f"  {line[:WIDTH - 2]}" for line in tail]
    return "\n".join(line[:WIDTH] for line in lines)

