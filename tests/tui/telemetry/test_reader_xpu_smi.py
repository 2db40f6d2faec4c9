"""Kunlunxin's xpu_smi read from real captures (XRE 5.0.21.21 8x P800, XRE 4.31 2x R300), Intel's xpu-smi refused,
bad input, and through a fake xpu_smi on PATH."""


import pytest

from fake_cli import only_on_path, write_script
from paths import FIXTURES
from reader_calls import answers, fixture, ok
from tui.telemetry import vendors
from tui.telemetry.cli_tool import CliResult
from tui.telemetry.readers import ReaderError, xpu_smi
from tui.telemetry.readers.table import MIB
from tui.telemetry.vendor_cli import VendorCliSource

XRE5 = "xpu-smi/default-8x-p800-oam-xre5.0.21.21.txt"
XRE4 = "xpu-smi/xpu-smi-2.txt"
INTEL_TABLE = "xpu-smi/intel-xpu-smi-default-1x-arc-b580-v2.0.txt"
INTEL_DISCOVERY = "xpu-smi/intel-xpu-smi-discovery-arc-b580.txt"
INTEL_DUMP = "xpu-smi/intel-xpu-smi-dump-csv.txt"


def test_xre5_eight_p800_oam_figure_by_figure():
    devices = xpu_smi.parse_table(fixture(XRE5))
    assert [d.index for d in devices] == list(range(8))
    assert [d.bus_id for d in devices] == ["0000:03:00.0", "0000:05:00.0", "0000:63:00.0", "0000:65:00.0",
                                           "0000:83:00.0", "0000:85:00.0", "0000:a3:00.0", "0000:a5:00.0"]
    assert [d.temperature_c for d in devices] == [37.0, 41.0, 36.0, 36.0, 40.0, 40.0, 39.0, 40.0]
    assert [d.power_w for d in devices] == [88.0, 90.0, 89.0, 89.0, 88.0, 90.0, 90.0, 87.0]
    for d in devices:
        assert d.name == "P800 OAM"
        assert (d.driver_version, d.runtime_version) == ("5.0.21.21", "5.0.21")
        assert d.power_limit_w == 400.0
        assert d.util_gpu_pct == 0.0 and d.util_kind is None        # XPU-Util: the device's busy share
        assert (d.mem_used_bytes, d.mem_total_bytes) == (0, 98304 * MIB)   # Memory-Usage, never L3's 96 MiB
        assert d.fan_pct is None and d.pstate is None                # 'N/A' in both
        assert d.ecc_uncorrected == 0
        assert d.health is None and d.uuid is None                   # the table has neither
        assert d.processes == ()                                     # "No running processes found"


def test_xre4_two_r300_devices_table():
    devices = xpu_smi.parse_table(fixture(XRE4))
    assert [d.index for d in devices] == [0, 1]
    d0, d1 = devices
    assert (d0.name, d0.bus_id, d1.bus_id) == ("R300", "0000:53:00.0", "0000:56:00.0")
    for d in devices:
        assert (d.driver_version, d.runtime_version) == ("4.0", "4.31")
        assert d.util_gpu_pct == 0.0 and d.util_kind is None         # UseRate
        assert (d.mem_used_bytes, d.mem_total_bytes) == (0, 32768 * MIB)   # Memory "0 / 32768 MB", not L3's 63 MB
        assert d.temperature_c is None and d.power_w is None and d.power_limit_w is None   # XRE 4 prints neither
        assert d.processes == ()                                     # a PROCESSES table with no row


def test_l3_is_never_read_as_device_memory():
    text = fixture(XRE5).replace("|      0MiB /    96MiB |", "|     90MiB /    96MiB |")
    assert all(d.mem_used_bytes == 0 for d in xpu_smi.parse_table(text))
    text = fixture(XRE4).replace("| 0 / 63 MB |", "| 9 / 63 MB |")
    assert all(d.mem_used_bytes == 0 for d in xpu_smi.parse_table(text))


def test_process_rows_are_unknown_and_no_process_block_is_none():
    row = "|    0   N/A  N/A      4242      C   python                           1024MiB |"
    text = fixture(XRE5).replace("|  No running processes found                                                 |", row)
    assert all(d.processes is None for d in xpu_smi.parse_table(text))
    text = fixture(XRE5).split("\n\n+---")[0] + "\n"
    assert [d.processes for d in xpu_smi.parse_table(text)] == [None] * 8
    text = fixture(XRE4).split("  PROCESSES")[0]
    assert [d.processes for d in xpu_smi.parse_table(text)] == [None, None]


