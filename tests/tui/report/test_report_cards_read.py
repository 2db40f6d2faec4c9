"""The report's table of the cards as their own tool read them: state, utilisation and what it counts, memory,
power, whose processes; N/A where the tool printed nothing; Chinese for cardbench's words, the tool's quoted."""

from paths import FIXTURES
from tui.report.cards_read import cards_read
from tui.report.document import Para, Table
from tui.report.i18n import Words
from tui.telemetry.processes import attribute_device
from tui.telemetry.readers.npu_smi import parse_info


def ascend_devices(tmp_path):
    # the real 9010 capture: cards 3 and 7 in Warning, four host pids each; no such pid in this (empty) /proc
    chips = parse_info((FIXTURES / "npu-smi/info-atlas800-training-9010-24.1.RC2-processes.txt").read_text())
    return [attribute_device(d.replace(source="npu-smi"), (), proc_root=str(tmp_path), container=True).to_dict()
            for d in chips]


def test_each_card_is_a_row_of_what_its_tool_said(tmp_path):
    para, table = cards_read(ascend_devices(tmp_path), Words("en"))
    assert isinstance(para, Para) and "npu-smi" in para.text and isinstance(table, Table)
    assert len(table.rows) == 8
    card3 = table.rows[3]
    assert card3[:6] == ["GPU3 xxx", "Warning", "0% AICore", "0 B / 32.0 GiB", "39 °C", "206.9 W"]
    assert card3[6].startswith("37643 hlt_host_devmm_ 686 MiB (another container's process); ")
    assert card3[6].endswith("686 MiB (another container's process)")


def test_in_chinese_cardbench_s_words_are_chinese_and_the_tool_s_are_quoted(tmp_path):
    para, table = cards_read(ascend_devices(tmp_path), Words("zh"))
    assert "`npu-smi` 读到的各卡" in para.text
    assert table.rows[3][1] == "`Warning`"
    assert "`37643 hlt_host_devmm_ 686 MiB`（其他容器的进程）" in table.rows[3][6]


def test_cardbench_s_own_child_is_named_with_its_workload():
    row = {"index": 0, "name": "910B3", "source": "npu-smi", "processes": [[913377, None, 20 * 2 ** 30,
                                                                            "cardbench resnet50"]]}
    (_, table) = cards_read([row], Words("zh"))
    assert table.rows[0][6] == "`913377 N/A 20.0 GiB`（cardbench 的 `resnet50`）"


def test_no_table_where_no_vendor_tool_read_a_card():
    assert cards_read([{"index": 0, "name": "cpu", "source": "torch"}], Words("en")) == []
    assert cards_read([], Words("en")) == []
