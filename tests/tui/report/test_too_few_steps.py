"""A headline needs enough steps after warm-up to be a figure (issue 36 item 1): the standard suite on a CPU cut
ResNet-50 after one measured step, and the report's headline said "1.771 images/s" where the same settings give
56. With fewer than MIN_MEASURED_STEPS after warm-up the row says it was not measured, and why."""
import pytest
from pathlib import Path

from tui.report.i18n import Words
from tui.report.report_data import headline
from tui.report.summary import summarize
from tui.store import RunRecord
from workloads import protocol
from workloads.facts.warmup import MIN_MEASURED_STEPS


@pytest.fixture(autouse=True)
def _threshold_of_a_quiet_host(monkeypatch):
    """These tests judge sharing: the threshold a real host has, not the one the suite sets for every other test."""
    monkeypatch.delenv("CARDBENCH_SHARED_CORES", raising=False)



def _resnet(measured: int, result: float | None = 1.771) -> RunRecord:
    events: list[protocol.Event] = [protocol.Start(t=0.0, workload="resnet50", device="cpu")]
    for i in range(2):
        events.append(protocol.Step(t=1.0 + i, step=i + 1, throughput=0.5, unit="images/s", extra={"warmup": True}))
    for i in range(measured):
        events.append(protocol.Step(t=3.0 + i, step=3 + i, throughput=1.771 + i, unit="images/s"))
    if result is not None:
        events.append(protocol.Result(t=9.0, metrics={"images_per_s": result, "warmup_steps": 2}))
    events.append(protocol.End(t=10.0, status="stopped"))
    return RunRecord(path=Path("runs/r"), config={"workload": "resnet50"}, events=events)


def test_one_step_after_warm_up_is_no_headline_and_the_row_says_why():
    for result in (1.771, None):   # the workload's own median, or the report's from the steps
        s = summarize(_resnet(1, result))
        assert s.too_few_steps and s.headline is None
        assert s.to_dict()["headline"] is None and s.to_dict()["headline_needs_steps"] == MIN_MEASURED_STEPS
        said = headline(s, Words("en"))
        assert "not measured" in said and "1 step(s) after warm-up" in said and str(MIN_MEASURED_STEPS) in said
        assert "1.771" not in said
        assert "未测出" in headline(s, Words("zh"))


def test_enough_steps_after_warm_up_keep_the_headline():
    s = summarize(_resnet(MIN_MEASURED_STEPS, 56.0))
    assert not s.too_few_steps and s.headline == 56.0
    assert headline(s, Words("en")) == "56 images/s" or headline(s, Words("en")).startswith("56")
    assert s.to_dict()["headline_needs_steps"] is None


def test_a_headline_measured_without_rate_steps_is_kept():
    """A workload that steps without a rate (the op scan counts cases) measured its headline its own way."""
    events = [protocol.Start(t=0.0, workload="resnet50", device="cpu"),
              protocol.Result(t=1.0, metrics={"images_per_s": 40.0}), protocol.End(t=2.0, status="ok")]
    s = summarize(RunRecord(path=Path("runs/n"), config={"workload": "resnet50"}, events=events))
    assert not s.too_few_steps and s.headline == 40.0


def test_a_headline_the_workload_measured_its_own_way_is_kept_beside_one_progress_step():
    """A decoding benchmark's step is its progress; its headline is its own repetitions' (no warm-up steps told)."""
    events = [protocol.Start(t=0.0, workload="llm", device="cpu"),
              protocol.Step(t=1.0, step=1, throughput=50.0, unit="tokens/s"),
              protocol.Result(t=2.0, metrics={"tg_tokens_per_s": 50.0}), protocol.End(t=3.0, status="ok")]
    s = summarize(RunRecord(path=Path("runs/l"), config={"workload": "llm"}, events=events))
    assert not s.too_few_steps and s.headline == 50.0
