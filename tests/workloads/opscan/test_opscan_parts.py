"""The scan's parts in process: the comparison, the thresholds, who calls an op, the table, the option checks."""

from __future__ import annotations

import argparse
import sys
import types
from pathlib import Path

import pytest
import torch
from torch import nn

from workloads.child.harness import WorkloadError
from workloads.opscan import cli, notes, sources, statuses, table
from workloads.opscan.record import Recorder
from workloads.opscan.replay import compare
from workloads.opscan.spec import SPEC


def test_a_value_beyond_the_dtype_range_is_inf_there_and_no_mismatch():
    ref = torch.tensor([1.0, 1e5, -2e5], dtype=torch.float64)
    got = ref.to(torch.float16)  # 1e5 is past fp16's 65504: inf, as fp16 must
    assert compare([got], [ref]) == (0.0, 0, "")


def test_a_nan_or_inf_where_the_reference_is_finite_is_counted_apart():
    ref = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    got = torch.tensor([1.0, float("nan"), float("inf")], dtype=torch.float16)
    nmse, nonfinite, _ = compare([got], [ref])
    assert nonfinite == 2 and nmse == 0.0  # the finite part agrees: the NaN/inf are the finding


def test_integer_outputs_must_be_equal():
    assert compare([torch.tensor([1, 2, 3])], [torch.tensor([1, 2, 4])])[2] == "1 of 3 integer/boolean values differ"


def test_the_nmse_is_relative_to_the_reference():
    ref = torch.tensor([3.0, 4.0], dtype=torch.float64)
    got = torch.tensor([3.0, 4.5], dtype=torch.float32)
    assert compare([got], [ref])[0] == pytest.approx(0.25 / 25)


@pytest.mark.parametrize("op, family", [("aten.convolution_backward.default", "matmul"),
                                        ("aten.addmm.default", "matmul"),
                                        ("aten._scaled_dot_product_flash_attention_for_cpu.default", "matmul"),
                                        ("aten.native_layer_norm_backward.default", "reduction"),
                                        ("aten.sum.dim_IntList", "reduction"),
                                        ("aten.gelu.default", "elementwise"), ("aten.add_.Tensor", "elementwise")])
def test_op_families(op, family):
    assert statuses.family(op) == family


def test_thresholds_loosen_with_the_dtype_and_for_accumulating_families():
    for dtype in ("fp32", "fp16", "bf16"):
        assert statuses.threshold("aten.mul.Tensor", dtype) < statuses.threshold("aten.mm.default", dtype)
    assert statuses.threshold("aten.mul.Tensor", "fp32") < statuses.threshold("aten.mul.Tensor", "fp16") \
        < statuses.threshold("aten.mul.Tensor", "bf16")


def test_forward_and_backward_ops_are_charged_to_the_module_that_calls_them():
    model = nn.Sequential(nn.Linear(4, 8), nn.LayerNorm(8), nn.GELU(), nn.Linear(8, 1))
    recorder = Recorder()
    recorder.watch(model, "tiny")
    with recorder:
        recorder.phase = "forward"
        loss = model(torch.randn(3, 4)).sum()
        recorder.phase = "backward"
        loss.backward()
    callers = {}
    for call in recorder.calls.values():
        callers.setdefault(call.op, set()).update(call.modules)
    assert callers["aten.native_layer_norm.default"] == {"tiny:1 (LayerNorm)"}
    assert callers["aten.native_layer_norm_backward.default"] == {"tiny:1 (LayerNorm)"}
    assert callers["aten.gelu_backward.default"] == {"tiny:2 (GELU)"}
    assert callers["aten.addmm.default"] == {"tiny:0 (Linear)", "tiny:3 (Linear)"}


def test_an_op_folds_to_its_worst_status_with_the_callers_of_its_failing_calls():
    calls = [{"modules": ["m:a (LayerNorm)"], "phases": ["forward"]},
             {"modules": ["m:b (LayerNorm)"], "phases": ["forward"]}]
    cases = [{"op": "aten.native_layer_norm.default", "dtype": "bf16", "call": 0, "status": "ok", "nmse": 1e-6},
             {"op": "aten.native_layer_norm.default", "dtype": "bf16", "call": 1, "status": "mismatch", "nmse": 0.3,
              "threshold": 5e-4, "message": "NMSE 0.3 > 0.0005"}]
    [row] = table.fold(cases, calls, device_is_cpu=True)
    assert row["status"] == "mismatch" and row["nmse"] == 0.3 and row["modules"] == ["m:b (LayerNorm)"]
    assert row["message"] == "1 of 2 calls: NMSE 0.3 > 0.0005"


