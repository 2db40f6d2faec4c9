"""`cardbench devices [--json]`: one snapshot of every device and the host, printed once.

Like `nvidia-smi` or `nvitop --once`, but it works on any machine: with no GPU
at all it still prints the host and says which sources were looked for.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any, TextIO

from workloads.facts.formatting import device_label, format_bytes, format_duration, rate, reading, utc
from workloads.facts.missing import NA
from tui.telemetry.sample import DeviceSample, HostSample, Sample
from workloads.errors import first_line

TORCH_WAIT_S = 60.0


def snapshot(torch: bool = True, torch_wait: float = TORCH_WAIT_S) -> tuple[Sample, dict[str, str]]:
    """One merged sample and a one-line status per source (why an absent one is absent)."""
    from tui.telemetry.collect import Collector
    from tui.telemetry.processes import attribute

    collector = Collector(torch_probe=torch)
    try:
        if collector.torch is not None:
            collector.torch.start()  # in parallel with the CLIs
        first = collector.collect(wait_for_torch=torch_wait if torch else 0.0)
        # host CPU % and IO rates are differences between two reads some time apart
        time.sleep(0.25)
        host = collector.host.read()
        sample = attribute(Sample(t=first.t, devices=first.devices, host=host, errors=first.errors,
                                  sources=first.sources))   # whose each card's processes are (no workload runs)
        status = {s.name: _describe(s) for s in collector.sources}
        if collector.torch is not None:
            status["torch"] = _describe(collector.torch)
        return sample, status
    finally:
        collector.close()


def _describe(source: Any) -> str:
    try:
        return str(source.describe())
    except Exception as exc:  # noqa: BLE001
        return first_line(exc, typed=True)


def _pair(value: Any, limit: Any, unit: str, digits: int = 0) -> str:
    if value is None and limit is None:
        return NA
    return f"{reading(value, digits=digits)} / {reading(limit, unit, digits)}"


def render_device(d: DeviceSample) -> list[str]:
    maker = d.pci_vendor or f"maker {NA}"
    health = f"   health: {d.health}" if d.health is not None else ""   # the tool's own word for the card
    lines = [f"{device_label(d.index, d.name)}   {maker}, bus {d.bus_id or NA}   (from {d.source or NA}){health}"]
    cap = f"  capability {d.compute_capability}" if d.compute_capability else ""
    lines.append(f"    driver {reading(d.driver_version)}  runtime {reading(d.runtime_version)}{cap}")
    mem = f"{format_bytes(d.mem_used_bytes)} / {format_bytes(d.mem_total_bytes)}"
    if d.mem_used_pct is not None:
        mem += f" ({reading(d.mem_used_pct, '%')})"
    if d.mem_reserved_bytes is not None:
        mem += f", reserved {format_bytes(d.mem_reserved_bytes)}"
    util = reading(d.util_gpu_pct, '%') + (f" {d.util_kind}" if d.util_kind and d.util_gpu_pct is not None else "")
    lines.append(f"    util {util}  mem-bw {reading(d.util_mem_pct, '%')}  memory {mem}")
    throttle = reading(d.throttle_reasons) if d.throttle_reasons is not None else NA
    lines.append(f"    temp {reading(d.temperature_c, 'C')}  power {_pair(d.power_w, d.power_limit_w, 'W', 1)}  "
                 f"fan {reading(d.fan_pct, '%')}  {reading(d.pstate)}  clock events: {throttle}")
    lines.append(f"    clocks SM {_pair(d.sm_clock_mhz, d.sm_clock_max_mhz, 'MHz')}  "
                 f"mem {_pair(d.mem_clock_mhz, d.mem_clock_max_mhz, 'MHz')}")
    lines.append(f"    PCIe gen {_pair(d.pcie_gen, d.pcie_gen_max, '')}  width x{_pair(d.pcie_width, d.pcie_width_max, '')}  "
                 f"tx {reading(d.pcie_tx_kbps, 'KB/s')}  rx {reading(d.pcie_rx_kbps, 'KB/s')}")
    lines.append(f"    ECC volatile corrected {reading(d.ecc_corrected)} uncorrected {reading(d.ecc_uncorrected)}  "
                 f"retired pages {reading(d.retired_pages)}  remapped rows {reading(d.remapped_rows)}")
    if d.processes is None:
        lines.append(f"    processes: {NA}")
    elif not d.processes:
        lines.append("    processes: none")
    else:
        for p in d.processes:
            owner = f"  [{p.owner}]" if p.owner else ""   # cardbench's word for whose it is
            lines.append(f"    process {reading(p.pid)} {p.name or NA}  {format_bytes(p.used_bytes)}{owner}")
    return lines


def render_host(h: HostSample) -> list[str]:
    cores = f" of {h.cpu_count} logical cores" if h.cpu_count else ""
    return [
        f"Host {h.hostname or NA}",
        f"    CPU {reading(h.cpu_pct, '%', 1)}{cores}  load {reading(h.load1, digits=2)} {reading(h.load5, digits=2)} "
        f"{reading(h.load15, digits=2)}  uptime {format_duration(h.uptime_s)}",
        f"    memory {format_bytes(h.mem_used_bytes)} / {format_bytes(h.mem_total_bytes)}  "
        f"swap {format_bytes(h.swap_used_bytes)} / {format_bytes(h.swap_total_bytes)}",
        f"    disk {h.disk_path or ''} {format_bytes(h.disk_used_bytes)} used of {format_bytes(h.disk_total_bytes)} "
        f"({format_bytes(h.disk_free_bytes)} free)  read {rate(h.disk_read_bps, 'B/s')}  "
        f"write {rate(h.disk_write_bps, 'B/s')}",
        f"    network sent {rate(h.net_sent_bps, 'B/s')}  received {rate(h.net_recv_bps, 'B/s')}",
    ]


def render(sample: Sample, status: dict[str, str]) -> str:
    lines = [f"cardbench devices   {utc(sample.t)}", ""]
    if sample.devices:
        for d in sample.devices:
            lines.extend(render_device(d))
            lines.append("")
    else:
        lines += ["No accelerator found (every device field N/A); sources tried are listed below.", ""]
    lines.extend(render_host(sample.host))
    lines.append("")
    lines.append("Sources")
    for name, text in status.items():
        lines.append(f"    {name}: {text}")
    for err in sample.errors:
        lines.append(f"    problem: {err}")
    return "\n".join(lines)


def main(as_json: bool = False, out: TextIO | None = None, torch: bool = True) -> int:
    out = out or sys.stdout
    try:
        sample, status = snapshot(torch=torch)
    except KeyboardInterrupt:
        return 130
    if as_json:
        payload = sample.to_dict()
        payload["source_status"] = status
        out.write(json.dumps(payload, indent=2) + "\n")
    else:
        out.write(render(sample, status) + "\n")
        from tui.trial.clock import left_line  # the trial's time left, when `cardbench trial` set one

        trial = left_line(warn=lambda line: print(f"cardbench devices: {line}", file=sys.stderr))
        if trial:
            out.write(trial + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main("--json" in sys.argv[1:]))
