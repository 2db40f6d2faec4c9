"""A --fit-only run's report (`cardbench fit ...; cardbench export --run DIR`): the plan's three tables, the estimate,
the verdicts and the runtime's lines (`workloads.models.llama.fit_table`), in English and in Chinese, as the
terminal prints them; a run recorded before the plan had targets still has its verdicts."""

from __future__ import annotations

import io
import json
import re

import pytest

from catalogue_words import english_leaks
from report_runs import T0
from test_report import _screenshot, _unzip, quick_env  # noqa: F401 - quick_env: the fake nvidia-smi, collect_env
from tui.report.export import ExportInputs, export_bundle
from tui.store import RunStore
from workloads import protocol
from workloads.child.harness import Emitter
from workloads.llm.cli import main as llm_main
from workloads.result_record import STRICT_ENV

ARGS = ["--fit-only", "--model", "Qwen2.5-7B", "--card", "Ascend 910B3", "--card", "NVIDIA A100 80GB",
        "--input-len", "4096"]


def _store_run(store, metrics):
    run = store.create("llm", ARGS)
    run.append(protocol.Start(t=T0, workload="llm", device="no device (a plan for the cards and sizes named)"))
    run.append(protocol.Result(t=T0 + 0.1, metrics=metrics))
    run.append(protocol.End(t=T0 + 0.2, status="ok", exit_code=0))
    run.close()
    return run.path


def _plan(monkeypatch) -> dict:
    monkeypatch.delenv(STRICT_ENV, raising=False)
    out = io.StringIO()
    assert llm_main(Emitter(out), ARGS) == 0
    return next(e for e in map(json.loads, out.getvalue().splitlines()) if e["event"] == "result")["metrics"]


def _report(tmp_path, runs, lang):
    bundle = export_bundle(ExportInputs(runs, tmp_path / f"out-{lang}", screenshot_svg=_screenshot(), lang=lang,
                                        doctor_checks=[]))
    return (_unzip(bundle, tmp_path / lang) / "report.md").read_text()


def _tables(md: str) -> list[tuple[str, list[str]]]:
    """Each '#### heading' of the workloads' section with the table's lines under it."""
    found = []
    for block in md.split("\n#### ")[1:]:
        heading, _, rest = block.partition("\n")
        paragraphs = [p.strip() for p in rest.split("\n## ", 1)[0].split("\n\n")]
        table = next((p for p in paragraphs if p.startswith("|")), "")
        found.append((heading, table.splitlines()))
    return found


@pytest.mark.usefixtures("quick_env")
def test_a_fit_only_run_s_report_has_the_three_tables_in_english_and_chinese(tmp_path, monkeypatch):
    m = _plan(monkeypatch)
    runs = [_store_run(RunStore(tmp_path / "runs"), m)]
    tables = dict(_tables(_report(tmp_path, runs, "en")))
    estimate = tables["Fit of Qwen2.5-7B in bf16 at batch 1 x 4224 positions (4096 prompt tokens prefilled at once): "
                      "needs on one card"]
    assert estimate[0] == ("| use | needs | weights | KV cache | activations | transient peak | gradients + AdamW | "
                           "runtime |") and len(estimate) == 2 + 5
    verdicts = tables["Fit of Qwen2.5-7B on: Huawei Ascend 910B3, 64.0 GiB rated; NVIDIA A100 80GB (form factor not "
                      "named), 80.0 GiB rated"]
    assert verdicts[0] == "| use or figure | Ascend 910B3 64 GiB | A100 80GB |" and len(verdicts) == 2 + 5 + 5
    assert "| AdamW full | needs 4 cards | needs 3 cards |" in verdicts
    assert "| rated bf16 peak | N/A: no rated figure | 312 TFLOP/s |" in verdicts
    runtime = next(rows for heading, rows in tables.items() if heading.startswith("Fit runtime's lines"))
    assert runtime[0] == "| line | bytes |" and len(runtime) == 2 + 6
    # the runtime's lines are labelled as the report's list of every figure labels them
    every = next(rows for heading, rows in tables.items() if heading == "All result metrics")
    for row in runtime[2:]:
        assert row in every, row

    zh = _report(tmp_path, runs, "zh")
    headings = [h for h, _rows in _tables(zh)]
    assert "Qwen2.5-7B（bf16）在批 1 × 4224 个位置（一次预填充 4096 个提示 token）下的单卡需要" in headings
    assert any(h.startswith("Qwen2.5-7B 的适配结论，对照：Huawei Ascend 910B3，额定 64.0 GiB") for h in headings)
    assert any(h.startswith("推理时的适配运行时各项") for h in headings)
    section = zh.split("## 负载结果", 1)[1].split("\n#### 图表", 1)[0]
    assert "| 训练：AdamW 全参数 | 需 4 张卡 | 需 3 张卡 |" in section
    assert english_leaks(section) == [] and not re.search(r"\| (use|needs|line) \|", section)


@pytest.mark.usefixtures("quick_env")
def test_a_run_recorded_before_the_plan_had_targets_has_its_verdicts_in_the_report(tmp_path):
    old = {"model_size": "tiny", "free_bytes": 2**30, "fit": [
        {"use": "inference", "total_bytes": 2**29, "fits": True},
        {"use": "train AdamW full", "total_bytes": 3 * 2**30, "fits": False, "cards": 3}]}
    tables = dict(_tables(_report(tmp_path, [_store_run(RunStore(tmp_path / "runs"), old)], "en")))
    verdicts = tables["Fit of tiny on: this device's free memory now, 1.0 GiB"]
    assert verdicts[2:] == ["| inference | fits, batch <= N/A |", "| AdamW full | needs 3 cards |"]
    assert not any(h.startswith("Fit runtime's lines") for h in tables)   # it had none: no table
