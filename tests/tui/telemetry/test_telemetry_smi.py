"""The nvidia-smi-compatible CLI source: real CSV captures, N/A spellings, vendor quirks, hangs, failures."""

import re
import time

import pytest

from paths import FIXTURES
from fake_cli import csv_fixture_gpus, only_on_path, write_cli
from tui.telemetry.smi_csv import SmiCsvSource, parse_compute_apps, parse_value

MIB = 2**20


def test_cells_that_mean_not_available_are_none():
    for cell in ("[N/A]", "N/A", "[Not Supported]", "[Unknown Error]", "ERR!", "[GPU is lost]", ""):
        assert parse_value(cell, "float") is None, cell
    assert parse_value("0", "pct") == 0.0  # a real zero stays a zero


@pytest.mark.parametrize("name, kind, expected", [
    ("noheader-nounits-power.draw.txt", "watt", 36.18),
    ("noheader-nounits-temperature.gpu.tlimit-bracket-na.txt", "float", None),
    ("noheader-nounits-temperature.memory-bare-na.txt", "float", None),
])
def test_single_field_captures(name, kind, expected):
    cell = (FIXTURES / "nvidia-smi-csv" / name).read_text().strip()
    assert parse_value(cell, kind) == expected


def test_units_left_on_values_and_power_in_milliwatts():
    assert parse_value("93W", "watt") == 93.0
    assert parse_value("36180 mW", "watt") == 36.18
    assert parse_value("36180", "watt") == 36.18  # no single card draws 36 kW: it was mW
    assert parse_value("116MiB", "mib") == 116 * MIB
    assert parse_value("32 GiB", "mib") == 32 * 1024 * MIB
    assert parse_value("1.5 GHz", "mhz") == 1500.0
    assert parse_value("0x0000000000000044", "reasons") == ("power cap", "hw thermal")


def test_compute_apps_capture_with_units():
    text = (FIXTURES / "nvidia-smi-csv" / "query-compute-apps-h100-load-csv.txt").read_text()
    rows = [r.split(", ") for r in text.splitlines()[1:]]
    # the capture has extra columns; keep the four the source asks for
    asked = "\n".join(", ".join([r[2], r[5], r[6], r[7]]) for r in rows)
    apps = parse_compute_apps(asked)
    procs = apps["0000:00:09.0"]
    assert [p.pid for p in procs] == [11327, 11328, 11345]
    assert procs[2].name == "./gpu_burn" and procs[2].used_bytes == 15690 * MIB


def test_fake_nvidia_smi_printing_the_p100_capture(tmp_path, monkeypatch):
    gpus = csv_fixture_gpus((FIXTURES / "nvidia-smi-csv" / "query-gpu-tesla-p100-csv-nounits.csv").read_text())
    gpus[0]["pci.bus_id"] = "00000000:04:00.0"
    write_cli(tmp_path, "nvidia-smi", {"gpus": gpus, "apps": "00000000:04:00.0, 4242, python, 1542\n"})
    only_on_path(monkeypatch, tmp_path)
    source = SmiCsvSource()
    assert source.available() and source.name == "nvidia-smi"
    (d,), errors = source.read()
    assert errors == []
    assert d.name == "Tesla P100-PCIE-16GB"
    assert d.uuid == "GPU-ef1b2c9b-38d8-2090-2bd1-f567a3eb42a6"
    assert d.fan_pct is None                     # [N/A] in the capture
    assert d.pstate == "P0"
    assert d.mem_reserved_bytes == 103 * MIB
    assert d.mem_used_bytes == 0                 # a real zero, not N/A
    assert d.temperature_c == 37 and d.power_w == 28.16
    assert d.sm_clock_mhz == 405 and d.mem_clock_mhz == 715
    assert d.mem_total_bytes is None             # not in the capture: [N/A]
    assert d.processes[0].pid == 4242 and d.processes[0].used_bytes == 1542 * MIB
    assert d.source == "nvidia-smi"


def test_gb10_memory_na(tmp_path, monkeypatch):
    gpus = csv_fixture_gpus((FIXTURES / "nvidia-smi-csv" / "query-gpu-gb10-csv-na-memory.txt").read_text())
    write_cli(tmp_path, "nvidia-smi", {"gpus": gpus, "apps": ""})
    only_on_path(monkeypatch, tmp_path)
    (d,), _ = SmiCsvSource().read()
    assert d.index == 0 and d.name == "NVIDIA GB10"
    assert d.mem_total_bytes is None and d.mem_used_bytes is None


