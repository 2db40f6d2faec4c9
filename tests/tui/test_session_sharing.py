"""A run that shared its host or card says so in its own record (issue 36 item 2): the session judges the samples
taken while it ran and records one warning before its end, which run.log, the report's headline cell and compare
read; a run that had the machine to itself records none."""
from __future__ import annotations

import dataclasses
import json

import pytest

from app_fakes import child_factory, fake_sample
from report_runs import resnet_run
from tui.report.i18n import Words
from tui.report.report_data import headline
from tui.report.summary import summarize
from tui.session import RunSession
from tui.store import RunStore, load_run
from tui.telemetry.sharing import SHARED, Sharing


@pytest.fixture(autouse=True)
def _threshold_of_a_quiet_host(monkeypatch):
    """These tests judge sharing: the threshold a real host has, not the one the suite sets for every other test."""
    monkeypatch.delenv("CARDBENCH_SHARED_CORES", raising=False)



class _Sampler:
    def set_sink(self, sink):
        self.sink = sink


def _busy(i: int, other: float) -> dict:
    sample = fake_sample(i, devices=0)   # no card listed: the CPU trap has nothing to say of a run on the CPU
    return dataclasses.replace(sample, host=dataclasses.replace(sample.host, other_cpu_cores=other)).to_dict()


@pytest.fixture
def store(tmp_path):
    return RunStore(tmp_path / "runs")


async def _run(store, other: float):
    session = RunSession(store, runner_factory=child_factory("steady.py", "4", "0.05"))
    sampler = session.attach_sampler(_Sampler())
    sampler.sink(_busy(0, 3.0))            # before the run: not its sample
    run = session.start("resnet50", [])
    kinds = []
    async for event in session.events():
        kinds.append(event.kind)
        if event.kind == "step":
            sampler.sink(_busy(len(kinds), other))
    return run, kinds


async def test_a_run_beside_another_job_records_it_before_its_end_and_its_log_says_it(store):
    run, kinds = await _run(store, 1.5)
    assert kinds.count("warning") == 1 and kinds.index("warning") == len(kinds) - 2 and kinds[-1] == "end"
    record = load_run(run.path)
    (warning,) = [e for e in record.events if e.kind == "warning"]
    assert warning.code == SHARED and warning.extra["other_cpu_cores"] == 1.5 and warning.extra["cpu_count"] == 16
    assert "shared: other processes used 1.5 CPU cores on average" in record.log_text


async def test_a_run_with_the_host_to_itself_records_nothing(store):
    run, kinds = await _run(store, 0.1)
    assert "warning" not in kinds
    assert summarize(load_run(run.path)).sharing is None


async def _plan(store, metrics: dict) -> list[str]:
    """A run of llm that steps nothing and ends with ``metrics``, on a host that other processes keep busy."""
    session = RunSession(store, runner_factory=child_factory("plan_only.py", json.dumps(metrics)))
    sampler = session.attach_sampler(_Sampler())
    session.start("llm", [])
    kinds = []
    async for event in session.events():
        kinds.append(event.kind)
        if event.kind == "start":
            sampler.sink(_busy(1, 1.5))
    return kinds


async def test_a_plan_on_a_busy_host_records_no_sharing_but_a_timed_result_does(store):
    """`cardbench fit MODEL --card ...` / --fit-only measure nothing: no figure of theirs can read as noise."""
    assert "warning" not in await _plan(store, {"model_size": "tiny", "fit_batch": 1, "largest_batch": 14})
    assert (await _plan(store, {"model_size": "tiny", "tg_tokens_per_s": 41.0})).count("warning") == 1


def test_the_report_s_headline_cell_says_the_figure_is_noise(store):
    run_dir = resnet_run(store)
    found = Sharing(other_cpu_cores=1.8, load1=18.4, cpu_count=2)
    with open(run_dir / "events.jsonl", "a", encoding="utf-8") as fh:
        fh.write(found.warning().to_json() + "\n")
    s = summarize(load_run(run_dir))
    assert s.sharing == found and s.headline == 950.0           # the figure stays, said beside its reason
    cell = headline(s, Words("en"))
    # short in the summary's cell; the whole sentence (threshold, load) is the warning under Problems
    assert cell == "950 images/s (shared: 1.8 CPU cores used by other processes; noise, see Problems)"
    assert "above 0.5 counts as a shared host; load average 18.4 on 2 cores" in found.warning().message
    assert "噪声" in headline(s, Words("zh"))
    assert "1.8 CPU cores" in json.dumps(s.to_dict()["shared"])