def test_a_note_is_said_in_the_report_s_language_and_ops_csv_keeps_its_english():
    calls = [{"modules": ["m:a (LayerNorm)"], "phases": ["forward"]}] * 3
    op = "aten.native_layer_norm.default"
    cases = [{"op": op, "dtype": "bf16", "call": 0, "status": "ok", "nmse": 1e-6},
             {"op": op, "dtype": "bf16", "call": 1, "status": "mismatch", "nmse": 0.3, "threshold": 5e-4,
              "nonfinite": 2, "message": "NMSE 0.3 > 0.0005; 2 NaN/inf where the reference differs"},
             {"op": op, "dtype": "bf16", "call": 2, "status": None, "message": "not run"}]
    [row] = table.fold(cases, calls, device_is_cpu=True)
    assert row["message"] == ("1 of 2 calls: NMSE 0.3 > 0.0005; 2 NaN/inf where the reference differs (1 more "
                              "call(s) of it not run after that)")
    failures = cli.result_metrics([row], {"dtypes": ["bf16"], "calls": calls}, types.SimpleNamespace(
        crashes=0, hangs=0, restarts_s=[]), 1.0, Path("ops.csv"), 3)["failures"]
    _, _, rows = SPEC.report_table({"failures": failures, "by_dtype": {}})
    assert rows[0][5]("zh") == "2 次调用中 1 次：NMSE 0.3 超过阈值 0.0005；2 个 NaN/inf 与参考结果不同（此后该算子另有 1 次调用未运行）"
    assert str(rows[0][5]) == row["message"]
    # torch's own words stay as they were written, in either language
    error = {"op": op, "dtype": "fp16", "call": 0, "status": "error", "message": "RuntimeError: CUDA error: boom"}
    [failed] = table.fold([error], calls, device_is_cpu=False)
    assert notes.note(failed) == failed["message"] == "RuntimeError: CUDA error: boom"


def test_the_terminal_lists_the_first_failures_says_where_the_rest_are_then_the_ok_counts():
    failures = [{"op": f"aten.op{i:02d}.default", "dtype": "bf16", "status": "mismatch", "nmse": 0.2,
                 "threshold": 5e-4, "modules": ["m:a (Linear)"], "message": "NMSE 0.2 > 0.0005"} for i in range(25)]
    metrics = {"failures": failures, "by_dtype": {"fp32": {"ok": 50}, "bf16": {"ok": 25}},
               "ops_csv": "/runs/x/ops.csv"}
    lines = table.terminal_lines(metrics)
    assert lines[0] == "opscan: Operator coverage (failures first)"
    assert lines[1].split() == ["op", "dtype", "status", "NMSE", "(threshold)", "called", "from", "message"]
    assert lines[2].split()[:4] == ["aten.op00.default", "bf16", "mismatch", "0.2"]
    assert lines[21].split()[0] == "aten.op19.default" and "aten.op20.default" not in "\n".join(lines)
    assert lines[22] == "  ... 5 more failing row(s) in /runs/x/ops.csv"
    assert [line.split()[:3] for line in lines[23:]] == [["50", "ops", "fp32"], ["25", "ops", "bf16"]]
    assert not any("items" in line or "events.jsonl" in line for line in lines)


def test_the_cpu_note_and_none_clean_are_said_in_the_report_s_language():
    assert SPEC.suite.cpu_standard_note("zh") == "没有加速卡，因此扫描在 CPU 上运行，每个用例只计时一次（而非取 3 次的中位数）"
    from tui.figures import metric_text

    clean = SPEC.metric("precisions_clean")
    assert metric_text(clean, [], "zh") == "无" and metric_text(clean, ["fp32", "fp16"], "en") == "fp32; fp16"


def test_the_report_table_lists_failures_worst_first_then_ok_counts():
    metrics = {"by_dtype": {"fp32": {"ok": 50}, "bf16": {"ok": 48}},
               "failures": [{"op": "aten.addmm.default", "dtype": "bf16", "status": "mismatch", "nmse": 0.2,
                             "threshold": 5e-4, "modules": ["gpt2-train:h.0.mlp.c_fc (Dense)"], "message": ""},
                            {"op": "aten.native_layer_norm.default", "dtype": "bf16", "status": "crash",
                             "modules": ["gpt2-train:h.0.ln_1 (LayerNorm)"], "message": "the worker died"}]}
    heading, columns, rows = SPEC.report_table(metrics)  # what the report calls, through the spec
    rows = [[str(c) if isinstance(c, str) else c("en") for c in r] for r in rows]
    assert heading("zh") == "算子覆盖（失败在前）" and columns[2]("zh") == "状态"
    assert [r[:3] for r in rows] == [["aten.native_layer_norm.default", "bf16", "crash"],
                                     ["aten.addmm.default", "bf16", "mismatch"],
                                     ["50 ops", "fp32", "ok"], ["48 ops", "bf16", "ok"]]
    assert rows[0][4] == "h.0.ln_1 (LayerNorm)" and rows[1][3] == "0.2 (0.0005)"


