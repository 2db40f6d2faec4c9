"""Vendor JSON tools (rocm-smi, hy-smi, amd-smi) parsed from real captures, and run as fake executables."""

import pytest

from paths import FIXTURES
from fake_cli import only_on_path, write_script
from tui.doctor import Facts, gather_cli
from tui.report.smi import run_management_cli
from tui.telemetry.vendor_json import JsonFormatError, VendorJsonSource, parse_amd_smi, parse_rocm_style


def fixture(path):
    return (FIXTURES / path).read_text()


def test_rocm_smi_four_mi100():
    devices = parse_rocm_style(fixture("rocm-smi/json-mi100x4-rocm602-telegraf.json"), "rocm-smi")
    assert [d.index for d in devices] == [0, 1, 2, 3]
    d = devices[0]
    assert d.name == "Arcturus GL-XL [Instinct MI100]"
    assert d.bus_id == "0000:83:00.0"
    assert d.driver_version == "6.3.6"
    assert d.temperature_c == 53.0                       # edge sensor
    assert d.power_w == 36.0 and d.power_limit_w == 290.0
    assert d.util_gpu_pct == 0.0
    assert d.mem_total_bytes == 34342961152 and d.mem_used_bytes == 6750208
    assert d.sm_clock_mhz == 300 and d.mem_clock_mhz == 1200
    assert (d.pcie_gen, d.pcie_width) == (4, 16)          # "0 (16.0GT/s x16)"
    assert d.fan_pct is None and d.ecc_corrected is None  # not in this output: N/A, not 0
    assert d.source == "rocm-smi"


def test_rocm_smi_rx6700xt_leading_blank_line():
    (d,) = parse_rocm_style(fixture("rocm-smi/json-rx6700xt-rocm612-telegraf.json"), "rocm-smi")
    assert d.name == "Navi 22 [Radeon RX 6700/6700 XT / 6800M]"
    assert d.util_mem_pct == 0.0                          # read/write activity, not the allocation %
    assert d.mem_used_bytes == 1572745216
    assert d.sm_clock_mhz == 0.0                          # "(0Mhz)": an idle clock is a real zero


def test_hy_smi_json_with_missing_commas_is_repaired():
    devices = parse_rocm_style(fixture("hy-smi/json-bw-2card-malformed-missing-commas.txt"), "hy-smi")
    assert len(devices) == 2
    d0, d1 = devices
    assert d0.name == "BW"
    assert d0.power_w == 91.0 and d1.power_w == 84.0
    assert d0.util_gpu_pct == 0.0                         # "HCU use (%)"
    assert d0.util_mem_pct is None                        # "HCU memory use" is capacity, not bandwidth
    assert d0.mem_total_bytes == 65520 * 2**20 and d0.mem_used_bytes == 64169 * 2**20
    assert d0.temperature_c == 54.0
    assert d0.sm_clock_mhz == 1350 and d0.mem_clock_mhz == 1800
    assert (d0.pcie_gen, d0.pcie_width) == (5, 16)        # "32.0GT/s, x16 1100Mhz"


def test_rocm_smi_on_a_hygon_dcu():
    (d,) = parse_rocm_style(fixture("hy-smi/rocm-smi-json-hygon-dcu-dtk-24.04.3-gpustack.json"), "rocm-smi")
    assert d.name == "DCU xxxx"
    assert d.util_gpu_pct == 0.0 and d.power_w == 80.0
    assert d.mem_total_bytes == 65520 * 2**20 and d.mem_used_bytes == 2 * 2**20
    assert d.bus_id is None


def test_amd_smi_metric_with_static():
    (d,) = parse_amd_smi(fixture("amd-smi/metric-json-rx6600.json"), fixture("amd-smi/static-json-rx6600.json"))
    assert d.index == 0
    assert d.name == "Navi 23 [Radeon RX 6600/6600 XT"     # cut off in the capture, kept as found
    assert d.bus_id == "0000:0b:00.0"
    assert d.driver_version == "7.0.0-3-pve"
    assert d.util_gpu_pct == 1 and d.util_mem_pct == 0
    assert d.power_w == 6 and d.power_limit_w == 100
    assert d.sm_clock_mhz == 800 and d.sm_clock_max_mhz == 2750
    assert d.mem_clock_mhz == 541 and d.mem_clock_max_mhz == 875
    assert d.temperature_c == 36
    assert (d.pcie_gen, d.pcie_width, d.pcie_gen_max, d.pcie_width_max) == (4, 8, 4, 16)
    assert d.ecc_corrected == 0 and d.ecc_uncorrected == 0
    assert d.mem_total_bytes == 8176 * 2**20 and d.mem_used_bytes == 202 * 2**20
    assert d.throttle_reasons == ()                        # "UNTHROTTLED"
    assert d.fan_pct == 0.0


