"""Moore Threads' mthreads-gmi: --query --json and the 1.8 / 1.12 / 2.0 / 2.4 tables from real captures, bad input,
the JSON -> table fallback, and a fake mthreads-gmi through VendorCliSource."""


import pytest

from fake_cli import only_on_path, write_script
from paths import FIXTURES
from reader_calls import answers, fixture, ok
from tui.telemetry import vendors
from tui.telemetry.cli_tool import CliResult
from tui.telemetry.readers import ReaderError, mthreads_gmi
from tui.telemetry.readers.table import MIB
from tui.telemetry.sample import DeviceProcess
from tui.telemetry.vendor_cli import VendorCliSource

S5000_TABLE = "mthreads-gmi/default-8x-s5000-2.4.1-no-processes.txt"
S80_XORG = "mthreads-gmi/default-s80-2.0.0-xorg-processes.txt"
S4000_OVERFULL = "mthreads-gmi/mthreads-gmi-3.txt"
S80_1_8 = "mthreads-gmi/mthreads-gmi-5.txt"
S5000_JSON = "mthreads-gmi/mthreads-gmi-json-1.txt"


def test_json_two_s5000_keys_with_trailing_spaces_and_values_with_units():
    d0, d1 = mthreads_gmi.parse_json(fixture(S5000_JSON))
    assert (d0.index, d0.name, d0.bus_id) == (0, "MTT S5000", "0000:2a:00.0")
    assert d0.uuid == "399282a8-ba01-1475-893c-2eeca9e302f5" and d0.driver_version == "3.3.5-server"
    assert (d0.mem_used_bytes, d0.mem_total_bytes) == (0, 81920 * MIB)
    assert d0.util_gpu_pct == 0.0 and d0.temperature_c == 27.0
    assert (d0.power_w, d0.power_limit_w) == (96.66, 950.0)      # "Power Draw " has a trailing space
    assert d0.processes is None and d0.health is None             # the JSON lists neither
    # the second object was trimmed by its author: what it lacks stays N/A
    assert (d1.index, d1.name, d1.bus_id, d1.uuid) == (1, "MTT S5000", None, "5ebdeb63-ba7a-5904-4f16-495b3e1de6c8")
    assert (d1.mem_used_bytes, d1.mem_total_bytes, d1.temperature_c) == (0, 81920 * MIB, 26.0)
    assert (d1.power_w, d1.power_limit_w, d1.util_gpu_pct) == (97.09, None, 0.0)


def test_table_2_4_eight_s5000_with_perf():
    devices = mthreads_gmi.parse_table(fixture(S5000_TABLE))
    assert [d.index for d in devices] == list(range(8))
    assert [d.bus_id for d in devices] == ["0000:18:00.0", "0000:3a:00.0", "0000:4b:00.0", "0000:5c:00.0",
                                           "0000:9a:00.0", "0000:ba:00.0", "0000:ca:00.0", "0000:da:00.0"]
    assert [d.temperature_c for d in devices] == [48.0, 48.0, 49.0, 48.0, 48.0, 50.0, 48.0, 49.0]
    d = devices[0]
    assert (d.name, d.driver_version, d.pstate) == ("MTT S5000", "5.1.0-server", "P0")
    assert (d.util_gpu_pct, d.mem_used_bytes, d.mem_total_bytes) == (0.0, 0, 81920 * MIB)
    assert (d.pcie_width, d.pcie_width_max) == (16, 16)
    assert d.power_w is None and d.power_limit_w is None          # the table has no power column
    assert all(x.processes == () for x in devices)                # "No running processes found"


def test_table_2_0_s80_with_xorg_processes():
    (d,) = mthreads_gmi.parse_table(fixture(S80_XORG))
    assert (d.index, d.name, d.bus_id, d.driver_version) == (0, "MTT S80", "0000:01:00.0", "3.0.0")
    assert (d.util_gpu_pct, d.mem_used_bytes, d.mem_total_bytes) == (0.0, 662 * MIB, 16384 * MIB)
    assert (d.temperature_c, d.pstate, d.pcie_width, d.pcie_width_max) == (41.0, None, 16, 16)
    assert d.power_w is None
    assert d.processes == (DeviceProcess(1123, "/usr/lib/xorg/Xorg", 134 * MIB),
                           DeviceProcess(1361, "/usr/sbin/unity-greeter", 1 * MIB))


def test_table_1_12_s4000_used_above_total_is_kept_and_said():
    (d,) = mthreads_gmi.parse_table(fixture(S4000_OVERFULL))
    assert (d.index, d.name, d.bus_id, d.driver_version) == (0, "MTT S4000", "0000:08:00.0", "1.2.0")
    assert (d.mem_used_bytes, d.mem_total_bytes) == (44302 * MIB, 32768 * MIB)   # never clipped
    assert (d.util_gpu_pct, d.temperature_c, d.pcie_width) == (88.0, 65.0, 16)
    assert d.processes is None                                    # the capture stops after the card
    devices, problems = mthreads_gmi.read(answers(CliResult(2, "", "unknown option --json", "exit 2"),
                                                  ok(fixture(S4000_OVERFULL))))
    assert devices[0].mem_used_bytes == 44302 * MIB
    assert len(problems) == 1 and "card 0 (MTT S4000)" in problems[0] and "44302 MiB used of 32768 MiB" in problems[0]
    assert "IOMMU" in problems[0]


