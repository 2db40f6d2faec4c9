"""Huawei Ascend's ``npu-smi info`` table read from real captures (1.9.3 to 26.1.0: 910, 910B*, A3, 310, 310P3,
310B4), bad input, cut output, and through a fake npu-smi on PATH."""


import pytest

from fake_cli import only_on_path, write_script
from paths import FIXTURES
from reader_calls import answers, fixture, ok
from tui.telemetry import vendors
from tui.telemetry.cli_tool import CliResult
from tui.telemetry.readers import ReaderError, npu_smi
from tui.telemetry.readers.table import MIB
from tui.telemetry.sample import DeviceProcess
from tui.telemetry.vendor_cli import VendorCliSource

V910_24 = "npu-smi/npu-smi-1.txt"                                            # 8x 910 ("910B"), 24.1.0
V910B2C = "npu-smi/npu-smi-3.txt"                                            # 2x 910B2C, 23.0.3, idle
V1_9 = "npu-smi/npu-smi-4.txt"                                               # 910A, 1.9.3: no Hugepages
V910A_22 = "npu-smi/npu-smi-5.txt"                                           # 8x 910A, 22.0.3.1
V9010 = "npu-smi/info-atlas800-training-9010-24.1.RC2-processes.txt"          # Warning, processes
V310_21 = "npu-smi/info-atlas800-inference-3000-310-21.0.4.txt"               # 4 chips under NPU 6
V310_20 = "npu-smi/info-atlas800-inference-3000-310-20.2.0-npu215.txt"        # 4 chips under NPU 215
V16 = "npu-smi/info-16x910b2c-24.1.rc2-loaded.txt"                            # NPU ids 10-15, loaded
A3_16 = "npu-smi/info-a3-16dies-25.2.0-empty-names.txt"                       # 8 NPUs x 2 dies, empty names
A3_2 = "npu-smi/info-a3-2x2-25.2.0-process-nputop.txt"
P310_CRIT = "npu-smi/info-310p3-4x2-25.0.rc1-critical.txt"                    # power NA, Critical
P310_PROC = "npu-smi/info-310p3-2x2-24.1.0.1-processes-nputop.txt"
B310 = "npu-smi/info-310b4-23.0.0-alarm-nputop.txt"                           # Alarm, Bus-Id NA
B3_26 = "npu-smi/info-8x910b3-26.1.0-container-pid.txt"                      # 'Process id in container'
B2C_PROC = "npu-smi/info-2x910b2c-23.0.2.1-process-nputop.txt"                # trailing spaces
ALL = [V910_24, V910B2C, V1_9, V910A_22, V9010, V310_21, V310_20, V16, A3_16, A3_2, P310_CRIT, P310_PROC, B310,
       B3_26, B2C_PROC]


