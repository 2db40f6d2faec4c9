"""A cold start's phases as the report's table: each phase's seconds and share of the total, the compile's N/A with its
reason, the read beside its bytes, rate and cold/warm state, in English and Chinese; llm's and finetune's tables."""

import pytest

from workloads import registry
from workloads.cold_start.table import lines, report_table
from workloads.facts.text_table import text_lines

METRICS = {"cold_start_s": 4.0, "cold_start_import_s": 2.0, "cold_start_device_s": 0.5, "cold_start_read_s": 0.5,
           "cold_start_build_s": 0.6, "cold_start_compile_s": None, "cold_start_first_token_s": 0.4,
           "cold_start_read_state": "cold", "cold_start_read_how": "fadvise", "cold_start_read_resident": 0.001,
           "cold_start_read_reason": "(the English of the parts)", "cold_start_read_bytes": 500_000_000,
           "cold_start_compile_how": "off", "cold_start_compile_note": "N/A: no --compile (or --cuda-graphs) asked for"}


def _said(cell, lang="en"):
    return cell(lang) if callable(cell) else cell


def test_each_phase_with_its_seconds_share_and_definition():
    heading, columns, rows = report_table(METRICS)
    assert "to the first token" in _said(heading)
    table = {_said(r[0]): [_said(c) for c in r[1:]] for r in rows}
    assert list(table) == ["process start and torch import", "device initialisation", "weights read", "model build",
                           "first compile or graph capture", "first token", "total"]
    assert table["process start and torch import"][:2] == ["2.000", "50.0 %"]
    assert table["weights read"][:2] == ["0.500", "12.5 %"]
    assert table["weights read"][2] == ("477 MiB into host memory, 1.00 GB/s; cold read: page cache dropped "
                                        "(posix_fadvise); 0.1 % of the bytes resident before the read (mincore)")
    assert table["first compile or graph capture"] == ["N/A", "N/A", "N/A: no --compile (or --cuda-graphs) asked for"]
    assert table["total"][:2] == ["4.000", "100.0 %"]


def test_the_table_in_chinese_says_the_state_in_chinese():
    heading, columns, rows = report_table({**METRICS, "cold_start_read_state": "warm"})
    assert "冷启动" in _said(heading, "zh") and [_said(c, "zh") for c in columns][2] == "占总时间比例"
    read = next(r for r in rows if _said(r[0]) == "weights read")
    assert _said(read[3], "zh") == ("477 MiB 读入主机内存，1.00 GB/s；热读：已丢弃页缓存（posix_fadvise）；读取前 0.1 % 的字节仍在"
                                    "页缓存中（mincore）")
    assert _said(rows[4][3], "zh") == "N/A：未要求 --compile（或 --cuda-graphs）"


def test_a_run_of_another_version_says_its_english_reason_and_compile_as_written():
    old = {**METRICS, "cold_start_read_how": None, "cold_start_compile_how": "jit_traced"}
    rows = report_table(old)[2]
    assert _said(rows[2][3], "zh").endswith("(the English of the parts)") and _said(rows[4][3], "zh") == "jit_traced"


def test_a_child_that_died_leaves_na_where_it_did_not_reach():
    died = {**METRICS, "cold_start_s": None, "cold_start_build_s": None, "cold_start_first_token_s": None}
    rows = {_said(r[0]): r[1:3] for r in report_table(died)[2]}
    assert rows["device initialisation"] == ["0.500", "N/A"] and rows["total"] == ["N/A", "N/A"]


def test_llm_and_finetune_say_their_own_first_output_and_a_run_without_one_has_no_table():
    llm = registry.spec_for("llm").report_table
    finetune = registry.spec_for("finetune").report_table
    assert "first token" in _said(llm(METRICS)[0])
    heading, _, rows = finetune(METRICS)
    assert "first optimizer step's loss" in _said(heading) and _said(rows[-2][0]) == "first optimizer step"
    assert "AdamW" in _said(rows[3][3])
    assert finetune({"tokens_per_s": 1000.0})[2] == []   # an ordinary fine-tune: nothing under its figures
    assert llm({"cells": []})[2] == []


@pytest.mark.parametrize("output", ["token", "step"])
def test_run_log_prints_the_report_cells(output):
    printed = lines(METRICS, output)
    assert printed == text_lines(*report_table(METRICS, output)) and len(printed) == 2 + 7
    assert "  weights read " in printed[4] and "12.5 %" in printed[4]
