"""`cardbench soak`: arguments checked before anything starts; detached by default; --foreground to the verdict."""

from __future__ import annotations

import os
import re
import textwrap
import time

import psutil
import pytest

from paths import CHILDREN
from tui import cli
from tui.cli import run as run_command
from tui.store.live import live_runs
from tui.telemetry.collect import Collector
from workloads import registry
from workloads.soak.spec import SPEC as SOAK
from workloads.result_record import record_of
from workloads.spec import Text, WorkloadSpec

# every process of these tests (the detached `cardbench run soak`, the soak, its inner runs) knows soak and the
# torch-free stand-in `tick` (tests/children/tick_workload.py): the registry lines the integration adds for soak
REGISTER = textwrap.dedent('''
    from workloads import registry
    from workloads.soak.spec import SPEC as SOAK
    from workloads.result_record import record_of
    from workloads.spec import Text, WorkloadSpec
    registry._specs.setdefault("soak", SOAK)
    registry._specs["tick"] = WorkloadSpec(name="tick", title=Text("tick"), result=record_of("ticks_per_s", "ticks/s"),
                                           module="tick_workload")
''')


@pytest.fixture
def soak_command(tmp_path, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(REGISTER)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(site), str(CHILDREN), os.environ["PYTHONPATH"]]))
    monkeypatch.setitem(cli.COMMAND_MODULES, "soak", "tui.cli.soak")
    # no torch probe child: the tick workload is torch-free and the machine has no card
    monkeypatch.setattr(run_command, "Collector", lambda: Collector(torch_probe=False))
    tick = WorkloadSpec(name="tick", title=Text("tick"), result=record_of("ticks_per_s", "ticks/s"), module="tick_workload")
    with registry.registered(SOAK), registry.registered(tick):
        yield


@pytest.mark.parametrize("argv, said", [
    (["--hours", "0", "--workload", "resnet50"], "argument --hours: must be above 0, got 0"),
    (["--hours", "1"], "--workload or -- CMD is required"),
    (["--hours", "1", "--workload", "resnet5"], "--workload: unknown workload resnet5 (choose from resnet50"),
    (["--hours", "1", "--workload", "resnet50", "--args", "--bogus 3"], "unrecognized arguments: --bogus 3"),
])
def test_bad_arguments_are_one_line_and_exit_2_before_anything_starts(soak_command, runs_dir, capsys, argv, said):
    assert cli.main(["soak", *argv]) == 2
    err = capsys.readouterr().err
    assert said in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not runs_dir.exists()


def test_a_soak_is_detached_and_ends_with_its_verdict_on_disk(soak_command, runs_dir, capsys):
    code = cli.main(["soak", "--hours", str(3 / 3600), "--interval", "1", "--workload", "tick",
                     "--args", "--delay 0.05"])
    out = capsys.readouterr().out
    assert code == 0, out
    pid = int(re.search(r"detached \(pid (\d+)\)", out).group(1))
    assert os.getsid(pid) == pid                      # its own session: a closed terminal's hang-up misses it
    run_dir = next(runs_dir.glob("*soak*"))
    deadline = time.monotonic() + 60
    while psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() < deadline, "the soak did not end"
        time.sleep(0.2)
    verdict = (run_dir / "verdict.txt").read_text()
    assert verdict.startswith("soak verdict: WARN\n")   # no card here: "no device readings" is said, not passed
    assert "no device readings" in verdict
    assert (run_dir / "intervals.csv").read_text().count("\n") >= 4   # a header and three 1-second intervals
    assert live_runs(runs_dir) == []


def test_foreground_runs_in_this_terminal_to_the_verdict(soak_command, runs_dir, capsys):
    code = cli.main(["soak", "--foreground", "--hours", str(2 / 3600), "--interval", "1", "--workload", "tick",
                     "--args", "--delay 0.05"])
    out = capsys.readouterr().out
    assert code == 0
    assert "RESULT: verdict (rules in verdict.txt) WARN; " in out and "end: ok" in out
    assert "% worst throughput drift against the first interval" in out and "drift=" not in out


def test_soak_reads_the_argument_check_when_it_runs_not_when_it_was_imported(soak_command, monkeypatch):
    """A stand-in another test set while soak was first imported stayed soak's check for the rest of the process (the
    ready tests' stand-in let `soak --hours 0` start a run in CI): soak looks the check up each time it runs."""
    import tui.cli.soak as soak
    from tui.cli import check_args

    asked = []
    monkeypatch.setattr(check_args, "check_workload_args", lambda name, argv: asked.append(name) or 2)
    import argparse

    parser = soak.add_parser(argparse.ArgumentParser().add_subparsers())
    assert soak.run(parser.parse_args(["--hours", "1", "--workload", "resnet50"])) == 2
    assert asked == ["soak"]
