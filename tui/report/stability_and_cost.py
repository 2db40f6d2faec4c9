"""The report's stability and cost sections: per-device peaks, throttling, ECC and Xid over the runs; what the runs
cost at the given price. UI-free; `tui.report.contents` puts them in order."""

from __future__ import annotations

from typing import Any

from tui.cpu_trap import doctor_count, is_cpu, listed_in
from workloads.facts.formatting import format_bytes, format_duration, format_number, percent
from workloads.facts.missing import NA, is_finite
from tui.report.document import Block, Code, Heading, Para, Table
from tui.report.i18n import Words
from tui.report.report_data import ReportData, device_name, headline
from tui.report.cost import cost
from tui.report.device_telemetry import DeviceStability
from tui.report.xid import MEANING
from tui.telemetry.sample import normalize_bus_id
from workloads.rundir.sample_fields import BUS_ID, DEVICES, INDEX, MEM_TOTAL_BYTES


def _span(pair: tuple[int, int] | None, w: Words) -> str:
    if pair is None:
        return NA
    first, last = pair
    return f"{first} -> {last}" + (" (!)" if last > first else "")


def _stability_device(d: DeviceStability, data: ReportData, w: Words) -> str:
    """'GPU0 NVIDIA H100 80GB HBM3': the index from the key ("index:0") or from the export's device snapshot by
    bus id; without one, the name and the bus id, which tells two cards of one model apart."""
    if d.key.startswith("index:"):
        index = d.key.removeprefix("index:")
    else:
        listed = [x for x in (data.env.devices or {}).get(DEVICES) or () if isinstance(x, dict) and x.get(BUS_ID)]
        index = next((x.get(INDEX) for x in listed if normalize_bus_id(str(x[BUS_ID])) == normalize_bus_id(d.key)),
                     None)
    if index is not None:
        return device_name(index, d.name, w)
    return w("bus", name=w.quote(d.name) if d.name else NA, bus=w.quote(d.key))


def stability(data: ReportData, w: Words) -> list[Block]:
    blocks: list[Block] = [Heading(2, w("stability"))]
    if data.stability:
        rows = []
        for d in data.stability:
            if d.throttle_known:
                throttle = ", ".join(f"{w.quote(k)} ({n})" for k, n in sorted(d.throttle.items())) or w("none_seen")
            else:
                throttle = w("not_reported")
            rows.append([_stability_device(d, data, w), str(d.samples),
                         f"{format_number(d.peak_temperature_c, 3)} C" if d.peak_temperature_c is not None else NA,
                         f"{format_number(d.peak_power_w)} W / {format_number(d.power_limit_w)} W"
                         if d.peak_power_w is not None else NA,
                         f"{format_number(d.min_sm_clock_mhz)} - {format_number(d.max_sm_clock_mhz)} MHz"
                         if d.max_sm_clock_mhz else NA,
                         throttle,
                         f"{_span(d.ecc_corrected, w)} / {_span(d.ecc_uncorrected, w)}",
                         f"{_span(d.retired_pages, w)} / {_span(d.remapped_rows, w)}"])
        blocks.append(Table([w("device"), w("samples"), w("peak_temp"), w("peak_power"), w("sm_clock"), w("throttle"),
                             w("ecc"), w("pages")], rows))
    else:
        peaks = data.host_peaks
        peak_cpu = peaks.get("peak_cpu_pct")
        cpu = percent(peak_cpu / 100) if is_finite(peak_cpu) else NA
        # "the listed cards' readings are not their data" only where cards are listed
        listed = listed_in(data.env.devices).at_least(doctor_count(data.env.doctor)).count
        key = "cpu_run_telemetry" if listed and any(is_cpu(s.device) for s in data.summaries) else \
            "no_device_telemetry"
        mem, total = peaks.get("peak_mem_used_bytes"), peaks.get(MEM_TOTAL_BYTES)
        # the peak beside the memory the host had: "6.7 GiB" alone says nothing of how close it came
        mem_text = (w("of_total", used=format_bytes(mem), total=format_bytes(total))
                    if is_finite(mem) and is_finite(total) else format_bytes(mem))
        blocks.append(Para(w(key, cpu=cpu, mem=mem_text)))
    x = data.xid
    note = w.text(x.note)
    if not x.readable:
        blocks.append(Para(w("xid_unreadable", note=note)))
    elif not x.events:
        blocks.append(Para(w("xid_none", note=note)))
    else:
        counts = w.join((w("xid_count", code=code, n=n,
                             meaning=MEANING[code](w.lang) if code in MEANING else w("xid_unknown"))
                           for code, n in sorted(x.counts.items())), comma=True)
        blocks.append(Para(w("xid_some", note=note, counts=counts)))
        blocks.append(Code("\n".join(line for _c, line in x.events[-20:])))
    return blocks


def amount(value: float) -> str:
    """Money as people write it: two decimals (1,309.90), three significant digits below one cent (0.000412)."""
    return f"{value:,.2f}" if value == 0 or abs(value) >= 0.01 else f"{value:.3g}"


def cost_section(data: ReportData, w: Words) -> list[Block]:
    blocks: list[Block] = [Heading(2, w("cost"))]
    if data.price_per_hour is None:
        return blocks + [Para(w("cost_none"))]
    cur = data.currency
    intro = "cost_intro_trial" if data.price_from == "trial" else "cost_intro"
    blocks.append(Para(w(intro, price=format_number(data.price_per_hour), currency=cur)))

    def money(v: Any) -> str:
        return f"{amount(v)} {cur}" if is_finite(v) else NA

    rows = []
    for s in data.summaries:
        c = cost(s, data.price_per_hour)
        measured = headline(s)
        title = w.title(s.workload)
        if "cost_per_imagenet_epoch" in c:
            if c.get("run_epoch_images"):
                rows.append([title, measured, w("cost_epoch", images=format_number(c["run_epoch_images"])),
                             money(c.get("cost_per_run_epoch"))])
            rows.append([title, measured, w("cost_imagenet"), money(c.get("cost_per_imagenet_epoch"))])
        if "cost_per_million_tokens" in c:
            rows.append([title, measured, w("cost_mtok"), money(c.get("cost_per_million_tokens"))])
        if c.get("cost_of_run") is not None:
            rows.append([title, format_duration(s.duration_s, w.lang), w("cost_run"), money(c.get("cost_of_run"))])
    blocks.append(Table([w("workload"), w("rate"), "", w("cost")], rows))
    return blocks
