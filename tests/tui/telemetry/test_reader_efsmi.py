"""Enflame's efsmi: the V1.2.0 / 1.6 / 1.7 default tables from real captures ('Mem' read as the total, DUsed as the
GCU's busy share, Dpm/Lpm as the power state), bad input, and a fake efsmi through VendorCliSource."""


import pytest

from fake_cli import only_on_path, write_script
from paths import FIXTURES
from reader_calls import answers, fixture, ok
from tui.telemetry import vendors
from tui.telemetry.cli_tool import CliResult
from tui.telemetry.readers import ReaderError, efsmi
from tui.telemetry.readers.table import MIB
from tui.telemetry.vendor_cli import VendorCliSource

V1_2 = "efsmi/efsmi-1.txt"
V1_6 = "efsmi/default-2x-s60g-1.6.3.12-sriov.txt"
V1_7 = "efsmi/default-1x-l300-1.7.2.14.txt"


def test_v1_2_two_s60_dpm_sleep_and_active():
    d0, d1 = efsmi.parse_table(fixture(V1_2))
    assert (d0.index, d0.name, d0.bus_id, d0.driver_version) == (0, "S60", "0000:01:00.0", "1.2.0.301")
    assert (d0.temperature_c, d0.pstate, d0.power_w, d0.power_limit_w) == (39.0, "Sleep", 105.0, 300.0)
    assert (d0.util_gpu_pct, d0.util_kind) == (0.0, "GCU")
    assert (d0.mem_used_bytes, d0.mem_total_bytes) == (None, 49120 * MIB)    # ECC off: the whole 48 GiB less 32 MiB
    assert (d1.index, d1.name, d1.bus_id) == (1, "S60", "0000:09:00.0")
    assert (d1.temperature_c, d1.pstate, d1.power_w, d1.power_limit_w) == (46.0, "Active", 128.0, 300.0)
    assert (d1.mem_used_bytes, d1.mem_total_bytes) == (None, 42976 * MIB)    # ECC on: 7/8 of it
    for d in (d0, d1):
        assert d.health is None and d.processes is None and d.uuid is None  # the table has none of them


def test_1_6_two_s60g_under_sriov_power_na_and_celsius_sign():
    d0, d1 = efsmi.parse_table(fixture(V1_6))
    assert (d0.index, d0.name, d0.bus_id, d0.driver_version) == (0, "Enflame S60G", "0000:2e:00.0", "1.6.3.12")
    assert (d1.index, d1.name, d1.bus_id) == (1, "Enflame S60G", "0000:2f:00.0")
    for d in (d0, d1):
        assert (d.temperature_c, d.pstate) == (34.0, "LP0")                 # '34℃', Lpm
        assert (d.power_w, d.power_limit_w) == (None, None)                 # 'N/A': neither figure, never 0
        assert (d.util_gpu_pct, d.util_kind, d.mem_total_bytes, d.mem_used_bytes) == (0.0, "GCU", 23552 * MIB, None)
        assert d.health is None and d.processes is None


def test_1_7_one_l300_boot_fw_title_and_slashed_power():
    (d,) = efsmi.parse_table(fixture(V1_7))
    assert (d.index, d.name, d.bus_id, d.driver_version) == (0, "Enflame L300", "0000:2d:00.0", "1.7.2.14")
    assert (d.temperature_c, d.pstate, d.power_w, d.power_limit_w) == (35.0, "LP1", 68.0, 300.0)
    assert (d.util_gpu_pct, d.util_kind) == (0.0, "GCU")
    assert (d.mem_used_bytes, d.mem_total_bytes) == (None, 147456 * MIB)     # 144 GiB: the L300's memory


@pytest.mark.parametrize("text", [
    "",
    "garbage\nmore garbage\n",
    "efsmi: command not found\n",
    "------------------- Enflame System Management Interface --------------------\n",   # a banner, no table
    (FIXTURES / "cnmon" / "default-2x-mlu370-x8-v5.10.13.txt").read_text(encoding="utf-8"),   # another vendor's
    (FIXTURES / "mx-smi" / "mx-smi-2.txt").read_text(encoding="utf-8"),
])
def test_not_an_efsmi_table_raises(text):
    with pytest.raises(ReaderError):
        efsmi.parse_table(text)


def test_a_layout_with_titles_it_does_not_know_is_refused_not_guessed():
    text = fixture(V1_7).replace("| Mem      GCU Virt |", "| Used     GCU Virt |")
    with pytest.raises(ReaderError, match="titles this reader does not know"):
        efsmi.parse_table(text)


def test_a_table_cut_inside_a_card_keeps_the_whole_cards_and_says_so():
    lines = fixture(V1_6).splitlines()
    cut = "\n".join(lines[:15]) + "\n"                          # card 1's first row, not its second
    with pytest.raises(ReaderError, match="one row of its two"):
        efsmi.parse_table(cut)
    devices, problems = efsmi.read(answers(ok(cut)))
    assert [d.index for d in devices] == [0]
    assert len(problems) == 1 and problems[0].startswith("efsmi: card 1 has one row")


def test_a_cell_not_of_its_titles_shape_stops_the_reading_there():
    text = fixture(V1_2).replace("| 1      S60                 |", "| one    S60                 |")
    devices, problems = efsmi.read(answers(ok(text)))
    assert [d.index for d in devices] == [0] and len(problems) == 1 and "unlike its titles" in problems[0]


def test_read_asks_the_table_and_reports_failures_in_one_line():
    call = answers(ok(fixture(V1_2)))
    devices, problems = efsmi.read(call)
    assert call.asked == [[]] and len(devices) == 2 and problems == []
    devices, problems = efsmi.read(answers(CliResult(None, "", "", "efsmi did not answer within 3 s (timed out, killed)")))
    assert devices == [] and problems == ["efsmi did not answer within 3 s (timed out, killed)"]
    devices, problems = efsmi.read(answers(ok("Error: no GCU device found\n")))
    assert devices == [] and len(problems) == 1 and problems[0].startswith("efsmi: not efsmi's table")


def test_a_fake_efsmi_on_path_through_vendor_cli_source(tmp_path, monkeypatch):
    path = FIXTURES / V1_2
    write_script(tmp_path / "bin", "efsmi", f"cat '{path}'")
    only_on_path(monkeypatch, tmp_path / "bin")
    source = VendorCliSource(clis=tuple(c for c in vendors.CLIS if c.exe == "efsmi"))
    try:
        assert source.available() and source.name == "efsmi"
        devices, problems = source.read()
        assert problems == [] and [d.bus_id for d in devices] == ["0000:01:00.0", "0000:09:00.0"]
        assert devices[0].source == "efsmi" and [d.pstate for d in devices] == ["Sleep", "Active"]
    finally:
        source.close()


@pytest.mark.parametrize("path", [V1_2, V1_6, V1_7])
def test_read_never_raises_on_any_cut_of_a_capture(path):
    text = fixture(path)
    for end in range(0, len(text), 5):
        devices, problems = efsmi.read(answers(ok(text[:end])))
        assert devices or len(problems) == 1