def test_amd_smi_metric_alone_and_static_in_a_gpu_data_wrapper():
    (d,) = parse_amd_smi(fixture("amd-smi/metric-json-rx6600.json"), fixture("amd-smi/static-json-mi210.json"))
    assert d.name == "AMD Instinct MI210"                   # static {"gpu_data": [...]} shape
    (d,) = parse_amd_smi(fixture("amd-smi/metric-json-rx6600.json"))
    assert d.name is None and d.power_w == 6


def test_not_json_raises_a_format_error():
    with pytest.raises(JsonFormatError):
        parse_rocm_style("ERROR: GPU[0] : Unable to open sysfs", "rocm-smi")


def test_fake_rocm_smi_on_path(tmp_path, monkeypatch):
    path = FIXTURES / "rocm-smi" / "json-mi100x4-rocm602-telegraf.json"
    write_script(tmp_path, "rocm-smi", f"cat '{path}'")
    only_on_path(monkeypatch, tmp_path)
    source = VendorJsonSource()
    assert source.available() and source.name == "rocm-smi"
    devices, errors = source.read()
    assert errors == [] and len(devices) == 4


def test_fake_amd_smi_reads_static_once(tmp_path, monkeypatch):
    metric, static = FIXTURES / "amd-smi" / "metric-json-rx6600.json", FIXTURES / "amd-smi" / "static-json-rx6600.json"
    counter = tmp_path / "static-calls"
    write_script(tmp_path, "amd-smi",
                 f'if [ "$1" = static ]; then echo x >> "{counter}"; cat "{static}"; else cat "{metric}"; fi')
    only_on_path(monkeypatch, tmp_path)
    source = VendorJsonSource()
    for _ in range(3):
        (d,), errors = source.read()
        assert errors == [] and d.name.startswith("Navi 23")
    assert len(counter.read_text().splitlines()) == 1


def test_hung_and_failing_vendor_tools_are_reported(tmp_path, monkeypatch):
    write_script(tmp_path, "hy-smi", "sleep 30")
    only_on_path(monkeypatch, tmp_path)
    devices, errors = VendorJsonSource(timeout=0.5).read()
    assert devices == [] and "timed out" in errors[0]
    write_script(tmp_path, "hy-smi", "echo 'hy-smi: no DCU found' >&2; exit 3")
    devices, errors = VendorJsonSource().read()
    assert devices == [] and errors == ["hy-smi exit 3: hy-smi: no DCU found"]
    write_script(tmp_path, "hy-smi", "echo 'not json at all'")
    devices, errors = VendorJsonSource().read()
    assert devices == [] and errors[0].startswith("hy-smi: not JSON")


def test_a_hygon_box_with_rocm_smi_and_hy_smi_names_one_tool_everywhere(tmp_path, monkeypatch):
    """The vendor table's one order: the doctor, the telemetry and the report's screenshot all run rocm-smi."""
    rocm = FIXTURES / "hy-smi" / "rocm-smi-json-hygon-dcu-dtk-24.04.3-gpustack.json"
    write_script(tmp_path, "rocm-smi", f'case "$*" in *--json*) cat "{rocm}";; *) echo "rocm-smi table";; esac')
    write_script(tmp_path, "hy-smi", 'echo "hy-smi table"')
    only_on_path(monkeypatch, tmp_path)
    facts = Facts()
    gather_cli(facts)
    assert (facts.cli_name, facts.cli_output.strip()) == ("rocm-smi", "rocm-smi table")
    source = VendorJsonSource()
    (d,), errors = source.read()
    assert source.name == "rocm-smi" and errors == [] and d.name == "DCU xxxx"
    assert run_management_cli(timeout=5).tool == "rocm-smi"
