"""`cardbench devices [--json]`: one snapshot of every device and the host, printed once.

Like `nvidia-smi` or `nvitop --once`, but it works on any machine: with no GPU
at all it still prints the host and says which sources were looked for.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any, TextIO

from tui.telemetry.sample import DeviceSample, HostSample, Sample, fmt, fmt_bytes
from workloads.errors import first_line

TORCH_WAIT_S = 60.0


def snapshot(torch: bool = True, torch_wait: float = TORCH_WAIT_S) -> tuple[Sample, dict[str, str]]:
    """One merged sample and a one-line status per source (why an absent one is absent)."""
    from tui.telemetry.collect import Collector

    collector = Collector(torch_probe=torch)
    try:
        if collector.torch is not None:
            collector.torch.start()  # in parallel with the CLIs
        first = collector.collect(wait_for_torch=torch_wait if torch else 0.0)
        # host CPU % and IO rates are differences between two reads some time apart
        time.sleep(0.25)
        host = collector.host.read()
        sample = Sample(t=first.t, devices=first.devices, host=host, errors=first.errors, sources=first.sources)
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
        return "N/A"
    return f"{fmt(value, digits=digits)} / {fmt(limit, unit, digits)}"


def render_device(d: DeviceSample) -> list[str]:
    maker = d.pci_vendor or "maker N/A"
    head = f"[{d.index if d.index is not None else '?'}] {d.name or 'N/A'}"
    lines = [f"{head}   {maker}, bus {d.bus_id or 'N/A'}   (from {d.source or 'N/A'})"]
    cap = f"  capability {d.compute_capability}" if d.compute_capability else ""
    lines.append(f"    driver {fmt(d.driver_version)}  runtime {fmt(d.runtime_version)}{cap}")
    mem = f"{fmt_bytes(d.mem_used_bytes)} / {fmt_bytes(d.mem_total_bytes)}"
    if d.mem_used_pct is not None:
        mem += f" ({d.mem_used_pct:.0f}%)"
    if d.mem_reserved_bytes is not None:
        mem += f", reserved {fmt_bytes(d.mem_reserved_bytes)}"
    lines.append(f"    util {fmt(d.util_gpu_pct, '%')}  mem-bw {fmt(d.util_mem_pct, '%')}  memory {mem}")
    throttle = fmt(d.throttle_reasons) if d.throttle_reasons is not None else "N/A"
    lines.append(f"    temp {fmt(d.temperature_c, 'C')}  power {_pair(d.power_w, d.power_limit_w, 'W', 1)}  "
                 f"fan {fmt(d.fan_pct, '%')}  {fmt(d.pstate)}  clock events: {throttle}")
    lines.append(f"    clocks SM {_pair(d.sm_clock_mhz, d.sm_clock_max_mhz, 'MHz')}  "
                 f"mem {_pair(d.mem_clock_mhz, d.mem_clock_max_mhz, 'MHz')}")
    lines.append(f"    PCIe gen {_pair(d.pcie_gen, d.pcie_gen_max, '')}  width x{_pair(d.pcie_width, d.pcie_width_max, '')}  "
                 f"tx {fmt(d.pcie_tx_kbps, 'KB/s')}  rx {fmt(d.pcie_rx_kbps, 'KB/s')}")
    lines.append(f"    ECC volatile corrected {fmt(d.ecc_corrected)} uncorrected {fmt(d.ecc_uncorrected)}  "
                 f"retired pages {fmt(d.retired_pages)}  remapped rows {fmt(d.remapped_rows)}")
    if d.processes is None:
        lines.append("    processes: N/A")
    elif not d.processes:
        lines.append("    processes: none")
    else:
        for p in d.processes:
            lines.append(f"    process {fmt(p.pid)} {p.name or 'N/A'}  {fmt_bytes(p.used_bytes)}")
    return lines


def _uptime(seconds: float | None) -> str:
    if seconds is None:
        return "N/A"
    days, rest = divmod(int(seconds), 86400)
    return f"{days} d {rest // 3600} h" if days else f"{rest // 3600} h {rest % 3600 // 60} min"


def _rate(value: float | None) -> str:
    return "N/A" if value is None else f"{fmt_bytes(value)}/s"


def render_host(h: HostSample) -> list[str]:
    cores = f" of {h.cpu_count} logical cores" if h.cpu_count else ""
    return [
        f"Host {h.hostname or 'N/A'}",
        f"    CPU {fmt(h.cpu_pct, '%', 1)}{cores}  load {fmt(h.load1, digits=2)} {fmt(h.load5, digits=2)} "
        f"{fmt(h.load15, digits=2)}  uptime {_uptime(h.uptime_s)}",
        f"    memory {fmt_bytes(h.mem_used_bytes)} / {fmt_bytes(h.mem_total_bytes)}  "
        f"swap {fmt_bytes(h.swap_used_bytes)} / {fmt_bytes(h.swap_total_bytes)}",
        f"    disk {h.disk_path or ''} {fmt_bytes(h.disk_used_bytes)} used of {fmt_bytes(h.disk_total_bytes)} "
        f"({fmt_bytes(h.disk_free_bytes)} free)  read {_rate(h.disk_read_bps)}  write {_rate(h.disk_write_bps)}",
        f"    network sent {_rate(h.net_sent_bps)}  received {_rate(h.net_recv_bps)}",
    ]


def render(sample: Sample, status: dict[str, str]) -> str:
    stamp = time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(sample.t))
    lines = [f"cardbench devices   {stamp}", ""]
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
    return 0


if __name__ == "__main__":
    sys.exit(main("--json" in sys.argv[1:]))