def test_table_1_8_two_row_layout_cut_before_its_process_rows():
    (d,) = mthreads_gmi.parse_table(fixture(S80_1_8))
    assert (d.index, d.name, d.bus_id, d.driver_version) == (0, "MTT S80", "0000:01:00.0", "2.5.0")
    assert (d.util_gpu_pct, d.mem_used_bytes, d.mem_total_bytes) == (0.0, 92 * MIB, 16384 * MIB)
    assert (d.temperature_c, d.pcie_width, d.pcie_width_max, d.pstate) == (54.0, 16, 16, None)
    assert d.processes is None                                    # the block is cut before its rows: unknown


def test_read_prefers_json_and_falls_back_to_the_table():
    call = answers(ok(fixture(S5000_JSON)))
    devices, problems = mthreads_gmi.read(call)
    assert call.asked == [["--query", "--json"]] and len(devices) == 2 and problems == []
    # an older build that answers --json with its table (exit 0): the table is read from the plain call
    call = answers(ok(fixture(S80_XORG)), ok(fixture(S80_XORG)))
    devices, problems = mthreads_gmi.read(call)
    assert call.asked == [["--query", "--json"], []] and devices[0].processes and problems == []
    call = answers(CliResult(None, "", "", "mthreads-gmi did not answer within 3 s (timed out, killed)"),
                   ok(fixture(S5000_TABLE)))
    devices, problems = mthreads_gmi.read(call)
    assert len(devices) == 8 and problems == []


def test_read_says_in_one_line_when_neither_form_is_read():
    failed = CliResult(1, "", "mthreads-gmi: failed to initialize MTML", "mthreads-gmi exit 1: failed to initialize MTML")
    devices, problems = mthreads_gmi.read(answers(failed, failed))
    assert devices == [] and problems == ["mthreads-gmi exit 1: failed to initialize MTML"]
    devices, problems = mthreads_gmi.read(answers(ok("Segmentation fault"), ok("Segmentation fault")))
    assert devices == [] and len(problems) == 1 and problems[0].startswith("mthreads-gmi: not mthreads-gmi's table")


@pytest.mark.parametrize("text", [
    "", "garbage\n", "not json {", "[]", '{"GPU": []}', '{"Driver Version": "3.3.5"}',
    (FIXTURES / "cnmon" / "cnmon-3.txt").read_text(),
])
def test_not_mthreads_gmi_json_raises(text):
    with pytest.raises(ReaderError):
        mthreads_gmi.parse_json(text)


@pytest.mark.parametrize("text", [
    "", "garbage\nmore\n",
    (FIXTURES / "cnmon" / "cnmon-3.txt").read_text(),              # another vendor's table
    "\n".join(fixture(S80_XORG).splitlines()[:8]),                 # the titles, cut before any card
    fixture(S80_XORG).replace("0    MTT S80 ", "?    MTT S80 "),    # a card row without its ID
])
def test_not_an_mthreads_gmi_table_raises(text):
    with pytest.raises(ReaderError):
        mthreads_gmi.parse_table(text)


def test_a_process_row_it_does_not_understand_makes_processes_unknown():
    text = fixture(S80_XORG).replace("134MiB", "lots")
    assert mthreads_gmi.parse_table(text)[0].processes is None


def test_a_fake_mthreads_gmi_on_path_through_vendor_cli_source(tmp_path, monkeypatch):
    table = FIXTURES / S80_XORG
    write_script(tmp_path, "mthreads-gmi",
                 f'case "$*" in *--json*) echo "unknown option: --json" >&2; exit 2;; *) cat "{table}";; esac')
    only_on_path(monkeypatch, tmp_path)
    source = VendorCliSource(clis=tuple(c for c in vendors.CLIS if c.exe == "mthreads-gmi"))
    try:
        assert source.available() and source.name == "mthreads-gmi"
        (d,), problems = source.read()
        assert problems == [] and d.source == "mthreads-gmi"
        assert (d.name, d.mem_used_bytes, len(d.processes)) == ("MTT S80", 662 * MIB, 2)
    finally:
        source.close()


@pytest.mark.parametrize("path", [S5000_TABLE, S80_XORG, S4000_OVERFULL, S80_1_8, S5000_JSON])
def test_read_never_raises_on_any_cut_of_a_capture(path):
    text = fixture(path)
    for end in range(0, len(text), 7):
        devices, problems = mthreads_gmi.read(answers(ok(text[:end]), ok(text[:end])))
        assert devices or len(problems) == 1


def test_a_last_line_cut_mid_figure_is_not_read():
    text = fixture(S4000_OVERFULL)
    cut = text[:text.index("|88%") + 2]                            # "|8": a tool killed mid-print
    with pytest.raises(ReaderError):
        mthreads_gmi.parse_table(cut)
    devices, problems = mthreads_gmi.read(answers(ok(cut), ok(cut)))
    assert devices == [] and len(problems) == 1                    # never a util of 8%