@pytest.mark.parametrize("path", [INTEL_TABLE, INTEL_DISCOVERY, INTEL_DUMP])
def test_intels_xpu_smi_is_refused_by_name(path):
    with pytest.raises(ReaderError, match="Intel's xpu-smi"):
        xpu_smi.parse_table(fixture(path))
    devices, problems = xpu_smi.read(answers(ok(fixture(path))))
    assert devices == [] and len(problems) == 1 and "not Kunlunxin's" in problems[0]


@pytest.mark.parametrize("text", [
    "",
    "garbage\nmore garbage\n",
    "xpu_smi: command not found\n",
    (FIXTURES / "hl-smi" / "hl-smi-3.txt").read_text(),           # another vendor's table of the same shape
    (FIXTURES / "cnmon" / "default-2x-mlu370-x8-v5.10.13.txt").read_text(),
    "Runtime Version: 4.31\nDriver Version: 4.0\n  DEVICES\n",     # XRE 4's titles, no table
])
def test_not_an_xpu_smi_table_raises(text):
    with pytest.raises(ReaderError):
        xpu_smi.parse_table(text)


def test_half_a_table_keeps_the_whole_cards_and_says_so():
    lines = fixture(XRE5).splitlines()
    cut = "\n".join(lines[:14]) + "\n"                       # card 1's first two rows, not its L3 row
    with pytest.raises(ReaderError, match="1 has 2 row"):
        xpu_smi.parse_table(cut)
    devices, problems = xpu_smi.read(answers(ok(cut)))
    assert [d.index for d in devices] == [0] and devices[0].processes is None
    assert len(problems) == 1 and problems[0].startswith("xpu_smi: card 1 has 2 row(s) of its 3")


def test_a_last_line_without_newline_is_not_read():
    text = fixture(XRE4).split("-----\n  VIDEO")[0]
    cut = text[:text.rindex("32768 MB")] + "32"             # card 1's Memory cut mid-figure, no newline
    devices = xpu_smi.parse_table(cut)
    assert [d.index for d in devices] == [0]


def test_memory_used_above_total_is_kept_and_said():
    text = fixture(XRE5).replace("|      0MiB / 98304MiB |      0%      Default |\n|", "|  99000MiB / 98304MiB |"
                                 "      0%      Default |\n|", 1)
    devices, problems = xpu_smi.read(answers(ok(text)))
    assert devices[0].mem_used_bytes == 99000 * MIB and devices[0].over_total
    assert problems == ["xpu_smi: card 0 (P800 OAM) reports 99000 MiB used of 98304 MiB: memory used above total, "
                        "kept as read"]


def test_read_asks_the_default_output_and_reports_failures_in_one_line():
    call = answers(ok(fixture(XRE5)))
    devices, problems = xpu_smi.read(call)
    assert call.asked == [[]] and len(devices) == 8 and problems == []
    devices, problems = xpu_smi.read(answers(CliResult(None, "", "", "xpu_smi did not answer within 3 s")))
    assert devices == [] and problems == ["xpu_smi did not answer within 3 s"]
    devices, problems = xpu_smi.read(answers(ok("no xpu device found\n")))
    assert devices == [] and len(problems) == 1 and problems[0].startswith("xpu_smi: not Kunlunxin's")


def test_a_fake_xpu_smi_on_path_through_vendor_cli_source(tmp_path, monkeypatch):
    write_script(tmp_path / "bin", "xpu_smi", f"cat '{FIXTURES / XRE5}'")
    only_on_path(monkeypatch, tmp_path / "bin")
    source = VendorCliSource(clis=tuple(c for c in vendors.CLIS if c.exe == "xpu_smi"))
    try:
        assert source.available() and source.name == "xpu_smi"
        devices, problems = source.read()
        assert problems == [] and len(devices) == 8
        assert devices[7].bus_id == "0000:a5:00.0" and devices[0].source == "xpu_smi"
    finally:
        source.close()


@pytest.mark.parametrize("path", [XRE5, XRE4, INTEL_TABLE])
def test_read_never_raises_on_any_cut_of_a_capture(path):
    text = fixture(path)
    for end in range(0, len(text), 5):
        devices, problems = xpu_smi.read(answers(ok(text[:end])))
        assert devices or len(problems) == 1
