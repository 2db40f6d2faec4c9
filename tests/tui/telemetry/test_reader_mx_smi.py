"""MetaX's mx-smi: the 2.1.6 / 2.1.12 / 2.2.4 / 2.2.6 tables and ``mx-smi -L`` from real captures, Moffett's tool of the
same name refused, bad input, the ``-L`` cache, and a fake mx-smi through VendorCliSource."""


import pytest

from fake_cli import only_on_path, write_script
from paths import FIXTURES
from reader_calls import fixture, ok
from tui.telemetry import vendors
from tui.telemetry.cli_tool import CliResult
from tui.telemetry.readers import ReaderError, mx_smi
from tui.telemetry.readers.table import MIB
from tui.telemetry.sample import DeviceProcess
from tui.telemetry.vendor_cli import VendorCliSource

V216_8 = "mx-smi/default-8x-mxc550-2.1.6.txt"
V216_BUSY = "mx-smi/default-4x-mxc500-2.1.6-processes.txt"
V2112_BUSY = "mx-smi/default-8x-c500-2.1.12-processes.txt"
V2112_POD = "mx-smi/mx-smi-4.txt"
V224_1 = "mx-smi/mx-smi-2.txt"
V224_8 = "mx-smi/default-8x-c550-2.2.4-gpu-state.txt"
V226 = "mx-smi/default-1x-c500-2.2.6-perf-process.txt"
LIST = "mx-smi/mx-smi-L-1.txt"
TEMPS = "mx-smi/mx-smi-temp-1.txt"
MOFFETT = "mx-smi/moffett-mx-smi-2.3.0-excerpt.txt"
TABLES = [V216_8, V216_BUSY, V2112_BUSY, V2112_POD, V224_1, V224_8, V226]
# the unavailable form as a MetaX node-health checker's tests quote it (no real capture of it was found)
NOT_AVAILABLE = "Not Available(MetaX Sysfs File Unaccessible)"


def tool(table=None, listing=None):
    """A fake `call` answering ``mx-smi`` with ``table`` and ``mx-smi -L`` with ``listing``; records what it was asked."""
    asked = []

    def call(args):
        asked.append(list(args))
        answer = listing if args == ["-L"] else table
        return answer if isinstance(answer, CliResult) else ok(answer or "")
    call.asked = asked
    return call


def test_2_1_6_eight_mxc550_power_without_cap():
    devices = mx_smi.parse_table(fixture(V216_8))
    assert [d.index for d in devices] == list(range(8))
    assert [d.bus_id for d in devices] == ["0000:2a:00.0", "0000:3a:00.0", "0000:4c:00.0", "0000:5c:00.0",
                                           "0000:aa:00.0", "0000:ba:00.0", "0000:ca:00.0", "0000:da:00.0"]
    assert [d.temperature_c for d in devices] == [31.0, 31.0, 31.0, 31.0, 30.0, 31.0, 30.0, 30.0]
    assert [d.power_w for d in devices] == [44.0, 46.0, 47.0, 46.0, 46.0, 47.0, 46.0, 47.0]
    for d in devices:
        assert (d.name, d.util_gpu_pct, d.util_kind) == ("MXC550", 0.0, None)
        assert (d.mem_used_bytes, d.mem_total_bytes) == (810 * MIB, 65536 * MIB)
        assert d.power_limit_w is None and d.pstate is None          # 'Power' column: no cap, no Perf
        assert d.health is None                                      # no GPU-State column in 2.1.x
        assert (d.driver_version, d.runtime_version) == ("2.5.014", "2.23.0.1018")
        assert d.processes == ()                                     # "no process found"


