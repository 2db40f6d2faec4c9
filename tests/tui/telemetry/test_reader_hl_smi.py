"""Intel Gaudi's hl-smi read from real captures: the -Q CSV (2x HL-325L), tables of 8x HL-325L (1.21.0) and 8x HL-225
(1.16.0, 1.20.0 with process rows; 1.21.1 under load), the fallback from -Q to the table, bad input, and a fake hl-smi."""


import pytest

from fake_cli import only_on_path, write_script
from paths import FIXTURES
from reader_calls import answers, fixture, ok
from tui.telemetry import vendors
from tui.telemetry.cli_tool import CliResult
from tui.telemetry.readers import ReaderError, hl_smi
from tui.telemetry.readers.table import MIB
from tui.telemetry.sample import DeviceProcess
from tui.telemetry.vendor_cli import VendorCliSource

QUERY = "hl-smi/hl-smi-1.txt"
GAUDI3 = "hl-smi/hl-smi-3.txt"
G2_116 = "hl-smi/default-8x-hl225-1.16.0-process-row.txt"
G2_120 = "hl-smi/default-8x-hl225-1.20.0-process-row.txt"
G2_LOAD = "hl-smi/default-8x-hl225-1.21.1-under-load.txt"
DETAIL = "hl-smi/hl-smi-q-1.txt"
TABLES = [GAUDI3, G2_116, G2_120, G2_LOAD]


REFUSED = CliResult(1, "", "hl-smi: invalid option -- 'Q'", None)


def test_query_two_hl325l_with_units_in_every_value():
    d0, d1 = hl_smi.parse_query(fixture(QUERY))
    assert (d0.index, d0.name, d0.uuid) == (0, "HL-325L", "01P4-HL3090A0-18-U4V193-22-07-00")
    assert d0.driver_version == "1.22.1-97ec1a4"
    assert (d0.mem_used_bytes, d0.mem_total_bytes) == (672 * MIB, 131072 * MIB)
    assert (d0.power_w, d0.power_limit_w, d0.temperature_c) == (226.0, 850.0, 36.0)
    assert d0.util_gpu_pct == 0.0 and d0.util_kind is None       # utilization.aip: the device's busy share
    assert d0.bus_id is None and d0.processes is None            # the query asks neither
    assert (d1.index, d1.uuid) == (1, "01P4-HL3090A0-18-U4V298-03-04-04")
    assert (d1.power_w, d1.temperature_c, d1.mem_used_bytes) == (230.0, 39.0, 672 * MIB)


def test_table_eight_gaudi3_hl325l_with_na_process_rows():
    devices = hl_smi.parse_table(fixture(GAUDI3))
    assert [d.index for d in devices] == list(range(8))
    assert [d.bus_id for d in devices] == ["0000:e9:00.0", "0000:c1:00.0", "0000:b7:00.0", "0000:ad:00.0",
                                           "0000:a3:00.0", "0000:df:00.0", "0000:d5:00.0", "0000:cb:00.0"]
    assert [d.temperature_c for d in devices] == [36.0, 37.0, 36.0, 40.0, 36.0, 39.0, 36.0, 38.0]
    assert [d.power_w for d in devices] == [228.0, 226.0, 225.0, 228.0, 228.0, 229.0, 231.0, 227.0]
    for d in devices:
        assert (d.name, d.driver_version, d.pstate) == ("HL-325L", "1.20.1-366eb9c", "P0")
        assert d.power_limit_w == 900.0 and d.fan_pct is None
        assert (d.mem_used_bytes, d.mem_total_bytes) == (672 * MIB, 131072 * MIB)
        assert d.util_gpu_pct == 0.0 and d.util_kind is None
        assert d.ecc_uncorrected is None                         # "Uncor-Events" is not an ECC count
        assert d.health is None and d.uuid is None
        assert d.processes is None                               # an all-N/A row: no pid seen, not "none"


