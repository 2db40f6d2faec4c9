"""The suite's CPU budget is shared so every workload gets its minimum (issue 36 item 1): the standard suite on a
CPU stopped ResNet-50 at its share after one measured step. A run short of the steps after warm-up a figure needs
goes on past its deadline until it has them (at most one more share), and a later run still gets its share."""
import asyncio
import io
import sys

from paths import CHILDREN
from tui.headless.plan import Budget, Job, budget_for
from tui.headless.progress import Progress
from tui.headless.suite import SuiteState, run_suite
from tui.report.summary import summarize
from tui.session import RunSession
from tui.store import RunStore, load_run
from workloads.facts.warmup import MIN_MEASURED_STEPS
from workloads.runner import Runner


def test_each_run_gets_at_least_its_share_and_more_when_one_before_ended_early():
    budget = budget_for([Job("a", [], None), Job("b", [], None)], 100.0, 60.0)
    assert budget == Budget(end=160.0, share=30.0)
    early, late = Job("b", [], None), Job("b", [], None)
    budget.give(early, 110.0, 1)        # the first ended 20 s early: the second has the 50 s left
    assert early.deadline == 160.0 and early.last_call == 190.0
    budget.give(late, 150.0, 1)         # the first went 20 s over: the second still gets its 30 s
    assert late.deadline == 180.0
    assert budget_for([], 0.0, 60.0) is None and budget_for([early], 0.0, None) is None


def test_a_run_short_of_its_minimum_at_its_deadline_goes_on_until_it_has_it(tmp_path, monkeypatch):
    # four steps (its minimum after the one default warm-up step) take 3.2 s: never done by its 3 s deadline, done
    # well before its last call at 6 s however slowly the child starts on a loaded host
    slow = [sys.executable, str(CHILDREN / "steady.py"), "1000", "0.8"]
    monkeypatch.setattr(Runner, "for_workload", classmethod(lambda cls, name, args=(), **kw: cls(slow, **kw)))
    monkeypatch.setenv("CARDBENCH_CPU_BUDGET_S", "3")
    state, out = SuiteState(accelerator=False), io.StringIO()
    asyncio.run(run_suite([Job("resnet50", [], None)], RunSession(RunStore(tmp_path / "runs")), state,
                          Progress(phases=1, stream=out, tty=False), [], "standard"))
    record = load_run(state.run_dirs[0])
    assert record.status == "stopped" and state.out_of_time == ["resnet50"] and not state.failed
    summary = summarize(record)
    assert summary.throughput.n >= MIN_MEASURED_STEPS and summary.headline is not None
    assert len(record.steps) < 10, "stopped as soon as it had its minimum, not left to run"
    assert "went past its share of the CPU time budget to measure the steps a figure needs; stopped" in out.getvalue()
