"""A workload's own words in the report: the scan's table in the report's language, a soak's verdict in its unit."""

import pytest

from report_runs import T0
from test_report import _screenshot, _unzip
from tui.report.export import ExportInputs, export_bundle
from tui.store import RunStore
from workloads import protocol

FAILURES = [{"op": "aten.native_layer_norm.default", "dtype": "bf16", "status": "crash", "nmse": None,
             "threshold": None, "message": "the worker died (SIGABRT)",
             "modules": ["gpt2-decode:h.0.ln_1 (LayerNorm)"]},
            {"op": "aten.addmm.default", "dtype": "fp16", "status": "mismatch", "nmse": 0.16, "threshold": 1e-5,
             "message": "13 of 13 calls: NMSE 0.164 > 1e-05", "modules": ["resnet50:fc (Linear)"]}]


def _scan_run(tmp_path):
    run = RunStore(tmp_path / "runs").create("opscan", [])
    run.append(protocol.Start(t=T0, workload="opscan", device="cpu (x86_64, 2 threads)"))
    run.append(protocol.Result(t=T0 + 30, metrics={
        "ops": 57, "rows_ok": 149, "rows_failed": 2, "cases_per_s": 13.4,
        "by_dtype": {"fp32": {"ok": 57}, "fp16": {"ok": 46, "mismatch": 1}, "bf16": {"ok": 46, "crash": 1}},
        "failures": FAILURES}))
    run.append(protocol.End(t=T0 + 31, status="ok", exit_code=0))
    run.close()
    return run.path


@pytest.mark.parametrize("lang, said", [
    ("en", ["#### Operator coverage (failures first)", "| op | dtype | status | NMSE (threshold) | called from |",
            "| aten.native_layer_norm.default | bf16 | crash |", "| 57 ops | fp32 | ok |"]),
    ("zh", ["#### 算子覆盖（失败在前）", "| 算子 | 精度 | 状态 | NMSE（阈值） | 调用它的模块 | 信息 |",
            "| aten.native_layer_norm.default | bf16 | 崩溃 |", "| aten.addmm.default | fp16 | 结果不符 | 0.16 (1e-05) |",
            "| 57 个算子 | fp32 | 正常 |"]),
])
def test_the_scan_s_table_is_in_the_report_s_language(tmp_path, lang, said):
    bundle = export_bundle(ExportInputs([_scan_run(tmp_path)], tmp_path / "out", screenshot_svg=_screenshot(),
                                        lang=lang))
    md = (_unzip(bundle, tmp_path / lang) / "report.md").read_text()
    for line in said:
        assert line in md, line
    if lang == "zh":
        assert "Operator coverage" not in md and "| crash |" not in md


def test_a_soak_s_summary_reads_its_verdict_and_drift_in_its_own_unit(tmp_path):
    run = RunStore(tmp_path / "runs").create("soak", ["--hours", "0.01"])
    run.append(protocol.Start(t=T0, workload="soak", device="cpu (x86_64, 2 threads)"))
    for i in range(1, 5):  # the inner workload's forwarded steps are in images/s
        run.append(protocol.Step(t=T0 + i, step=i, throughput=10.0 + i, unit="images/s"))
    run.append(protocol.Result(t=T0 + 30, metrics={"verdict": "FAIL", "drift_worst_pct": -24.7}))
    run.append(protocol.End(t=T0 + 31, status="ok", exit_code=0))
    run.close()
    bundle = export_bundle(ExportInputs([run.path], tmp_path / "out", screenshot_svg=_screenshot()))
    md = (_unzip(bundle, tmp_path / "x") / "report.md").read_text()
    row = next(line for line in md.splitlines() if line.startswith("| Soak"))
    assert "| FAIL (-24.7 % drift) |" in row and "images/s" not in row.split("|")[3]


def test_a_headline_s_unit_is_the_workload_s_own_else_its_steps(tmp_path):
    from tui.report.summary import summarize
    from tui.store import load_run

    def unit_of(workload):
        run = RunStore(tmp_path / workload).create(workload, [])
        run.append(protocol.Start(t=T0, workload=workload, device="cpu"))
        run.append(protocol.Step(t=T0 + 1, step=1, throughput=25.0, unit="it/s"))
        run.append(protocol.End(t=T0 + 2, status="ok", exit_code=0))
        run.close()
        return summarize(load_run(run.path)).headline_unit

    assert unit_of("command") == "it/s"   # a user's job: the unit its log printed
    assert unit_of("soak") == "% drift"   # not its inner steps' unit
