"""The doctor's verdicts that a user read as contradictions (issue 15, item 8), and its Chinese words.

A compatibility layer's nvidia-smi lists cards that the PCI bus does not name; NVML is
missing where no NVIDIA card is on the bus; the card `--device auto` picks is already busy.
"""

from __future__ import annotations

import json

import pytest

from catalogue_words import english_leaks
from fake_cli import only_on_path, write_cli
from test_doctor import CPU_ONLY_PROBE, by_id, gpu_probe, healthy
from tui import doctor
from tui.cli import doctor as command
from tui.doctor import FAIL, PASS, SKIP, TITLES, WARN, Facts, checks_from
from tui.doctor.check import DoctorCheck, chinese_of
from tui.i18n import say
from tui.report.envinfo import normalize_checks
from tui.report.i18n import Words
from tui.telemetry.sample import DeviceProcess, DeviceSample
from workloads.hints import RULES

GIB = 2**30
NOT_FOUND = "NVMLError_LibraryNotFound: NVML Shared Library Not Found"


def v100(index: int, util: float, used_gib: float, **kw) -> DeviceSample:
    return DeviceSample(index=index, name="Tesla V100-SXM2-32GB", uuid=f"GPU-{index}", util_gpu_pct=util,
                        mem_used_bytes=int(used_gib * GIB), mem_total_bytes=32 * GIB, **kw)


def compat_layer(**changes) -> Facts:
    """Two cards listed by an nvidia-smi-compatible CLI, none named on the PCI bus, no NVML."""
    base = dict(cli_output="GPU 0: Tesla V100-SXM2-32GB (UUID: GPU-0)\nGPU 1: Tesla V100-SXM2-32GB (UUID: GPU-1)",
                cli_gpu_count=2, pci_vendors=[], nvml_ok=False, nvml_error=NOT_FOUND, nvml_count=None,
                devices=[v100(0, 0, 0.1), v100(1, 0, 0.1)])
    return healthy(**(base | changes))


def test_no_pass_on_an_empty_pci_bus_while_the_cli_lists_cards():
    check = by_id(checks_from(compat_layer()))["pci.accelerators"]
    assert check.status == SKIP  # the cards exist; the bus just cannot name their maker
    assert "none found" not in check.evidence
    assert "nvidia-smi lists 2" in check.evidence and "compatibility layer" in check.evidence
    # no tool lists a card either: the bus's silence is the news
    empty = by_id(checks_from(compat_layer(cli_name=None, cli_ok=None, cli_gpu_count=None, probe=CPU_ONLY_PROBE)))
    assert empty["pci.accelerators"].status == WARN and "was a GPU instance rented" in empty["pci.accelerators"].hint


def test_nvml_missing_is_a_warning_behind_a_compatibility_layer_and_a_failure_on_an_nvidia_card():
    compat = by_id(checks_from(compat_layer()))["nvml.loads"]
    assert compat.status == WARN
    assert "nvidia-smi lists 2 card(s)" in compat.evidence and "readings come from the CLI" in compat.hint
    nvidia = by_id(checks_from(compat_layer(pci_vendors=["NVIDIA", "NVIDIA"])))["nvml.loads"]
    assert nvidia.status == FAIL and nvidia.hint.startswith("libnvidia-ml.so is missing")
    for check in (compat, nvidia):  # neither verdict is excused by a hint that says it is expected
        assert "expected on non-NVIDIA" not in check.hint


def test_the_card_auto_picks_is_named_when_another_process_keeps_it_busy():
    busy = [v100(0, 83, 30, processes=(DeviceProcess(4242, "python", 30 * GIB),)), v100(1, 0, 0.1)]
    check = by_id(checks_from(compat_layer(devices=busy)))["device.busy"]
    assert check.status == WARN
    assert check.evidence.startswith("GPU0 Tesla V100-SXM2-32GB is already busy: 83 % utilisation, "
                                     "30.0 GiB of 32.0 GiB in use; processes: 4242 python (30.0 GiB)")
    assert "GPU1 is idle" in check.hint and (check.value, check.unit) == (83.0, "%")
    assert command.exit_code(checks_from(compat_layer(devices=busy))) == 0  # a busy card is not a broken machine


@pytest.mark.parametrize("env, devices, status", [
    ({}, [v100(0, 0, 0.5), v100(1, 90, 31)], PASS),                          # the busy card is not the one picked
    ({"CUDA_VISIBLE_DEVICES": "1"}, [v100(0, 0, 0.5), v100(1, 90, 31)], WARN),  # auto picks the first visible
    ({"CUDA_VISIBLE_DEVICES": "GPU-1,GPU-0"}, [v100(0, 0, 0.5), v100(1, 0, 4)], WARN),  # by UUID; memory alone
    ({}, [v100(0, 9, 3)], PASS),                                             # under both bounds
    ({}, [DeviceSample(index=0, name="x")], SKIP),                           # no reading: no verdict
])
def test_busy_means_the_first_visible_card_over_either_bound(env, devices, status):
    check = by_id(checks_from(compat_layer(env=env, devices=devices)))["device.busy"]
    assert check.status == status, check