def _args(**given):
    values = dict(dtypes=None, sources=None, model=None, opinfo=None, device="cpu", seed=0, repeats=1)
    return argparse.Namespace(**{**values, **given})


def test_opinfo_without_expecttest_is_refused_before_anything_runs(monkeypatch):
    real = cli.importlib.util.find_spec
    monkeypatch.setattr(cli.importlib.util, "find_spec", lambda name: None if name == "expecttest" else real(name))
    with pytest.raises(WorkloadError, match="--opinfo needs the expecttest package"):
        cli.check(_args(opinfo="conv"))


def test_an_opinfo_regex_that_matches_nothing_is_refused(monkeypatch):
    fake = types.ModuleType("torch.testing._internal.common_methods_invocations")
    fake.op_db = [types.SimpleNamespace(name="add"), types.SimpleNamespace(name="nn.functional.conv2d")]
    monkeypatch.setitem(sys.modules, fake.__name__, fake)
    with pytest.raises(WorkloadError, match="--opinfo zzz: no OpInfo name matches"):
        sources.record_opinfo("zzz", Recorder(), torch.device("cpu"), 0)


def test_the_gpt2_training_step_names_the_layer_norm_each_backward_op_comes_from():
    recorder = Recorder()
    sources.record_builtin("gpt2-train", recorder, torch.device("cpu"), 0)
    callers: dict[str, set[str]] = {}
    phases: dict[str, set[str]] = {}
    for call in recorder.calls.values():
        callers.setdefault(call.op, set()).update(call.modules)
        phases.setdefault(call.op, set()).update(call.phases)
    assert {"gpt2-train:h.0.ln_1 (LayerNorm)", "gpt2-train:ln_f (LayerNorm)"} \
        <= callers["aten.native_layer_norm_backward.default"]
    assert "gpt2-train:h.1.mlp (MLP)" in callers["aten.gelu_backward.default"]  # F.gelu is called in MLP.forward
    assert phases["aten.native_layer_norm_backward.default"] == {"backward"}
    assert "optimizer" in phases["aten.addcdiv_.default"]  # AdamW's update


def test_past_the_cap_of_callers_every_module_type_is_still_kept():
    from workloads.opscan.record import MODULES_KEPT, Call

    call = Call("aten.native_batch_norm.default", [], {}, ["forward"], "resnet50")
    for i in range(MODULES_KEPT + 5):
        call.add_module(f"resnet50:layer{i}.bn1 (BatchNorm2d)")
    call.add_module("resnet50:head.norm (GroupNorm)")
    assert len(call.modules) == MODULES_KEPT + 1 and call.modules[-1] == "resnet50:head.norm (GroupNorm)"
    assert call.more_modules == 5


def test_a_time_that_looks_slow_against_fp32_is_timed_again_and_the_smaller_kept(tmp_path, monkeypatch):
    from workloads.opscan import worker
    from workloads.opscan.record import merged
    from workloads.opscan.replay import Outcome, Replayer
    from workloads.opscan.state import RECORDING, ScanState

    model = nn.Linear(4, 2)
    recorder = Recorder()
    recorder.watch(model, "tiny")
    with recorder:
        model(torch.randn(3, 4))
    calls = [c for c in merged(list(recorder.calls.values())) if c.op == "aten.addmm.default"]
    state = ScanState(tmp_path)
    state.start({"device": "cpu", "repeats": 1, "seed": 0}, resume=False)
    state.write_json(RECORDING, {"dtypes": ["fp32", "fp16"], "calls": [c.to_json() for c in calls], "record_s": 0.1})
    burst = {"fp32": 0.01, "fp16": 12.0}  # a burst of someone else's work landed on the fp16 timing
    monkeypatch.setattr(Replayer, "run", lambda self, call, dtype, i: Outcome("ok", device_ms=burst[dtype]))
    monkeypatch.setattr(Replayer, "time_again", lambda self, call, dtype, i, device=None: 0.012)
    said = []
    monkeypatch.setattr(worker, "say", lambda **message: said.append(message))
    assert worker.main(str(tmp_path), 0) == 0
    times = {m["row"]["dtype"]: m["row"]["device_ms"] for m in said if "row" in m}
    assert times == {"fp32": 0.01, "fp16": 0.012}


def test_the_scan_s_headline_and_progress_say_what_they_count():
    from workloads.opscan.spec import SPEC

    assert SPEC.headline_label() == "cases/s over the whole scan (cases run / scan time)"
    assert SPEC.progress("en") == "case" and SPEC.headline_label("zh").startswith("整个扫描")
    assert not SPEC.has_loss  # a case carries no loss: none is shown, not even as N/A
