"""The standard suite runs the operator scan first (its spec's hand_over) and hands its verdict to resnet50
(`--ops-from`), and says which precision resnet50 was given and why; torch-free stand-ins for the children, no
real scan."""

import json
import sys

from paths import CHILDREN
from suite_stand_ins import run_with_stand_ins
from tui.headless.plan import suite_jobs, suite_names

# what a scan's result lists of its failures: batch norm (called from ResNet-50) not implemented in bf16,
# layer norm (only GPT-2 calls it) crashing in bf16, convolution wrong in fp16 only
FAILURES = [
    {"op": "aten.native_batch_norm.default", "dtype": "bf16", "status": "not_implemented",
     "modules": ["resnet50:bn1 (BatchNorm2d)", "resnet50:layer1.0.bn1 (BatchNorm2d)"]},
    {"op": "aten.native_layer_norm.default", "dtype": "bf16", "status": "crash",
     "modules": ["gpt2-train:h.0.ln_1 (LayerNorm)"]},
    {"op": "aten.convolution.default", "dtype": "fp16", "status": "mismatch", "modules": ["resnet50:conv1 (Conv2d)"]},
]


def _scan_child(tmp_path, failures):
    """A stand-in scan: start, a result listing ``failures``, end ok (the suite reads the verdict from its events)."""
    path = tmp_path / "scan_child.py"
    lines = [{"event": "start", "workload": "opscan", "config": {}, "device": "cpu", "versions": {}},
             {"event": "result", "metrics": {"failures": failures, "rows_failed": len(failures)}},
             {"event": "end", "status": "ok"}]
    path.write_text("import sys\n" + "".join(f"print({json.dumps(json.dumps(e))}, flush=True)\n" for e in lines))
    return [sys.executable, str(path)]


def _run(tmp_path, monkeypatch, scan_command, amp="bf16", suite="standard"):
    started, state, runs, _ = run_with_stand_ins(tmp_path, monkeypatch, {"opscan": scan_command}, suite, amp)
    return started, state, runs


def test_the_standard_suite_runs_the_scan_first_and_the_quick_suite_is_unchanged():
    assert suite_names(None, "standard") == ["opscan", "resnet50", "generate", "microbench", "dataio", "finetune", "serve", "llm"]
    assert suite_names(None, "quick") == suite_names(None) == ["resnet50", "generate"]
    assert suite_names(["generate", "opscan", "resnet50"], "quick") == ["opscan", "resnet50", "generate"]
    jobs, notes = suite_jobs("standard", None, accelerator=False, device=None)
    assert jobs[0].workload == "opscan" and jobs[0].args == ["--repeats", "1"]  # the CPU size: each case timed once
    assert any(str(n).startswith("opscan: no accelerator") for n in notes)


def test_resnet50_is_given_the_scans_run_and_the_note_says_what_it_keeps_in_fp32_and_why(tmp_path, monkeypatch):
    started, state, runs = _run(tmp_path, monkeypatch, _scan_child(tmp_path, FAILURES))
    assert list(started) == ["opscan", "resnet50", "generate", "microbench", "dataio", "finetune", "serve", "llm"]
    assert started["resnet50"][-4:] == ["--amp", "bf16", "--ops-from", str(runs["opscan"])]
    assert all("--ops-from" not in started[name] for name in ("generate", "microbench", "dataio"))
    (said,) = state.notes
    assert str(said) == ("resnet50: bf16 autocast with BatchNorm2d kept in fp32 from the first step (--ops-from the "
                         "scan's run): the scan found aten.native_batch_norm.default failing in bf16")
    assert "BatchNorm2d" in said("zh") and "保持 fp32" in said("zh")
    assert not state.failed


def test_a_scan_with_nothing_failing_in_the_dtype_hands_over_with_nothing_kept(tmp_path, monkeypatch):
    started, state, runs = _run(tmp_path, monkeypatch, _scan_child(tmp_path, FAILURES), amp="fp16")
    assert started["resnet50"][-2:] == ["--ops-from", str(runs["opscan"])]
    assert [str(n) for n in state.notes] == ["resnet50: fp16 autocast with Conv2d kept in fp32 from the first step "
                                             "(--ops-from the scan's run): the scan found aten.convolution.default "
                                             "failing in fp16"]
    started, state, _ = _run(tmp_path, monkeypatch, _scan_child(tmp_path, FAILURES[1:2]))
    assert "--ops-from" in started["resnet50"]
    assert [str(n) for n in state.notes] == [
        "resnet50: bf16 autocast throughout: the scan found every op resnet50 calls ok in bf16"]


def test_a_failed_scan_leaves_resnet50_as_before_and_the_note_says_so(tmp_path, monkeypatch):
    started, state, _ = _run(tmp_path, monkeypatch, [sys.executable, str(CHILDREN / "crash.py")])
    assert "--ops-from" not in started["resnet50"] and started["resnet50"][-2:] == ["--amp", "bf16"]
    (said,) = state.notes
    assert str(said).startswith("resnet50: bf16 autocast as without a scan, nothing kept in fp32 from the start")
    assert "the operator coverage scan ended failed" in str(said)  # the scan's title, from its spec
    assert state.failed == ["opscan"]


def test_without_autocast_there_is_nothing_to_hand_over(tmp_path, monkeypatch):
    started, state, _ = _run(tmp_path, monkeypatch, _scan_child(tmp_path, FAILURES), amp="off")
    assert "--ops-from" not in started["resnet50"]
    assert [str(n) for n in state.notes] == ["resnet50: fp32 throughout (--amp off), so the scan's verdict was not needed"]


def test_a_suite_without_the_scan_adds_no_argument_and_no_note(tmp_path, monkeypatch):
    started, state, _ = _run(tmp_path, monkeypatch, _scan_child(tmp_path, FAILURES), suite="quick")
    assert list(started) == ["resnet50", "generate"]
    assert started["resnet50"] == ["--steps", "200", "--batch-size", "128", "--amp", "bf16"]
    assert state.notes == []
