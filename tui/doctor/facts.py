"""What the doctor looks at, gathered from this machine: `Facts` and `gather`.

The management CLI, NVML, the PCI bus, a torch probe child
(`python -m workloads.child.probe --doctor`), TensorFlow in its own child when
installed, disk space and the visible-devices variables. The torch child is the
slow part (seconds), so it runs in a thread beside the quick ones. torch is
never imported here.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from tui.telemetry import vendors
from tui.telemetry.sample import DeviceSample
from workloads.probe_report import ProbeReport

VISIBLE_DEVICE_VARS = ("CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
                       "ROCR_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "ASCEND_RT_VISIBLE_DEVICES",
                       "MUSA_VISIBLE_DEVICES", "MLU_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER")
CLI_TIMEOUT_S = 5.0
PROBE_TIMEOUT_S = 120.0


@dataclass
class Facts:
    """Everything the checks look at; built by `gather`, or by hand in tests."""

    cli_name: str | None = None
    cli_ok: bool | None = None
    cli_output: str = ""
    cli_error: str | None = None
    cli_gpu_count: int | None = None
    nvml_ok: bool | None = None
    nvml_error: str | None = None
    nvml_count: int | None = None
    nvml_driver: str | None = None
    nvml_errors: list[str] = field(default_factory=list)   # per-device problems ("GPU 1: GPU is lost")
    pci_vendors: list[str] = field(default_factory=list)   # one per accelerator on the bus
    probe: ProbeReport | None = None                       # the torch child's answer (--doctor)
    probe_error: str | None = None
    tf_installed: bool = False
    tf: ProbeReport | None = None                          # the TensorFlow child's answer (--tensorflow)
    tf_error: str | None = None
    disk_path: str = "."
    disk_free_bytes: int | None = None
    disk_total_bytes: int | None = None
    env: dict[str, str] = field(default_factory=dict)
    devices: list[DeviceSample] = field(default_factory=list)  # one reading of each card (NVML, CLI): who is busy


def _cwd_or_root() -> str:
    try:
        return os.getcwd()
    except OSError:  # the shell's directory was deleted under it
        return "/"


def gather_cli(facts: Facts, timeout: float = CLI_TIMEOUT_S, pci_root: str | None = None) -> None:
    from tui.telemetry import pci
    from tui.telemetry.cli_tool import run_bounded

    bus: set[str] | None = None
    for cli in vendors.CLIS:
        path = shutil.which(cli.exe)
        if path is None:
            continue
        if cli.pci_ids:   # a name two makers' tools share: this one only beside its maker's card
            bus = bus if bus is not None else {p.vendor_id for p in pci.scan(pci_root or pci.SYSFS_PCI)}
            if not vendors.fits_bus(cli, bus):
                continue
        facts.cli_name = cli.exe
        done = run_bounded([path, *cli.list_args], timeout)
        facts.cli_output = done.stdout
        if done.problem:
            facts.cli_ok, facts.cli_error = False, done.problem
        else:
            facts.cli_ok = True
            if cli.list_args == ("-L",):  # nvidia-smi's listing: one "GPU n: name (UUID: ...)" line per device
                facts.cli_gpu_count = sum(1 for line in done.stdout.splitlines() if re.match(r"\s*GPU \d+", line))
            elif cli.reader:
                _count_by_reader(facts, cli, timeout, pci_root)
        return


def _count_by_reader(facts: Facts, cli: vendors.ManagementCli, timeout: float, pci_root: str | None) -> None:
    """The cards a vendor table lists, as telemetry's reader reads it; its one-line problem when it reads none."""
    from tui.telemetry import pci
    from tui.telemetry.vendor_cli import VendorCliSource

    source = VendorCliSource(clis=(cli,), timeout=timeout, pci_root=pci_root or pci.SYSFS_PCI)
    try:
        devices, problems = source.read()
    finally:
        source.close()
    if devices:
        facts.cli_gpu_count = len(devices)
    elif problems:
        facts.cli_ok, facts.cli_error = False, problems[0]


def gather_nvml(facts: Facts, module: Any = None) -> None:
    from tui.telemetry.nvml import NvmlSource, _text

    source = NvmlSource(module=module)
    if not source.available():
        facts.nvml_ok, facts.nvml_error = False, source.unavailable_reason
        return
    try:
        facts.nvml_ok = True
        facts.nvml_count = source.query("nvmlDeviceGetCount")
        facts.nvml_driver = _text(source.query("nvmlSystemGetDriverVersion"))
        _devices, facts.nvml_errors = source.read()
    finally:
        source.close()


def gather_readings(facts: Facts) -> None:
    """One reading of every card, merged from NVML and the CLIs as the workbench reads them (no torch)."""
    from tui.telemetry.collect import default_sources
    from tui.telemetry.merge import merge
    from tui.telemetry.processes import attribute_device

    per_source = []
    for source in default_sources():
        try:
            if source.available():
                per_source.append(source.read()[0])
        except Exception:  # noqa: BLE001 - no reading leaves the busy check SKIPped, never the doctor dead
            pass
        finally:
            source.close()
    facts.devices = [attribute_device(d, ()) for d in merge(per_source, [])]   # whose processes hold each card


def gather(probe_timeout: float = PROBE_TIMEOUT_S, disk_path: str | None = None,
           on_progress: Callable[[str], None] | None = None) -> Facts:
    """Collect the facts; the slow torch child runs in parallel with the quick checks."""
    from tui.telemetry import pci
    from tui.telemetry.torch_probe import run_probe

    facts = Facts(disk_path=disk_path or _cwd_or_root())
    note = on_progress or (lambda _text: None)

    def probe() -> None:
        facts.probe, facts.probe_error = run_probe(["--doctor"], timeout=probe_timeout)

    worker = threading.Thread(target=probe, name="cardbench-doctor-probe", daemon=True)
    worker.start()
    note("management CLI")
    gather_cli(facts)
    note("NVML")
    gather_nvml(facts)
    facts.pci_vendors = [d.vendor for d in pci.scan()]
    note("device readings")
    gather_readings(facts)
    try:
        usage = shutil.disk_usage(facts.disk_path)
        facts.disk_free_bytes, facts.disk_total_bytes = usage.free, usage.total
    except OSError:
        pass
    facts.env = {k: os.environ[k] for k in VISIBLE_DEVICE_VARS if k in os.environ}
    facts.tf_installed = importlib.util.find_spec("tensorflow") is not None
    if facts.tf_installed:
        note("TensorFlow")
        facts.tf, facts.tf_error = run_probe(["--tensorflow"], timeout=probe_timeout)
    note("torch (child process)")
    worker.join(probe_timeout + 10)
    if worker.is_alive():
        facts.probe_error = f"torch probe: no answer within {probe_timeout:g} s"
    return facts