def _ixsmi_gpus():
    """Per-card values from the real ixsmi table, as a compatible CLI prints them: units left on."""
    table = (FIXTURES / "ixsmi" / "default-16x-bi-v150.txt").read_text()
    rows = re.findall(r"\|\s*(\d+)\s+(Iluvatar [\w-]+)\s+\|\s*(\S+)\s*\|\s*(\S+)\s+(\S+)\s*\|\n"
                      r"\|\s*(\S+)\s+(\S+)\s+(\S+)\s+(\S+) / (\S+)\s*\|\s*(\S+) / (\S+)\s*\|\s*(\S+)", table)
    gpus = []
    for (idx, name, bus, sm, mem, fan, temp, perf, pwr, cap, used, total, util) in rows:
        gpus.append({"index": idx, "name": name, "pci.bus_id": bus, "clocks.current.sm": sm,
                     "clocks.current.memory": mem, "fan.speed": fan, "temperature.gpu": temp, "pstate": perf,
                     "power.draw": pwr, "power.limit": cap, "memory.used": used, "memory.total": total,
                     "utilization.gpu": util, "driver_version": "4.1.0",
                     "ecc.errors.corrected.volatile.total": "[Not Supported]"})
    return gpus


def test_a_compatibility_cli_with_its_quirks(tmp_path, monkeypatch):
    gpus = _ixsmi_gpus()
    assert len(gpus) == 16
    # a compatible CLI that knows fewer fields and no process query
    invalid = ["memory.reserved", "clocks_event_reasons.active", "clocks_throttle_reasons.active",
               "remapped_rows.correctable", "retired_pages.single_bit_ecc.count", "pcie.link.gen.max"]
    write_cli(tmp_path, "ixsmi", {"gpus": gpus, "invalid": invalid, "apps": None})
    only_on_path(monkeypatch, tmp_path)
    source = SmiCsvSource()
    assert source.available() and source.name == "ixsmi"
    devices, errors = source.read()
    assert errors == []
    assert len(devices) == 16
    d0, d1 = devices[0], devices[1]
    assert d0.name == "Iluvatar BI-V150" and d0.bus_id == "0000:13:00.0" and d0.driver_version == "4.1.0"
    assert d0.power_w is None and d0.power_limit_w is None          # "N/A / N/A" on card 0
    assert d1.power_w == 93.0 and d1.power_limit_w == 350.0          # "93W / 350W"
    assert d0.mem_used_bytes == 116 * MIB and d0.mem_total_bytes == 32768 * MIB
    assert d0.sm_clock_mhz == 1500 and d0.mem_clock_mhz == 1600 and d0.temperature_c == 32
    assert d0.fan_pct == 0 and d0.pstate == "P0" and d0.util_gpu_pct == 0
    assert d0.ecc_corrected is None                                   # [Not Supported]
    assert d0.throttle_reasons is None and d0.mem_reserved_bytes is None
    assert d0.processes is None                                       # no process query in this CLI
    # the refused fields are remembered: the next tick asks once, with the working list
    log = tmp_path / "ixsmi.queries.log"
    log.unlink()
    source.read()
    assert len(log.read_text().splitlines()) == 1


def test_a_hung_cli_is_timed_out_and_reported(tmp_path, monkeypatch):
    write_cli(tmp_path, "nvidia-smi", {"hang": True, "gpus": []})
    only_on_path(monkeypatch, tmp_path)
    source = SmiCsvSource(timeout=0.5)
    start = time.monotonic()
    devices, errors = source.read()
    assert time.monotonic() - start < 5
    assert devices == []
    assert len(errors) == 1 and "timed out" in errors[0] and "nvidia-smi" in errors[0]


def test_a_failing_cli_is_reported_with_its_message(tmp_path, monkeypatch):
    message = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."
    write_cli(tmp_path, "nvidia-smi", {"fail": message, "code": 9, "gpus": []})
    only_on_path(monkeypatch, tmp_path)
    devices, errors = SmiCsvSource().read()
    assert devices == []
    assert errors == [f"nvidia-smi exit 9: {message}"]


def test_no_cli_on_path_is_absent_and_which_is_not_repeated(tmp_path, monkeypatch):
    only_on_path(monkeypatch, tmp_path)
    calls = []
    import tui.telemetry.smi_csv as smi

    real_which = smi.shutil.which
    monkeypatch.setattr(smi.shutil, "which", lambda name: calls.append(name) or real_which(name))
    source = SmiCsvSource()
    for _ in range(3):
        assert source.read() == ([], [])
    assert calls == ["nvidia-smi", "ixsmi"]
    assert "no nvidia-smi-compatible CLI" in source.describe()
