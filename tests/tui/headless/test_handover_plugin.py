"""A workload that hands something to the suite's later jobs is plugged in by its spec alone: it runs first, its
hook extends the arguments of the jobs it chooses, and its words become the report's note for them; no tui/ module
knows its name. Torch-free stand-in children."""

import sys

import pytest

from paths import CHILDREN
from suite_stand_ins import STEADY, run_with_stand_ins
from tui import headless
from tui.cli import build_parser
from workloads import exit_codes
from workloads.runner import Runner
from tui.headless.handover import in_sentence
from tui.headless.plan import suite_names
from workloads import registry
from workloads.result_record import record_of
from workloads.spec import SuiteArgs, Text, WorkloadSpec

CALLS = []


def _hand_over(run_dir, why_not, workload, args):
    """Gives `generate` the relay's run dir; resnet50 and the rest take nothing."""
    CALLS.append((workload, run_dir, why_not))
    if workload != "generate":
        return None
    if run_dir is None:
        return Text(f"nothing relayed: {why_not.en}", f"未转交：{why_not('zh')}")
    args += ["--relayed-from", str(run_dir)]
    return Text(f"relayed from {run_dir.name}", f"转交自 {run_dir.name}")


RELAY = WorkloadSpec(name="relay", title=Text("Baton relay", "接力"), result=record_of("batons_per_s", "batons/s"),
                     suite=SuiteArgs(suites=("quick",)), hand_over=_hand_over)


def _run(tmp_path, monkeypatch, relay_command):
    CALLS.clear()
    return run_with_stand_ins(tmp_path, monkeypatch, {"relay": relay_command}, "quick")


@pytest.fixture
def relay():
    with registry.registered(RELAY):
        yield RELAY


def test_a_workload_with_a_hand_over_runs_first_and_its_words_are_the_reports_note(relay, tmp_path, monkeypatch):
    assert suite_names(None, "quick") == ["relay", "resnet50", "generate"]  # registered last, yet first
    started, state, runs, out = _run(tmp_path, monkeypatch, [sys.executable, str(CHILDREN / "steady.py"), "1"])
    assert list(started) == ["relay", "resnet50", "generate"]
    assert started["generate"][-2:] == ["--relayed-from", str(runs["relay"])]
    assert "--relayed-from" not in started["resnet50"]
    assert [(w, d) for w, d, _ in CALLS] == [("resnet50", runs["relay"]), ("generate", runs["relay"])]
    (said,) = state.notes
    assert str(said) == f"generate: relayed from {runs['relay'].name}"
    assert said("zh") == f"{registry.spec_for('generate').title('zh')}：转交自 {runs['relay'].name}。"
    assert f"  {said}\n" in out  # the terminal says it too
    assert not state.failed


def test_a_failed_hand_over_tells_the_hook_why_in_the_workloads_own_title(relay, tmp_path, monkeypatch):
    started, state, _, _ = _run(tmp_path, monkeypatch, [sys.executable, str(CHILDREN / "crash.py")])
    assert "--relayed-from" not in started["generate"]
    (said,) = state.notes
    assert str(said).startswith("generate: nothing relayed: the baton relay ended failed")
    assert "接力以 failed 结束" in said("zh")
    assert state.failed == ["relay"]


def test_a_suite_without_a_hand_over_calls_no_hook_and_notes_nothing(tmp_path, monkeypatch):
    started, state, _, _ = _run(tmp_path, monkeypatch, [])
    assert list(started) == ["resnet50", "generate"] and state.notes == []


@pytest.mark.parametrize("title, inside", [("Operator coverage scan", "operator coverage scan"),
                                           ("ResNet-50 training", "ResNet-50 training"),
                                           ("GPT-2 generation", "GPT-2 generation"), ("A relay", "a relay")])
def test_a_title_inside_a_sentence_keeps_its_capitals_only_where_they_are_a_names(title, inside):
    assert in_sentence(title) == inside


def _export(tmp_path, monkeypatch, *extra):
    """`cardbench --export-report` on a machine whose torch sees no accelerator, stand-in children: (exit code,
    the notes the report was given)."""
    monkeypatch.setattr(headless, "run_doctor", lambda progress: ([], None))
    monkeypatch.setattr(headless, "start_sampler", lambda progress, session: None)
    monkeypatch.setattr(Runner, "for_workload", classmethod(lambda cls, name, args=(), **kw: cls(STEADY, **kw)))
    built = {}
    monkeypatch.setattr(headless, "build_bundle", lambda run_dirs, output, progress, doctor, note, notes, sample,
                        options: built.update(notes=list(notes)) or output / "b.zip")
    args = build_parser().parse_args(["--runs-dir", str(tmp_path / "runs"), "--export-report",
                                      "-o", str(tmp_path / "out"), "--allow-cpu", *extra])
    return headless.export_report(args), built["notes"]


def test_the_hand_over_note_reaches_the_report(relay, tmp_path, monkeypatch):
    code, notes = _export(tmp_path, monkeypatch)
    assert code == exit_codes.OK
    assert [n for n in notes if str(n).startswith("generate: relayed from ")]


def test_the_progress_counts_the_standard_suites_workloads(tmp_path, monkeypatch, capsys):
    code, _ = _export(tmp_path, monkeypatch, "--suite", "standard")
    err = capsys.readouterr().err
    assert code == exit_codes.OK
    assert "[1/10] doctor" in err and "[10/10] report bundle" in err  # the doctor, eight workloads, the bundle
