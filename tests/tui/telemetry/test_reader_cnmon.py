"""Cambricon's cnmon table read from real captures (5.10.13, 5.10.31, 4.20.11), bad input, and through a fake cnmon."""


import pytest

from fake_cli import only_on_path, write_script
from paths import FIXTURES
from reader_calls import answers, fixture, ok
from tui.telemetry import vendors
from tui.telemetry.cli_tool import CliResult
from tui.telemetry.readers import ReaderError, cnmon
from tui.telemetry.readers.table import MIB
from tui.telemetry.vendor_cli import VendorCliSource

V5 = "cnmon/default-2x-mlu370-x8-v5.10.13.txt"
V5_8 = "cnmon/default-8x-mluxxx-v5.10.31-redacted.txt"
V4 = "cnmon/cnmon-3.txt"


def test_v5_two_mlu370_x8_with_bus_ids():
    devices = cnmon.parse_table(fixture(V5))
    assert [d.index for d in devices] == [0, 1]
    d0, d1 = devices
    assert (d0.name, d0.bus_id, d0.driver_version) == ("MLU370-X8", "0000:39:00.0", "5.10.13")
    assert d0.util_gpu_pct == 0.0 and d0.util_kind is None      # the card's busy share ("MLU Average")
    assert (d0.mem_used_bytes, d0.mem_total_bytes) == (0, 23374 * MIB)
    assert d0.temperature_c == 32.0 and d0.fan_pct == 0.0
    assert (d0.power_w, d0.power_limit_w) == (106.0, 250.0)
    assert d0.health is None and d0.uuid is None                 # the table has neither
    assert d0.processes == ()                                    # "No running processes found"
    assert (d1.name, d1.bus_id, d1.temperature_c, d1.power_w) == ("MLU370-X8", "0000:3d:00.0", 39.0, 106.0)
    assert (d1.mem_used_bytes, d1.mem_total_bytes, d1.power_limit_w) == (0, 23374 * MIB, 250.0)


def test_v5_10_31_eight_cards_mode_header_and_a_redacted_total():
    devices = cnmon.parse_table(fixture(V5_8))
    assert [d.index for d in devices] == list(range(8))
    assert [d.bus_id for d in devices] == ["0000:4f:00.0", "0000:53:00.0", "0000:6f:00.0", "0000:73:00.0",
                                           "0000:af:00.0", "0000:b3:00.0", "0000:cf:00.0", "0000:d3:00.0"]
    assert [d.power_w for d in devices] == [105.0, 100.0, 100.0, 109.0, 107.0, 105.0, 102.0, 105.0]
    assert [d.temperature_c for d in devices] == [35.0, 34.0, 35.0, 34.0, 34.0, 33.0, 36.0, 33.0]
    d = devices[0]
    assert (d.name, d.driver_version, d.power_limit_w) == ("MLUXXX-XX", "5.10.31", 550.0)  # names as printed
    assert d.mem_used_bytes == 0 and d.mem_total_bytes is None   # 'xxxxx MiB': N/A, never 0
    assert d.util_gpu_pct == 0.0 and d.processes == ()


def test_v4_20_three_mlu370_x4_inited_driver_layout():
    devices = cnmon.parse_table(fixture(V4))
    assert [d.index for d in devices] == [0, 1, 2]
    d = devices[0]
    assert (d.name, d.bus_id, d.driver_version) == ("MLU370-X4", None, "4.20.11")  # no Bus-Id column in 4.x
    assert (d.mem_used_bytes, d.mem_total_bytes) == (0, 23308 * MIB)              # not vMemory's 1048576 MiB
    assert (d.temperature_c, d.power_w, d.power_limit_w, d.fan_pct) == (32.0, 30.0, 150.0, 0.0)
    assert d.util_gpu_pct == 0.0 and d.processes == ()
    assert [(x.temperature_c, x.power_w) for x in devices[1:]] == [(33.0, 25.0), (30.0, 26.0)]


def test_a_process_block_with_rows_is_unknown_not_guessed():
    text = fixture(V5).replace("|  No running processes found                                                  |",
                               "|  0     /   4242    python train.py                           1024 MiB        |")
    assert all(d.processes is None for d in cnmon.parse_table(text))


def test_no_process_block_is_none():
    text = fixture(V5).split("\n\n+---")[0]
    assert [d.processes for d in cnmon.parse_table(text)] == [None, None]


@pytest.mark.parametrize("text", [
    "",
    "garbage\nmore garbage\n",
    "cnmon: command not found",
    "+-----+\n| CNMON v5.10.13 |\n+-----+\n",                          # a title and no card table
    (FIXTURES / "mthreads-gmi" / "default-s80-2.0.0-xorg-processes.txt").read_text(),  # another vendor's table
    '{"CnmonInfo": []}',
])
def test_not_a_cnmon_table_raises(text):
    with pytest.raises(ReaderError):
        cnmon.parse_table(text)


def test_a_table_cut_inside_a_card_keeps_the_whole_cards_and_says_so():
    lines = fixture(V5).splitlines()
    cut = "\n".join(lines[:10]) + "\n"                          # card 1's first row, not its second
    with pytest.raises(ReaderError, match="one row of its two"):
        cnmon.parse_table(cut)
    devices, problems = cnmon.read(answers(ok(cut)))
    assert [d.index for d in devices] == [0] and devices[0].processes is None
    assert len(problems) == 1 and problems[0].startswith("cnmon: card 1 has one row")


def test_read_asks_the_table_and_reports_failures_in_one_line():
    call = answers(ok(fixture(V4)))
    devices, problems = cnmon.read(call)
    assert call.asked == [[]] and len(devices) == 3 and problems == []
    devices, problems = cnmon.read(answers(CliResult(None, "", "", "cnmon did not answer within 3 s (timed out, killed)")))
    assert devices == [] and problems == ["cnmon did not answer within 3 s (timed out, killed)"]
    devices, problems = cnmon.read(answers(ok("Error: no MLU device found\n")))
    assert devices == [] and len(problems) == 1 and problems[0].startswith("cnmon: not cnmon's table")


def test_a_fake_cnmon_on_path_through_vendor_cli_source(tmp_path, monkeypatch):
    path = FIXTURES / V5
    cwd_log = tmp_path / "cwd"
    write_script(tmp_path / "bin", "cnmon", f"pwd > '{cwd_log}'; cat '{path}'")
    only_on_path(monkeypatch, tmp_path / "bin")
    source = VendorCliSource(clis=tuple(c for c in vendors.CLIS if c.exe == "cnmon"))
    try:
        assert source.available() and source.name == "cnmon"
        devices, problems = source.read()
        assert problems == [] and [d.bus_id for d in devices] == ["0000:39:00.0", "0000:3d:00.0"]
        assert devices[0].source == "cnmon"
        ran_in = cwd_log.read_text().strip()
        assert "cardbench-cli-" in ran_in and ran_in != str(tmp_path)   # its private folder, never the user's
    finally:
        source.close()


@pytest.mark.parametrize("path", [V5, V5_8, V4])
def test_read_never_raises_on_any_cut_of_a_capture(path):
    text = fixture(path)
    for end in range(0, len(text), 7):
        devices, problems = cnmon.read(answers(ok(text[:end])))
        assert devices or len(problems) == 1