def test_a_busy_card_torch_cannot_use_is_not_what_auto_picks():
    check = by_id(checks_from(compat_layer(probe=CPU_ONLY_PROBE, devices=[v100(0, 83, 30)])))["device.busy"]
    assert check.status == SKIP and "runs on the CPU" in check.evidence
    assert "(GPU0 is already busy: 83 % utilisation" in check.evidence  # auto's card once torch is fixed


def test_gather_reads_the_cards_utilisation_and_memory_from_the_cli(tmp_path, monkeypatch):
    gpus = [{"index": "0", "name": "Tesla V100-SXM2-32GB", "utilization.gpu": "83", "memory.used": "30720",
             "memory.total": "32768"},
            {"index": "1", "name": "Tesla V100-SXM2-32GB", "utilization.gpu": "0", "memory.used": "4",
             "memory.total": "32768"}]
    write_cli(tmp_path, "nvidia-smi", {"gpus": gpus, "apps": ""})
    only_on_path(monkeypatch, tmp_path)
    facts = Facts()
    doctor.facts.gather_readings(facts)
    assert [(d.index, d.util_gpu_pct, d.mem_used_bytes) for d in facts.devices] == [(0, 83.0, 30 * GIB),
                                                                                     (1, 0.0, 4 * 2**20)]


SCENARIOS = {
    "healthy": healthy(),
    "compat layer, busy card": compat_layer(devices=[v100(0, 83, 30), v100(1, 0, 0.1)]),
    "cpu-only torch": compat_layer(probe=CPU_ONLY_PROBE),
    "nvidia without nvml": compat_layer(pci_vendors=["NVIDIA"]),
    "no cli, nothing": Facts(nvml_ok=False, nvml_error=NOT_FOUND, probe=healthy().probe, disk_free_bytes=GIB,
                             disk_total_bytes=10 * GIB, env={"CUDA_VISIBLE_DEVICES": "-1"}),
}


@pytest.mark.parametrize("name", SCENARIOS)
def test_every_check_carries_its_chinese_name_and_hint(name):
    for check in checks_from(SCENARIOS[name]):
        zh = chinese_of(check)
        assert check.said("name", "zh") == zh["name"] == say(f"check.{check.id}", "zh")
        if check.hint:
            assert zh.get("hint"), (check.id, check.hint)
        evidence = zh.get("evidence", "")
        assert evidence != check.evidence  # a Chinese field is never the English copied over
        # ... nor a sentence of the catalogue said in English: the Chinese path took the Chinese string
        assert english_leaks(" | ".join(zh.values())) == [], check.id


def test_the_chinese_evidence_keeps_the_numbers_and_the_quoted_tool_output():
    c = by_id(checks_from(compat_layer(devices=[v100(0, 83, 30), v100(1, 0, 0.1)])))
    assert c["device.busy"].said("evidence", "zh").startswith(
        "GPU0 Tesla V100-SXM2-32GB 已被占用：利用率 83 %，已用显存 30.0 GiB / 32.0 GiB")
    assert NOT_FOUND in c["nvml.loads"].said("evidence", "zh")  # the library's own words stay as it wrote them
    assert "GPU 0: Tesla V100-SXM2-32GB (UUID: GPU-0)" in c["cli.answers"].said("evidence", "zh")


def test_every_name_and_every_known_hint_has_its_chinese():
    assert all(say(f"check.{cid}", "zh") for cid in TITLES)
    missing = [advice for _pattern, advice in RULES if not say(f"hint.{advice}", "zh")]
    assert not missing


def test_totals_name_every_status_in_order():
    checks = checks_from(compat_layer(devices=[v100(0, 83, 30), v100(1, 0, 0.1)]))
    statuses = [c.status for c in checks]
    assert doctor.totals(checks) == ", ".join(f"{statuses.count(s)} {s}" for s in (PASS, WARN, FAIL, SKIP))
    assert doctor.totals([{"status": "PASS"}, {"status": "fail"}]) == "1 PASS, 0 WARN, 1 FAIL, 0 SKIP"


