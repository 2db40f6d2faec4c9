"""A headline says its unit (issue 22.11): your job's "2 throughput the log printed" knew its it/s, and a soak's
"0 worst throughput drift ..., %" put the unit last."""
from tui.headless.suite import result_line
from workloads import protocol, registry
from workloads.command.spec import SPEC as COMMAND
from workloads.runner import Outcome


def _outcome(metrics: dict) -> Outcome:
    outcome = Outcome()
    outcome.see(protocol.Result(metrics=metrics))
    outcome.see(protocol.End(status="ok", exit_code=0))
    return outcome


def test_your_job_s_headline_carries_the_unit_its_log_printed():
    with registry.registered(COMMAND):
        line = result_line("command", _outcome({"throughput": 2.0, "throughput_unit": "it/s"}))
    assert line.startswith("command: ok, 2 it/s, throughput the log printed (median of its rates")


def test_a_soak_s_headline_reads_as_a_percentage():
    line = result_line("soak", _outcome({"drift_worst_pct": -24.7, "verdict": "FAIL"}))
    assert line.startswith("soak: ok, -24.7 % worst throughput drift against the first interval")


def test_a_cpu_run_with_a_deadline_is_told_its_seconds_to_size_its_work():
    """The suite hands a workload that can size itself (its spec's budget_flag) half the time left to it, rather
    than cutting it at the deadline and reporting the cut as a problem (issue 22.10)."""
    import asyncio
    import io
    import time

    from tui.headless.plan import Job
    from tui.headless.progress import Progress
    from tui.headless.suite import SuiteState, _run_job
    from tui.store import RunStoreError

    started: list[list[str]] = []

    class Session:
        def start(self, workload, args, **kw):
            started.append(list(args))
            raise RunStoreError("not here")   # the test needs the arguments, not the run

    for deadline, told in ((time.monotonic() + 100, True), (None, False)):
        job = Job("generate", ["--tokens", "256"], 256, deadline=deadline)
        asyncio.run(_run_job(job, Session(), SuiteState(), Progress(1, stream=io.StringIO(), tty=False), [],
                             "quick"))
        args = started[-1]
        assert ("--time-budget" in args) is told
        if told:
            assert 40 <= float(args[args.index("--time-budget") + 1]) <= 50
