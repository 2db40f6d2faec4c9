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
