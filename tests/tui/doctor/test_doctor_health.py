"""The doctor's card-health check: the cards' own tool's word for each card, and memory read over total."""

import pytest

from tui.doctor import FAIL, PASS, SKIP, WARN, Facts
from tui.doctor.health import check_health
from tui.telemetry.sample import DeviceSample

GIB = 2 ** 30


def npu(index, health, **more):
    return DeviceSample(index=index, name="910B3", bus_id=f"0000:0{index}:00.0", health=health, source="npu-smi",
                        mem_used_bytes=3 * GIB, mem_total_bytes=64 * GIB, **more)


def test_cards_in_order_pass_and_say_which_tool_said_so():
    c = check_health(Facts(devices=[npu(0, "OK"), npu(1, "OK")]))
    assert c.status == PASS and c.id == "device.health"
    assert c.evidence == "2 card(s) in order as npu-smi reads them"
    assert c.value == 2


@pytest.mark.parametrize("word, status", [("Warning", WARN), ("Alarm", FAIL), ("Critical", FAIL),
                                          ("Not Available(MetaX Sysfs File Unaccessible)", WARN),
                                          ("something new", WARN)])
def test_a_card_its_tool_calls_unwell_is_named_with_the_tools_word(word, status):
    c = check_health(Facts(devices=[npu(0, "OK"), npu(3, word)]))
    assert c.status == status
    assert f"npu-smi: card 3 (910B3, 0000:03:00.0) {word}" in c.evidence
    assert "1 of 2 card(s)" in c.evidence and c.hint
    assert c.said("evidence", "zh").startswith("2 块卡中有 1 块状态异常")


def test_memory_read_over_total_is_a_warning_whatever_the_state():
    over = DeviceSample(index=0, name="MTT S4000", mem_used_bytes=44302 * 2 ** 20, mem_total_bytes=32768 * 2 ** 20,
                        source="mthreads-gmi")
    c = check_health(Facts(devices=[over]))
    assert c.status == WARN
    assert "mthreads-gmi: card 0 (MTT S4000) uses 43.3 GiB of 32.0 GiB" in c.evidence


def test_cards_whose_tool_says_nothing_of_health_are_skipped():
    nvml = DeviceSample(index=0, name="NVIDIA H100 80GB HBM3", mem_used_bytes=GIB, mem_total_bytes=80 * GIB,
                        source="nvml")
    assert check_health(Facts(devices=[nvml])).status == SKIP
    assert check_health(Facts()).status == SKIP


def test_the_evidence_quotes_the_tools_own_line_for_the_card_on_a_real_capture():
    from paths import FIXTURES
    from tui.telemetry.readers.npu_smi import parse_info

    output = (FIXTURES / "npu-smi/info-atlas800-training-9010-24.1.RC2-processes.txt").read_text()
    cards = [d.replace(source="npu-smi") for d in parse_info(output)]
    c = check_health(Facts(devices=cards, cli_name="npu-smi", cli_output=output))
    assert c.status == WARN
    assert c.evidence == ('2 of 8 card(s) not in order: npu-smi: card 3 (xxx, 0000:01:00.0) Warning: '
                          '"3 xxx | Warning | 206.9 39 1232 / 1232"; npu-smi: card 7 (xxx, 0000:02:00.0) Warning: '
                          '"7 xxx | Warning | 203.2 42 1232 / 1232"')
    # a line that is not surely the card's is not quoted: two lines start with its index and hold its word
    from tui.doctor.health import tool_line

    assert tool_line("| 3 a | Warning |\n| 3 b | Warning |", cards[3]) is None


def test_a_die_of_an_a3_or_a_310p_chip_is_never_quoted_another_ones_line():
    from paths import FIXTURES
    from tui.doctor.health import tool_line
    from tui.telemetry.readers.npu_smi import parse_info

    # the reviewer's case: two dies of the A3 capture set to Warning, their rows start with the NPU id, not the die's
    output = (FIXTURES / "npu-smi/info-a3-16dies-25.2.0-empty-names.txt").read_text()
    lines = output.splitlines()
    for at in (next(i for i, line in enumerate(lines) if line.startswith("| 1 ") and "OK" in line), ):
        lines[at] = lines[at].replace("OK     ", "Warning", 1)
    dies = parse_info("\n".join(lines) + "\n")
    warned = [d for d in dies if d.health == "Warning"]
    assert warned and all(tool_line("\n".join(lines), d) is None for d in warned)
    # a one-chip NPU seen under another index quotes its own NPU's line
    slice_ = (FIXTURES / "npu-smi/npu-smi-4.txt").read_text().replace("| 5     910A           | OK     ",
                                                                        "| 5     910A           | Warning")
    (card,) = [d for d in parse_info(slice_) if d.health == "Warning"]
    assert card.index == 1 and card.name == "910A (NPU 5)"
    assert tool_line(slice_, card) == "5 910A | Warning | 63.8 25"