def test_table_hl225_1_16_old_layout_and_a_real_process_row():
    devices = hl_smi.parse_table(fixture(G2_116))
    assert [d.bus_id for d in devices] == ["0000:b3:00.0", "0000:b4:00.0", "0000:cc:00.0", "0000:cd:00.0",
                                           "0000:19:00.0", "0000:1a:00.0", "0000:43:00.0", "0000:44:00.0"]
    assert [d.temperature_c for d in devices] == [26.0, 26.0, 27.0, 26.0, 26.0, 31.0, 26.0, 25.0]
    assert [d.power_w for d in devices] == [82.0, 96.0, 71.0, 89.0, 91.0, 100.0, 101.0, 99.0]
    assert [d.mem_used_bytes // MIB for d in devices] == [768] * 6 + [27098, 768]
    for d in devices:
        assert (d.name, d.driver_version, d.power_limit_w) == ("HL-225", "1.16.0-94aac46", 600.0)
        assert d.mem_total_bytes == 98304 * MIB and d.util_gpu_pct == 0.0
        assert d.pstate is None and d.ecc_uncorrected == 0       # Perf N/A; "Volatile Uncorr. ECC" 0
    assert devices[6].processes == (DeviceProcess(618796, "ray::ServeRepli", 26330 * MIB),)   # a row with no closing "|"
    assert [d.processes for d in devices[:6] + devices[7:]] == [None] * 7


def test_table_hl225_1_20_process_row_with_trailing_spaces():
    devices = hl_smi.parse_table(fixture(G2_120))
    assert [d.power_w for d in devices] == [96.0, 78.0, 81.0, 92.0, 83.0, 80.0, 86.0, 100.0]
    assert [d.temperature_c for d in devices] == [22.0, 24.0, 25.0, 22.0, 22.0, 21.0, 25.0, 30.0]
    assert [d.mem_used_bytes // MIB for d in devices] == [768, 768, 768, 96565, 768, 96564, 768, 17538]
    assert {(d.name, d.driver_version, d.power_limit_w, d.mem_total_bytes) for d in devices} == {
        ("HL-225", "1.19.1-6f47ddd", 600.0, 98304 * MIB)}
    assert devices[7].processes == (DeviceProcess(107684, "ray::_RayTrainW", 16770 * MIB),)
    assert devices[3].processes is None and devices[5].processes is None  # 96 GB in use, no pid seen


def test_table_hl225_1_21_under_load():
    devices = hl_smi.parse_table(fixture(G2_LOAD))
    d0 = devices[0]
    assert (d0.bus_id, d0.util_gpu_pct, d0.power_w, d0.power_limit_w) == ("0000:33:00.0", 88.0, 525.0, 600.0)
    assert (d0.mem_used_bytes, d0.mem_total_bytes, d0.temperature_c) == (94963 * MIB, 98304 * MIB, 35.0)
    assert [d.util_gpu_pct for d in devices] == [88.0] + [0.0] * 7
    assert [d.mem_used_bytes // MIB for d in devices] == [94963, 768, 90351, 90356, 90353, 90352, 82507, 85926]
    assert [d.power_w for d in devices] == [525.0, 80.0, 81.0, 83.0, 91.0, 82.0, 85.0, 92.0]
    assert [d.temperature_c for d in devices] == [35.0, 34.0, 25.0, 23.0, 28.0, 29.0, 23.0, 27.0]
    assert {(d.driver_version, d.pstate) for d in devices} == {("1.21.1-bfcec49", "P0")}
    assert all(d.processes is None for d in devices)             # busy cards, every row N/A: unknown


def test_read_asks_the_query_first_and_stops_there():
    call = answers(ok(fixture(QUERY)))
    devices, problems = hl_smi.read(call)
    assert call.asked == [hl_smi.QUERY_ARGS] and problems == [] and len(devices) == 2
    assert hl_smi.QUERY_ARGS == ["-Q", "index,uuid,name,driver_version,memory.total,memory.used,memory.free,"
                                 "power.draw,power.max,temperature.aip,utilization.aip", "--format", "csv,noheader"]


@pytest.mark.parametrize("answer", [
    REFUSED,                                                     # a build without -Q
    ok("Invalid query type: power.max\n"),                       # a build whose -Q lacks a field
    ok(fixture(DETAIL)),                                         # something else entirely
    ok("0, 01P4-HL3090A0-18-U4V193-22-07-00, HL-325L, 1.22.1-97ec1a4, 131072 MiB, 672 MiB\n"),  # cut short
    ok("0, uuid, HL-325L, 1.22.1, lots, 672 MiB, 130400 MiB, 226 W, 850 W, 36 C, 0 %\n"),       # garbage value
])
def test_read_falls_back_to_the_table_when_the_query_fails(answer):
    call = answers(answer, ok(fixture(GAUDI3)))
    devices, problems = hl_smi.read(call)
    assert call.asked == [hl_smi.QUERY_ARGS, []] and problems == []
    assert [d.bus_id for d in devices][:2] == ["0000:e9:00.0", "0000:c1:00.0"]


def test_read_reports_a_failed_table_in_one_line():
    devices, problems = hl_smi.read(answers(REFUSED, CliResult(None, "", "", "hl-smi did not answer within 3 s")))
    assert devices == [] and problems == ["hl-smi did not answer within 3 s"]
    devices, problems = hl_smi.read(answers(REFUSED, ok("habanalabs driver not loaded\n")))
    assert devices == [] and len(problems) == 1 and problems[0].startswith("hl-smi: not hl-smi's table")


@pytest.mark.parametrize("text", [
    "",
    "garbage\nmore garbage\n",
    fixture(DETAIL),                                             # the -q detail is not the table
    fixture("xpu-smi/default-8x-p800-oam-xre5.0.21.21.txt"),     # another vendor's table of the same shape
    fixture("cnmon/default-2x-mlu370-x8-v5.10.13.txt"),
    "\n".join(fixture(GAUDI3).splitlines()[:7]) + "\n",          # the titles and no card
])
def test_not_an_hl_smi_table_raises(text):
    with pytest.raises(ReaderError):
        hl_smi.parse_table(text)


@pytest.mark.parametrize("text", ["", "garbage\n", fixture(GAUDI3), fixture("nvidia-smi-csv/noheader-nounits-power.draw.txt")])
def test_not_a_query_answer_raises(text):
    with pytest.raises(ReaderError):
        hl_smi.parse_query(text)


def test_half_a_table_keeps_the_whole_cards_and_says_so():
    cut = "\n".join(fixture(GAUDI3).splitlines()[:12]) + "\n"    # card 1's first row, not its second
    with pytest.raises(ReaderError, match="card 1 has 1 row"):
        hl_smi.parse_table(cut)
    devices, problems = hl_smi.read(answers(REFUSED, ok(cut)))
    assert [d.index for d in devices] == [0] and devices[0].processes is None
    assert len(problems) == 1 and problems[0].startswith("hl-smi: card 1 has 1 row(s) of its 2")


def test_memory_used_above_total_is_kept_and_said():
    text = fixture(QUERY).replace("672 MiB, 130400 MiB, 226 W", "140000 MiB, 0 MiB, 226 W")
    devices, problems = hl_smi.read(answers(ok(text)))
    assert devices[0].mem_used_bytes == 140000 * MIB and devices[0].over_total
    assert problems == ["hl-smi: card 0 (HL-325L) reports 140000 MiB used of 131072 MiB: memory used above total, "
                        "kept as read"]


def test_a_fake_hl_smi_without_query_through_vendor_cli_source(tmp_path, monkeypatch):
    body = (f'if [ "$1" = "-Q" ]; then echo "hl-smi: invalid option -- Q" >&2; exit 1; fi\n'
            f"cat '{FIXTURES / G2_120}'")
    write_script(tmp_path / "bin", "hl-smi", body)
    only_on_path(monkeypatch, tmp_path / "bin")
    source = VendorCliSource(clis=tuple(c for c in vendors.CLIS if c.exe == "hl-smi"))
    try:
        assert source.available() and source.name == "hl-smi"
        devices, problems = source.read()
        assert problems == [] and len(devices) == 8 and devices[0].source == "hl-smi"
        assert devices[7].processes == (DeviceProcess(107684, "ray::_RayTrainW", 16770 * MIB),)
    finally:
        source.close()


def test_a_fake_hl_smi_with_query_through_vendor_cli_source(tmp_path, monkeypatch):
    write_script(tmp_path / "bin", "hl-smi", f"cat '{FIXTURES / QUERY}'")
    only_on_path(monkeypatch, tmp_path / "bin")
    source = VendorCliSource(clis=tuple(c for c in vendors.CLIS if c.exe == "hl-smi"))
    try:
        devices, problems = source.read()
        assert problems == [] and [d.uuid for d in devices] == ["01P4-HL3090A0-18-U4V193-22-07-00",
                                                               "01P4-HL3090A0-18-U4V298-03-04-04"]
    finally:
        source.close()


@pytest.mark.parametrize("path", TABLES)
def test_read_never_raises_on_any_cut_of_a_table(path):
    text = fixture(path)
    for end in range(0, len(text), 5):
        devices, problems = hl_smi.read(answers(REFUSED, ok(text[:end])))
        assert devices or len(problems) == 1


def test_read_never_raises_on_any_cut_of_the_query():
    text = fixture(QUERY)
    for end in range(0, len(text)):
        devices, problems = hl_smi.read(answers(ok(text[:end]), ok(fixture(GAUDI3)[:end])))
        assert isinstance(devices, list) and len(problems) <= 1