def test_the_chinese_evidence_quotes_what_it_did_not_write_and_joins_lists_in_chinese():
    """A reviewer read '未能加载（NVMLError_LibraryNotFound: ...）' and 'PATH 中没有管理工具（nvidia-smi, ixsmi）':
    English tool words unquoted in a Chinese sentence, joined by an English comma. The report quotes them (a code
    span) and joins with '，'; the doctor's evidence now does too, and its English reads as before."""
    from tui.telemetry import vendors

    c = by_id(checks_from(SCENARIOS["nvidia without nvml"]))
    assert f"（`{NOT_FOUND}`）" in c["nvml.loads"].said("evidence", "zh")
    assert f"not loaded ({NOT_FOUND})" in c["nvml.loads"].evidence
    assert "`GPU 0: Tesla V100-SXM2-32GB (UUID: GPU-0)`" in c["cli.answers"].said("evidence", "zh")
    nothing = by_id(checks_from(SCENARIOS["no cli, nothing"]))
    tools = vendors.names()
    assert len(tools) > 1
    assert f"（{'，'.join(f'`{t}`' for t in tools)}）" in nothing["cli.answers"].said("evidence", "zh")
    assert f"({', '.join(tools)})" in nothing["cli.answers"].evidence
    two = by_id(checks_from(healthy(pci_vendors=["NVIDIA", "NVIDIA", "AMD"])))["pci.accelerators"]
    assert two.said("evidence", "zh") == "2 块 NVIDIA，1 块 AMD" and two.evidence == "2x NVIDIA, 1x AMD"
    disk = by_id(checks_from(healthy(disk_path="/data")))["disk.free"]
    assert disk.said("evidence", "zh").startswith("`/data` 可用") and " at /data (" in disk.evidence   # a path: quoted
    # durations in each language's units
    init = by_id(checks_from(healthy()))["device.init"]
    assert " s " in init.evidence + " " and "秒" in init.said("evidence", "zh") and " s " not in init.said("evidence", "zh") + " "


def test_a_check_whose_hint_is_the_catalogue_s_carries_its_id_and_the_report_says_it_by_it():
    # the evidence of a failed autocast names a missing kernel: its hint is hint.device_code_missing, by id
    c = by_id(checks_from(healthy(probe=gpu_probe(autocast_fp16={"ok": False, "error": "no kernel image is available"}))))
    check = c["device.autocast.fp16"]
    assert check.hint_id == "hint.device_code_missing" and check.to_dict()["hint_id"] == check.hint_id
    row = {**check.to_dict(), "hint": "reworded in a later version", "zh": {}}   # no Chinese of its own
    assert Words("zh").check(row, "hint") == say("hint.device_code_missing", "zh")
    assert by_id(checks_from(healthy()))["disk.free"].to_dict()["hint_id"] is None


@pytest.mark.parametrize("name", SCENARIOS)
def test_a_check_s_words_travel_as_messages_in_doctor_json_and_read_back_in_either_language(name):
    """doctor.json carries each check's own words as catalogue ids and parameters (``said``, plain JSON) beside
    the English and the Chinese of readers from before them (``zh``); the messages alone say it again."""
    for check in checks_from(SCENARIOS[name]):
        row = json.loads(json.dumps(check.to_dict()))
        assert row["evidence"] == check.evidence and row["hint"] == check.hint and row["zh"] == chinese_of(check)
        bare = {k: v for k, v in row.items() if k != "zh"}   # what a reader of messages has
        back = DoctorCheck.from_dict(bare)
        for key in ("name", "evidence", "hint"):
            assert back.said(key, "zh") == check.said(key, "zh") and back.said(key) == check.said(key), (check.id, key)
            assert Words("zh").check(bare, key) == Words("zh").check(row, key), (check.id, key)
        assert [r["said"] for r in normalize_checks([check, row])] == [row["said"], row["said"]]


def test_a_doctor_json_written_before_messages_still_reads_in_chinese():
    old = {"id": "device.init", "name": "CUDA initialisation time", "status": "WARN", "evidence": "24.1 s",
           "hint": "enable persistence mode", "hint_id": None, "value": 24.1, "unit": "s",
           "zh": {"name": "旧名", "evidence": "24.1 秒", "hint": "开启持久模式"}}
    row = normalize_checks([old])[0]
    assert [Words("zh").check(row, k) for k in ("name", "evidence", "hint")] == ["旧名", "24.1 秒", "开启持久模式"]
    assert row["said"] == {} and row["zh"] == old["zh"]   # no messages: its Chinese goes on as it came
    check = DoctorCheck.from_dict(old)
    assert check.said("evidence", "zh") == "24.1 秒" and check.said("evidence") == "24.1 s"
    assert Words("en").check(row, "evidence") == "24.1 s"
    # a said block naming an id this version does not know reads as the old Chinese, then the English quoted
    odd = {**old, "said": {"evidence": {"id": "doctor.gone", "params": {}}}, "zh": {}}
    assert Words("zh").check(odd, "evidence") == "`24.1 s`"