def test_2_1_6_four_mxc500_busy_with_processes():
    devices = mx_smi.parse_table(fixture(V216_BUSY))
    assert [d.bus_id for d in devices] == ["0000:05:00.0", "0000:08:00.0", "0000:0e:00.0", "0000:0f:00.0"]
    assert [d.util_gpu_pct for d in devices] == [36.0, 36.0, 24.0, 35.0]
    assert [d.mem_used_bytes // MIB for d in devices] == [60278, 59830, 59830, 59830]
    assert [d.temperature_c for d in devices] == [54.0, 54.0, 53.0, 54.0]
    assert [d.power_w for d in devices] == [122.0, 125.0, 122.0, 122.0]
    assert all(d.mem_total_bytes == 65536 * MIB and d.power_limit_w is None and d.name == "MXC500" for d in devices)
    assert [d.processes for d in devices] == [
        (DeviceProcess(343683, "python", 59328 * MIB),), (DeviceProcess(350950, "ray::RayWorkerW", 58880 * MIB),),
        (DeviceProcess(351042, "ray::RayWorkerW", 58880 * MIB),),
        (DeviceProcess(351132, "ray::RayWorkerW", 58880 * MIB),)]


def test_2_1_12_eight_c500_with_a_cap_and_processes_on_each_card():
    devices = mx_smi.parse_table(fixture(V2112_BUSY))
    assert [d.bus_id for d in devices] == ["0000:0e:00.0", "0000:0f:00.0", "0000:10:00.0", "0000:12:00.0",
                                           "0000:35:00.0", "0000:36:00.0", "0000:37:00.0", "0000:38:00.0"]
    assert [d.util_gpu_pct for d in devices] == [0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0]
    assert [d.temperature_c for d in devices] == [36.0, 38.0, 37.0, 37.0, 37.0, 36.0, 39.0, 38.0]
    assert [d.power_w for d in devices] == [69.0, 70.0, 69.0, 71.0, 70.0, 68.0, 73.0, 71.0]
    assert [d.mem_used_bytes // MIB for d in devices] == [5680] + [4986] * 7
    assert all((d.name, d.power_limit_w, d.health) == ("MetaX C500", 350.0, None) for d in devices)
    assert (devices[0].driver_version, devices[0].runtime_version) == ("2.12.13", "2.29.0.19")
    card0 = devices[0].processes                                   # every worker holds a context on card 0
    assert [p.pid for p in card0] == list(range(3496691, 3496699))
    assert [p.used_bytes // MIB for p in card0] == [4066, 102, 102, 102, 102, 102, 102, 170]
    assert {p.name for p in card0} == {"python3.10"}
    assert [d.processes for d in devices[1:]] == [(DeviceProcess(3496691 + i, "python3.10", 4154 * MIB),)
                                                  for i in range(1, 8)]


def test_2_1_12_in_a_container_cap_na_and_maca_unknown():
    (d,) = mx_smi.parse_table(fixture(V2112_POD))
    assert (d.index, d.name, d.bus_id) == (0, "MetaX C550", "0000:2a:00.0")
    assert (d.power_w, d.power_limit_w) == (97.0, None)            # '97W / NA': the cap N/A, never 0
    assert (d.driver_version, d.runtime_version) == ("2.12.13", None)   # 'MACA Version: unknown'
    assert (d.temperature_c, d.util_gpu_pct, d.mem_used_bytes, d.mem_total_bytes) == (34.0, 0.0, 858 * MIB,
                                                                                      65536 * MIB)
    assert d.health is None and d.processes == ()


def test_2_2_4_gpu_state_column_one_and_eight_cards():
    (d,) = mx_smi.parse_table(fixture(V224_1))
    assert (d.index, d.name, d.bus_id, d.health) == (0, "MetaX C500", "0000:01:00.0", "Available")
    assert (d.temperature_c, d.power_w, d.power_limit_w) == (45.0, 48.0, 350.0)
    assert (d.util_gpu_pct, d.mem_used_bytes, d.mem_total_bytes) == (0.0, 858 * MIB, 65536 * MIB)
    assert (d.driver_version, d.runtime_version, d.processes) == ("2.14.8", "2.33.0.5", ())
    devices = mx_smi.parse_table(fixture(V224_8))
    assert [d.bus_id for d in devices] == ["0000:0f:00.0", "0000:34:00.0", "0000:48:00.0", "0000:5a:00.0",
                                           "0000:87:00.0", "0000:ae:00.0", "0000:c2:00.0", "0000:d7:00.0"]
    assert [d.temperature_c for d in devices] == [29.0, 29.0, 30.0, 29.0, 30.0, 32.0, 32.0, 31.0]
    assert [d.power_w for d in devices] == [53.0, 53.0, 54.0, 54.0, 53.0, 55.0, 56.0, 56.0]
    assert all((d.name, d.health, d.power_limit_w, d.mem_used_bytes, d.processes)
               == ("MetaX C550", "Available", 450.0, 858 * MIB, ()) for d in devices)


def test_2_2_6_persistence_perf_and_sgpu_columns_and_one_process():
    (d,) = mx_smi.parse_table(fixture(V226))
    assert (d.index, d.name, d.bus_id, d.health) == (0, "MetaX C500", "0000:38:00.0", "Available")
    assert (d.temperature_c, d.power_w, d.power_limit_w, d.pstate) == (44.0, 71.0, 350.0, "P9")
    assert (d.util_gpu_pct, d.mem_used_bytes, d.mem_total_bytes) == (0.0, 986 * MIB, 65536 * MIB)
    assert (d.driver_version, d.runtime_version) == ("2.16.0", "3.0.0.8")
    assert d.processes == (DeviceProcess(2477, "python", 128 * MIB),)


def test_list_gives_index_name_bus_state_and_uuid():
    d0, d7 = mx_smi.parse_list(fixture(LIST))
    assert (d0.index, d0.name, d0.bus_id, d0.health) == (0, "MXC500", "0000:08:00.0", "Available")
    assert d0.uuid == "GPU-e702f06b-bbd6-bc06-5196-90a5554a24ba"
    assert (d7.index, d7.bus_id, d7.uuid) == (7, "0000:3c:00.0", "GPU-0e715b45-bcef-1500-e2db-752724095700")
    lines = fixture(LIST).splitlines()
    text = "\n".join(lines[:2] + [lines[2].split("Available")[0] + NOT_AVAILABLE]) + "\n"
    assert [d.health for d in mx_smi.parse_list(text)] == ["Available", NOT_AVAILABLE]
    assert mx_smi.parse_list(text)[1].uuid is None


def test_moffetts_mx_smi_is_refused_never_read_as_metax():
    text = fixture(MOFFETT)
    with pytest.raises(ReaderError, match="not MetaX's: Moffett"):
        mx_smi.parse_table(text)
    with pytest.raises(ReaderError, match="Moffett"):
        mx_smi.parse_list(text)
    call = tool(table=text)
    devices, problems = mx_smi.read(call, mx_smi.ListCache(), now=0.0)
    assert devices == [] and len(problems) == 1 and problems[0].startswith("mx-smi: mx-smi here is not MetaX's")
    assert call.asked == [[]]                                      # nothing more asked of a tool that is not MetaX's


def test_a_process_named_after_moffett_on_a_metax_card_is_still_read():
    text = fixture(V226).replace("python                       128", "moffett-bench                128")
    assert mx_smi.parse_table(text)[0].processes == (DeviceProcess(2477, "moffett-bench", 128 * MIB),)


@pytest.mark.parametrize("text", [
    "",
    "garbage\nmore garbage\n",
    "mx-smi: command not found\n",
    "mx-smi  version: 2.2.4\n\n=================== MetaX System Management Interface Log ===================\n",
    (FIXTURES / "cnmon" / "default-2x-mlu370-x8-v5.10.13.txt").read_text(encoding="utf-8"),   # another vendor's
    (FIXTURES / "efsmi" / "efsmi-1.txt").read_text(encoding="utf-8"),
    fixture(LIST),                                                 # mx-smi -L, not the table
    fixture(TEMPS),                                                # mx-smi's temperature listing, not the table
])
def test_not_a_metax_table_raises(text):
    with pytest.raises(ReaderError):
        mx_smi.parse_table(text)


def test_list_parser_refuses_a_table_and_garbage():
    for text in ["", "garbage\n", fixture(V224_1)]:
        with pytest.raises(ReaderError):
            mx_smi.parse_list(text)


def test_a_table_cut_inside_a_card_keeps_the_whole_cards_and_says_so():
    lines = fixture(V224_8).splitlines()
    cut = "\n".join(lines[:17]) + "\n"                             # card 1's first row, not its second
    with pytest.raises(ReaderError, match="one row of its two"):
        mx_smi.parse_table(cut)
    devices, problems = mx_smi.read(tool(table=cut), mx_smi.ListCache(), now=0.0)
    assert [d.index for d in devices] == [0] and devices[0].processes is None
    assert len(problems) == 1 and problems[0].startswith("mx-smi: card 1 has one row")


def test_a_process_box_cut_short_or_with_a_row_unread_is_unknown_not_guessed():
    text = fixture(V216_BUSY)
    cut = text[:text.rindex("+---")]                               # the box's closing rule lost
    assert [d.processes for d in mx_smi.parse_table(cut)] == [None] * 4
    odd = text.replace("|  0                   343683         python", "|  0    pid?   python")
    assert [d.processes for d in mx_smi.parse_table(odd)] == [None] * 4
    no_box = text.split("\n\n+---")[0] + "\n"
    assert [d.processes for d in mx_smi.parse_table(no_box)] == [None] * 4


def test_read_takes_state_from_the_table_where_printed_and_never_asks_list():
    call = tool(table=fixture(V224_8))
    devices, problems = mx_smi.read(call, mx_smi.ListCache(), now=0.0)
    assert call.asked == [[]] and problems == [] and {d.health for d in devices} == {"Available"}


def test_read_asks_list_for_the_state_at_most_every_30_s():
    # the real -L lines: its GPU#0 (0000:08:00.0) is the busy box's card 1; its GPU#7 line moved onto card 2's bus id
    # (0000:0e:00.0) and given the unavailable form
    lines = fixture(LIST).splitlines()
    listing = "\n".join([lines[0], lines[1],
                         lines[2].split("Available")[0].replace("0000:3c:00.0", "0000:0e:00.0") + NOT_AVAILABLE]) + "\n"
    cache = mx_smi.ListCache()
    call = tool(table=fixture(V216_BUSY), listing=listing)
    devices, problems = mx_smi.read(call, cache, now=100.0)
    assert call.asked == [[], ["-L"]] and problems == []
    assert [d.health for d in devices] == [None, "Available", NOT_AVAILABLE, None]   # cards -L does not list: N/A
    assert devices[1].uuid == "GPU-e702f06b-bbd6-bc06-5196-90a5554a24ba"
    devices, _ = mx_smi.read(call, cache, now=129.0)                # within 30 s: the cached states, no -L
    assert call.asked == [[], ["-L"], []] and devices[2].health == NOT_AVAILABLE
    mx_smi.read(call, cache, now=130.5)                             # stale: asked again
    assert call.asked[-2:] == [[], ["-L"]]


def test_read_says_once_a_tick_why_list_failed_and_still_reads_the_table():
    cache = mx_smi.ListCache()
    call = tool(table=fixture(V216_8), listing=CliResult(2, "", "bad option", "mx-smi exit 2: bad option"))
    devices, problems = mx_smi.read(call, cache, now=0.0)
    assert len(devices) == 8 and all(d.health is None for d in devices)
    assert problems == ["mx-smi -L: card states not read (mx-smi exit 2: bad option)"]
    devices, problems = mx_smi.read(call, cache, now=5.0)           # the failure stands for 30 s, not re-asked
    assert call.asked.count(["-L"]) == 1 and len(problems) == 1 and len(devices) == 8


def test_read_reports_a_tool_that_did_not_answer_in_one_line():
    call = tool(table=CliResult(None, "", "", "mx-smi did not answer within 3 s (timed out, killed)"))
    assert mx_smi.read(call, mx_smi.ListCache(), now=0.0) == ([], ["mx-smi did not answer within 3 s (timed out, "
                                                                    "killed)"])


def test_memory_used_above_total_is_kept_and_said():
    text = fixture(V224_1).replace("858/65536 MiB  ", "70000/65536 MiB")
    devices, problems = mx_smi.read(tool(table=text), mx_smi.ListCache(), now=0.0)
    assert (devices[0].mem_used_bytes, devices[0].mem_total_bytes) == (70000 * MIB, 65536 * MIB)
    assert len(problems) == 1 and "70000 MiB used of 65536 MiB" in problems[0]


def test_a_fake_mx_smi_on_path_through_vendor_cli_source(tmp_path, monkeypatch):
    monkeypatch.setattr(mx_smi, "_CACHE", mx_smi.ListCache())      # the module's own cache, fresh for this test
    table, listing = FIXTURES / V216_8, FIXTURES / LIST
    write_script(tmp_path, "mx-smi", f'case "$*" in -L) cat "{listing}";; *) cat "{table}";; esac')
    only_on_path(monkeypatch, tmp_path)
    source = VendorCliSource(clis=tuple(c for c in vendors.CLIS if c.exe == "mx-smi"))
    try:
        assert source.available() and source.name == "mx-smi"
        devices, problems = source.read()
        assert problems == [] and len(devices) == 8 and devices[0].source == "mx-smi"
        assert [d.health for d in devices] == [None] * 8           # -L lists 0000:08 and 0000:3c: no card here
    finally:
        source.close()


@pytest.mark.parametrize("path", TABLES + [MOFFETT])
def test_read_never_raises_on_any_cut_of_a_capture(path):
    text = fixture(path)
    for end in range(0, len(text), 7):
        devices, problems = mx_smi.read(tool(table=text[:end], listing=text[:end]), mx_smi.ListCache(), now=0.0)
        assert devices or len(problems) == 1