def figures(d):
    """The figures a test compares, memory in MiB."""
    mib = (None if d.mem_used_bytes is None else d.mem_used_bytes // MIB,
           None if d.mem_total_bytes is None else d.mem_total_bytes // MIB)
    return (d.index, d.name, d.bus_id, d.health, d.util_gpu_pct, mib, d.temperature_c, d.power_w)


def test_910_on_24_1_takes_hbm_not_the_ddr_column():
    devices = npu_smi.parse_info(fixture(V910_24))
    assert [d.index for d in devices] == list(range(8))
    d = devices[0]
    assert figures(d) == (0, "910B", "0000:c1:00.0", "OK", 0.0, (1365, 32768), 34.0, 70.0)  # not DDR 1197 / 13553
    assert (d.util_kind, d.driver_version, d.power_limit_w, d.processes) == ("AICore", "24.1.0", None, None)
    assert [d.bus_id for d in devices] == ["0000:c1:00.0", "0000:81:00.0", "0000:41:00.0", "0000:01:00.0",
                                           "0000:c2:00.0", "0000:82:00.0", "0000:42:00.0", "0000:02:00.0"]
    assert [d.mem_used_bytes // MIB for d in devices] == [1365, 4, 4, 3, 3, 5, 5, 4]
    assert [d.power_w for d in devices] == [70.0, 66.9, 69.8, 67.2, 68.9, 66.3, 70.1, 65.6]


def test_idle_910b2c_keeps_the_drivers_hbm_reserve_and_says_no_processes():
    devices = npu_smi.parse_info(fixture(V910B2C))
    assert [figures(d) for d in devices] == [
        (0, "910B2C", "0000:5a:00.0", "OK", 0.0, (3317, 65536), 53.0, 89.9),   # ~3.3 GB idle: the reserve, as read
        (1, "910B2C", "0000:29:00.0", "OK", 0.0, (3316, 65536), 53.0, 93.8),
    ]
    assert [d.processes for d in devices] == [(), ()]
    assert devices[0].driver_version == "23.0.3"


def test_old_1_9_layout_without_hugepages_and_shifted_second_row():
    devices = npu_smi.parse_info(fixture(V1_9))
    assert [figures(d) for d in devices] == [
        # NPUs 4-7 of eight, seen as npu:0-3 where only they are visible: the index is the logic id, the name
        # keeps the NPU id npu-smi prints
        (0, "910A (NPU 4)", "0000:c2:00.0", "OK", 0.0, (0, 32768), 30.0, 67.2),
        (1, "910A (NPU 5)", "0000:82:00.0", "OK", 0.0, (0, 32768), 25.0, 63.8),
        (2, "910A (NPU 6)", "0000:42:00.0", "OK", 0.0, (0, 32768), 27.0, 67.1),
        (3, "910A (NPU 7)", "0000:02:00.0", "OK", 0.0, (0, 32768), 30.0, 65.5),
    ]
    assert devices[0].driver_version == "21.0.rc1" and devices[0].processes is None


def test_910a_on_22_0_with_hugepages_in_use():
    devices = npu_smi.parse_info(fixture(V910A_22))
    assert [d.index for d in devices] == list(range(8))
    assert figures(devices[3]) == (3, "910A", "0000:3e:00.0", "OK", 0.0, (0, 32768), 42.0, 191.7)
    assert [d.temperature_c for d in devices] == [43.0, 38.0, 34.0, 42.0, 44.0, 33.0, 35.0, 40.0]
    assert all(d.processes is None and d.driver_version == "22.0.3.1" for d in devices)


def test_atlas_9010_warning_cards_and_their_processes():
    devices = npu_smi.parse_info(fixture(V9010))
    assert [d.health for d in devices] == ["OK", "OK", "OK", "Warning", "OK", "OK", "OK", "Warning"]
    d = devices[3]
    assert figures(d) == (3, "xxx", "0000:01:00.0", "Warning", 0.0, (0, 32768), 39.0, 206.9)  # name as printed
    assert d.processes == tuple(DeviceProcess(pid, "hlt_host_devmm_", 686 * MIB)
                                for pid in (37643, 37651, 37659, 37667))
    assert [p.pid for p in devices[7].processes] == [37671, 37647, 37655, 37663]


def test_310_four_chips_under_one_npu_are_four_devices_indexed_by_logic_id():
    # Device ids 3-6 are logic ids 0-3 (npu-smi info -m of the same Atlas 300, shared/fixtures npu-smi-m-1.txt)
    devices = npu_smi.parse_info(fixture(V310_21))
    assert [figures(d) for d in devices] == [
        (0, "310 (NPU 6 chip 0)", "0000:89:00.0", "OK", 0.0, (2703, 8192), 73.0, 12.8),   # DDR: no HBM column
        (1, "310 (NPU 6 chip 1)", "0000:8a:00.0", "OK", 0.0, (2867, 8192), 74.0, 12.8),
        (2, "310 (NPU 6 chip 2)", "0000:8b:00.0", "OK", 0.0, (2867, 8192), 70.0, 12.8),
        (3, "310 (NPU 6 chip 3)", "0000:8c:00.0", "OK", 0.0, (2867, 8192), 65.0, 12.8),
    ]
    assert devices[0].driver_version == "21.0.4.B030" and devices[0].processes is None


def test_310_on_20_2_npu_id_215_and_no_hugepages_column():
    devices = npu_smi.parse_info(fixture(V310_20))
    assert [figures(d) for d in devices] == [
        (0, "310 (NPU 215 chip 0)", "0000:da:00.0", "OK", 0.0, (2703, 8192), 56.0, 12.8),
        (1, "310 (NPU 215 chip 1)", "0000:dc:00.0", "OK", 0.0, (2703, 8192), 57.0, 12.8),
        (2, "310 (NPU 215 chip 2)", "0000:dd:00.0", "OK", 0.0, (2703, 8192), 57.0, 12.8),
        (3, "310 (NPU 215 chip 3)", "0000:db:00.0", "OK", 0.0, (2703, 8192), 55.0, 12.8),
    ]
    assert devices[0].driver_version == "20.2.0"


def test_sixteen_loaded_910b2c_ids_past_ten_and_five_digit_hbm():
    devices = npu_smi.parse_info(fixture(V16))
    assert [d.index for d in devices] == list(range(16))
    assert figures(devices[0]) == (0, "910B2C", "0000:75:01.0", "OK", 100.0, (54735, 65536), 78.0, 450.6)
    assert figures(devices[10]) == (10, "910B2C", "0000:71:02.0", "OK", 0.0, (54710, 65536), 49.0, 137.4)
    assert figures(devices[15]) == (15, "910B2C", "0000:73:02.0", "OK", 0.0, (54710, 65536), 54.0, 116.9)
    assert [d.util_gpu_pct for d in devices] == [100.0, 100.0, 0.0, 0.0, 100.0, 0.0, 100.0, 100.0,
                                                 0.0, 100.0, 0.0, 0.0, 0.0, 100.0, 0.0, 0.0]
    assert all(d.processes == (DeviceProcess(265997, "python3", 51358 * MIB),) for d in devices)
    assert devices[0].driver_version == "24.1.rc2"


def test_a3_sixteen_dies_phy_ids_power_dash_and_empty_process_names():
    devices = npu_smi.parse_info(fixture(A3_16))
    assert [d.index for d in devices] == list(range(16))                      # Phy-ID, one per die
    assert figures(devices[0]) == (0, "Ascend910 (NPU 0 chip 0)", "0000:9d:00.0", "OK", 7.0, (61609, 65536),
                                   43.0, 211.3)
    assert figures(devices[1]) == (1, "Ascend910 (NPU 0 chip 1)", "0000:9f:00.0", "OK", 7.0, (61625, 65536),
                                   44.0, None)                                 # power '-': the card's on die 0
    assert figures(devices[11]) == (11, "Ascend910 (NPU 5 chip 1)", "0000:8b:00.0", "OK", 7.0, (61603, 65536),
                                    45.0, None)
    assert [d.power_w for d in devices[::2]] == [211.3, 210.6, 205.7, 209.9, 219.9, 214.0, 201.9, 205.5]
    assert all(d.power_w is None for d in devices[1::2])
    assert [p.pid for p in devices[0].processes] == [935440, 936673, 930242, 934451, 931572, 941045, 942487,
                                                     929673]
    assert all(p.name is None and p.used_bytes == 141 * MIB for p in devices[0].processes)
    assert devices[1].processes == (DeviceProcess(929405, None, 58780 * MIB),)
    assert devices[15].processes == (DeviceProcess(944268, None, 58782 * MIB),)


def test_a3_two_npus_one_process_on_the_last_die():
    devices = npu_smi.parse_info(fixture(A3_2))
    assert [figures(d) for d in devices] == [
        (0, "Ascend910 (NPU 0 chip 0)", "0000:9c:00.0", "OK", 0.0, (3133, 65536), 37.0, 162.8),
        (1, "Ascend910 (NPU 0 chip 1)", "0000:9e:00.0", "OK", 0.0, (2876, 65536), 37.0, None),
        (2, "Ascend910 (NPU 1 chip 0)", "0000:37:00.0", "OK", 0.0, (3116, 65536), 38.0, 167.1),
        (3, "Ascend910 (NPU 1 chip 1)", "0000:39:00.0", "OK", 0.0, (10568, 65536), 38.0, None),
    ]
    assert [d.processes for d in devices] == [(), (), (), (DeviceProcess(990711, "python", 7746 * MIB),)]


def test_310p3_duo_cards_power_na_critical_chip_and_shared_bus_ids():
    devices = npu_smi.parse_info(fixture(P310_CRIT))
    assert [d.index for d in devices] == list(range(8))                       # the Device column
    assert figures(devices[4]) == (4, "310P3 (NPU 4 chip 0)", "0000:81:00.0", "Critical", 0.0, (1793, 44280),
                                   56.0, None)
    assert figures(devices[5]) == (5, "310P3 (NPU 4 chip 1)", "0000:81:00.0", "OK", 0.0, (1162, 43693), 54.0, None)
    assert [d.bus_id for d in devices] == ["0000:01:00.0", "0000:01:00.0", "0000:02:00.0", "0000:02:00.0",
                                           "0000:81:00.0", "0000:81:00.0", "0000:82:00.0", "0000:82:00.0"]
    assert [d.name for d in devices][::2] == ["310P3 (NPU 1 chip 0)", "310P3 (NPU 2 chip 0)", "310P3 (NPU 4 chip 0)",
                                              "310P3 (NPU 5 chip 0)"]
    assert all(d.power_w is None and d.processes == () for d in devices)
    assert devices[0].driver_version == "25.0.rc1.b033"


def test_310p3_processes_go_to_their_own_chip():
    devices = npu_smi.parse_info(fixture(P310_PROC))
    assert figures(devices[0]) == (0, "310P3 (NPU 1 chip 0)", "0000:01:00.0", "OK", 0.0, (16302, 44280), 62.0, None)
    assert figures(devices[3]) == (3, "310P3 (NPU 2 chip 1)", "0000:02:00.0", "OK", 0.0, (35204, 43693), 61.0, None)
    assert [d.processes for d in devices] == [
        (DeviceProcess(3277562, "mindie_llm_back", 14513 * MIB),),
        (DeviceProcess(3277565, "mindie_llm_back", 14513 * MIB),),
        (DeviceProcess(3034986, "mindie_llm_back", 34207 * MIB),),
        (DeviceProcess(3034989, "mindie_llm_back", 33740 * MIB),),
    ]


def test_310b4_alarm_with_bus_id_na():
    (d,) = npu_smi.parse_info(fixture(B310))
    assert figures(d) == (0, "310B4", None, "Alarm", 0.0, (3628, 15609), 65.0, 0.0)  # power 0.0 is printed
    assert d.processes is None and d.driver_version == "23.0.0"


def test_910b3_on_26_1_and_its_process_id_in_container_column():
    devices = npu_smi.parse_info(fixture(B3_26))
    assert [d.index for d in devices] == list(range(8))
    assert figures(devices[0]) == (0, "910B3", "0000:c1:00.0", "OK", 0.0, (8676, 65536), 50.0, 100.0)
    assert figures(devices[7]) == (7, "910B3", "0000:42:00.0", "OK", 0.0, (3403, 65536), 51.0, 93.3)
    assert devices[0].processes == (DeviceProcess(485946, "pytest", 5175 * MIB),)   # in container 'NA': host pid
    assert all(d.processes == () for d in devices[1:])
    inside = fixture(B3_26).replace("| 5175                  | NA                      |",
                                    "| 5175                  | 4242                    |")
    assert npu_smi.parse_info(inside)[0].processes == (DeviceProcess(4242, "pytest", 5175 * MIB),)


def test_910b2c_with_trailing_spaces_and_an_npu_the_process_table_does_not_list_is_unknown():
    devices = npu_smi.parse_info(fixture(B2C_PROC))
    assert [figures(d) for d in devices] == [
        (0, "910B2C", "0000:5a:00.0", "OK", 0.0, (20701, 65536), 51.0, 88.6),
        (1, "910B2C", "0000:19:00.0", "OK", 0.0, (20687, 65536), 50.0, 99.6),
    ]
    assert [d.processes for d in devices] == [(DeviceProcess(124528, "python3.8", 17400 * MIB),), None]


def test_both_memory_columns_zero_is_not_available_not_zero():
    text = fixture(V910B2C).replace("3317 / 65536", "0    / 0    ")
    d = npu_smi.parse_info(text)[0]
    assert (d.mem_used_bytes, d.mem_total_bytes) == (None, None)


def test_a_blank_figure_leaves_its_cell_not_available():
    text = fixture(V910B2C).replace("| 89.9        53                0    / 0 ", "| 89.9                          0    / 0 ")
    d = npu_smi.parse_info(text)[0]
    assert (d.power_w, d.temperature_c) == (None, None)        # two figures under three titles: which is which?
    assert d.mem_used_bytes == 3317 * MIB


def test_memory_used_above_total_is_kept_and_said():
    text = fixture(V910B2C).replace("3317 / 65536", "70000/ 65536")
    devices, problems = npu_smi.read(answers(ok(text)))
    assert (devices[0].mem_used_bytes, devices[0].mem_total_bytes) == (70000 * MIB, 65536 * MIB)
    assert problems == ["npu-smi: card 0 (910B2C) reports 70000 MiB used of 65536 MiB: memory used above total, "
                        "kept as read"]


@pytest.mark.parametrize("text", [
    "",
    "garbage\nmore garbage\n",
    "npu-smi: command not found\n",
    "dcmi module initialize failed. ret is -8005\n",
    "+-----+\n| npu-smi 24.1.0     Version: 24.1.0 |\n+-----+\n",                   # a title and no chip table
    (FIXTURES / "cnmon" / "default-2x-mlu370-x8-v5.10.13.txt").read_text(),  # another vendor's table
    (FIXTURES / "npu-smi" / "npu-smi-usages-1.txt").read_text(),            # `npu-smi info -t usages -i 0`
    '{"npu": []}',
])
def test_not_an_npu_smi_table_raises(text):
    with pytest.raises(ReaderError):
        npu_smi.parse_info(text)


def test_a_table_cut_inside_a_chip_keeps_the_whole_chips_and_says_so():
    lines = fixture(V9010).splitlines()
    cut = "\n".join(lines[:16]) + "\n"                          # NPU 3's first row, not its second
    with pytest.raises(ReaderError, match="one row of its two"):
        npu_smi.parse_info(cut)
    devices, problems = npu_smi.read(answers(ok(cut)))
    assert [d.index for d in devices] == [0, 1, 2] and devices[0].processes is None
    assert problems == ["npu-smi: NPU 3 has one row of its two: output cut short"]


def test_a_process_table_cut_short_leaves_processes_unknown():
    text = fixture(A3_16)
    row = text.index("| 3       0                 | 932555")
    cut = text[:text.index("\n", row) + 1]                                      # after a row, before its rule
    devices, problems = npu_smi.read(answers(ok(cut)))
    assert len(devices) == 16 and all(d.processes is None for d in devices)
    assert problems == ["npu-smi: the process table is cut short: processes not read"]


def test_a_process_table_cut_at_a_rule_knows_only_the_npus_it_lists():
    text = fixture(A3_16)
    cut = text[:text.index("| 3       0                 | 932555")]          # NPU 3's rows and after: gone
    devices, problems = npu_smi.read(answers(ok(cut)))
    assert problems == [] and len(devices) == 16
    assert devices[5].processes == (DeviceProcess(931572, None, 58779 * MIB),)   # NPU 2 chip 1
    assert all(d.processes is None for d in devices[6:])                         # NPU 3-7: unknown, not ()


def test_a_process_row_unlike_its_titles_leaves_processes_unknown():
    text = fixture(V16).replace("| 3       0                 | 265997        | python3                  | 51358",
                                "| 3       0                 | 265997        | python3                  | 51358 | x")
    devices, problems = npu_smi.read(answers(ok(text)))
    assert len(devices) == 16 and all(d.processes is None for d in devices)
    assert len(problems) == 1 and problems[0].startswith("npu-smi: a process row unlike its titles")


def test_read_asks_info_and_reports_failures_in_one_line():
    call = answers(ok(fixture(V1_9)))
    devices, problems = npu_smi.read(call)
    assert call.asked == [["info"]] and len(devices) == 4 and problems == []
    devices, problems = npu_smi.read(answers(CliResult(None, "", "", "npu-smi did not answer within 3 s")))
    assert devices == [] and problems == ["npu-smi did not answer within 3 s"]
    devices, problems = npu_smi.read(answers(CliResult(255, "dcmi module initialize failed. ret is -8005\n", "",
                                                       None)))
    assert devices == [] and problems == ["npu-smi: not npu-smi's table ('dcmi module initialize failed. ret is "
                                          "-8005')"]


def test_a_fake_npu_smi_on_path_through_vendor_cli_source(tmp_path, monkeypatch):
    path = FIXTURES / P310_CRIT
    write_script(tmp_path / "bin", "npu-smi", f"[ \"$1\" = info ] || exit 2; cat '{path}'")
    only_on_path(monkeypatch, tmp_path / "bin")
    source = VendorCliSource(clis=tuple(c for c in vendors.CLIS if c.exe == "npu-smi"))
    try:
        assert source.available() and source.name == "npu-smi"
        devices, problems = source.read()
        assert problems == [] and [d.index for d in devices] == list(range(8))
        assert devices[4].health == "Critical" and devices[0].source == "npu-smi"
    finally:
        source.close()


@pytest.mark.parametrize("path", [V9010, A3_16, P310_CRIT, V1_9])
def test_read_never_raises_on_any_cut_of_a_capture(path):
    text = fixture(path)
    for end in range(0, len(text), 7):
        devices, problems = npu_smi.read(answers(ok(text[:end])))
        assert devices or len(problems) == 1
        assert all(d.mem_used_bytes is None or d.mem_total_bytes for d in devices)


def test_every_capture_reads_whole_with_no_problem():
    for path in ALL:
        devices, problems = npu_smi.read(answers(ok(fixture(path))))
        assert devices and problems == [], path
        assert all(d.util_kind == "AICore" for d in devices)
        assert len({d.index for d in devices}) == len(devices), path
