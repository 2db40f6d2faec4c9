"""`python -m workloads.microbench` on the CPU: every part runs and says what it measured; bad input is one line.

The workload runs in this process through the harness (`run_main` with an in-memory stream), at sizes
scaled down so the file takes seconds; `cardbench run microbench` is run once as a child through the run
store. The speed figures themselves are checked in bench/microbench_gemm_vs_mm.py, not here.
"""

from __future__ import annotations

import asyncio
import io
import types

import pytest
import torch

from workloads import protocol
from workloads.child.harness import Emitter, WorkloadError, run_main
from workloads.microbench import cli, gemm
from workloads.microbench.burn import INJECT_ENV
from workloads.microbench.spec import SPEC
from workloads.microbench.timing import Timed

SMALL = ("--device", "cpu", "--max-size", "128", "--buffer-mib", "32", "--burn-seconds", "0.3", "--burn-size", "64")


def run(*args: str) -> tuple[int, list[protocol.Event]]:
    stream = io.StringIO()
    code = run_main(cli.main, list(args), emitter=Emitter(stream))
    return code, [protocol.parse_line(line) for line in stream.getvalue().splitlines()]


def of(events, kind):
    return [e for e in events if isinstance(e, kind)]


def test_every_single_device_part_runs_on_the_cpu_and_reports_what_it_measured():
    code, events = run(*SMALL, "--only", "gemm,memory,transfer,launch,burn", "--dtypes", "fp32,tf32,int8")
    assert code == 0
    start, = of(events, protocol.Start)
    steps = of(events, protocol.Step)
    assert start.config["total_steps"] == 5 and [s.step for s in steps] == [1, 2, 3, 4, 5]
    assert [s.extra["part"] for s in steps] == ["gemm", "memory", "transfer", "launch", "burn"]
    metrics = of(events, protocol.Result)[0].metrics
    rows = {r["key"]: r for r in metrics["figures"]}
    assert rows["gemm_fp32"]["measured"] > 0 and rows["gemm_int8"]["unit"] == "TOPS"
    assert rows["gemm_tf32"]["measured"] is None and "CUDA" in rows["gemm_tf32"]["note"]
    assert all(rows[f"memory_{k}"]["measured"] > 0 for k in ("copy", "read", "fill"))
    assert metrics["parts"]["memory"]["buffer_bytes"] == 32 * 2**20 and metrics["parts"]["memory"]["probe_read_gbps"] > 0
    assert rows["transfer"]["note"] == "skipped: the CPU is the host: there is no host <-> device link to measure"
    assert rows["launch_eager_host_us"]["measured"] > 0 and "launch_eager_device_us" not in rows
    assert rows["burn"]["measured"] == "PASS"
    # the CPU has no rated figures: every one is N/A, never 0
    assert all(r["rated"] is None and r["percent"] is None for r in metrics["figures"])
    assert metrics["rated_note"] == "the CPU has no rated figures: N/A"
    # int8 counts TOPS, so the headline is the fastest float dtype
    assert metrics["gemm_best_dtype"] == "fp32" and metrics["gemm_best_tflops"] == rows["gemm_fp32"]["measured"]
    heading, columns, table = SPEC.report_table(metrics)
    assert len(table) == len(metrics["figures"]) and table[0][0]("en") == "gemm"
    # every figure these parts gave is one the record declares, with its unit (the GPU's: test_figures.py)
    assert SPEC.result.of(metrics).undeclared() == []


def test_a_result_that_differs_from_the_first_fails_the_burn_check_with_its_count(monkeypatch):
    monkeypatch.setenv(INJECT_ENV, "3")
    code, events = run(*SMALL, "--only", "burn", "--burn-seconds", "0.2")
    assert code == 1
    burn = of(events, protocol.Result)[0].metrics["parts"]["burn"]
    assert (burn["status"], burn["mismatched_iterations"], burn["mismatched_elements"]) == ("FAIL", 1, 1)
    warning, = of(events, protocol.WorkloadWarning)
    assert warning.code == "sdc_mismatch" and f"1 of {burn['iterations']} repeats" in warning.message
    assert of(events, protocol.End)[0].status == "failed"


@pytest.mark.parametrize("args, said", [
    (("--dtypes", "fp32,fp64"), "--dtypes: unknown fp64"),
    (("--only", "gemm,gpu"), "--only: unknown gpu"),
    (("--burn-seconds", "0"), "microbench: argument --burn-seconds: must be above 0, got 0"),
    (("--device", "cuda:3"), "device 'cuda:3' is not available on this machine"),
    (("--device", "tpu"), "unknown device type 'tpu'; the known types are cuda, npu, mlu, musa, xpu, hpu, mps, cpu"),
    (("--device", "mlu"), "device type mlu needs torch_mlu, which is not installed"),
])
def test_bad_input_is_one_line_and_exit_2(args, said):
    code, events = run(*SMALL, "--only", "launch", *args)
    error, = of(events, protocol.Error)
    assert code == 2 and error.message == said


def test_collectives_asked_for_in_a_build_without_them_is_refused_before_anything_runs(monkeypatch):
    monkeypatch.setattr(cli, "collectives_module", lambda: None)
    code, events = run(*SMALL, "--only", "launch,collectives")
    assert code == 2 and not of(events, protocol.Start)
    assert "the collectives part is not available in this build" in of(events, protocol.Error)[0].message


def test_left_to_the_default_parts_a_missing_collectives_part_is_a_row_that_says_so():
    rows, raw = cli._collectives(None, torch.device("cpu"), None)
    assert rows[0]["measured"] is None and rows[0]["note"].startswith("skipped: not available in this build")


def test_the_collectives_part_calls_its_module_with_its_own_options(monkeypatch):
    calls = []

    def add_collective_arguments(parser):
        parser.add_argument("--collective-nproc", type=int, default=None)

    def measure_collectives(device_type, *, sizes, ops, nproc, timeout_s, extra_torchrun_args=()):
        calls.append((device_type, sizes, ops, nproc, timeout_s))
        return [{"op": op, "bytes": size, "ranks": nproc, "time_us": 50.0, "algbw_gbps": size / 50e3,
                 "busbw_gbps": size / 50e3, "correct": True} for op in ops for size in sizes]

    fake = types.SimpleNamespace(
        add_collective_arguments=add_collective_arguments, measure_collectives=measure_collectives,
        collective_kwargs=lambda args: {"sizes": [2**10, 2**20], "ops": ["all_reduce", "broadcast"],
                                        "nproc": args.collective_nproc, "timeout_s": 30.0})
    monkeypatch.setattr(cli, "collectives_module", lambda: fake)
    code, events = run(*SMALL, "--only", "collectives", "--collective-nproc", "2")
    assert code == 0 and calls == [("cpu", [2**10, 2**20], ["all_reduce", "broadcast"], 2, 30.0)]
    rows = of(events, protocol.Result)[0].metrics["figures"]
    assert [r["figure"] for r in rows] == ["all_reduce busbw, 1 MiB, 2 ranks", "broadcast busbw, 1 MiB, 2 ranks"]


def collectives_that_raise(monkeypatch, message: str, hint: str) -> None:
    """A stand-in collectives module whose measurement ends in the WorkloadError the real one raises."""
    def measure_collectives(device_type, **kwargs):
        raise WorkloadError(message, hint=hint)

    fake = types.SimpleNamespace(add_collective_arguments=lambda parser: None, measure_collectives=measure_collectives,
                                 collective_kwargs=lambda args: {})
    monkeypatch.setattr(cli, "collectives_module", lambda: fake)


def test_a_part_that_fails_keeps_the_other_parts_figures_and_fails_the_run(monkeypatch):
    collectives_that_raise(monkeypatch, "torchrun ended with exit code 1 before any rank reported", "see run.log")
    code, events = run(*SMALL, "--only", "launch,collectives")
    assert code == 1
    rows = {r["key"]: r for r in of(events, protocol.Result)[0].metrics["figures"]}
    assert rows["launch_eager_host_us"]["measured"] > 0
    assert rows["collectives_failed"]["note"] == ("failed: torchrun ended with exit code 1 before any rank reported "
                                                  "(see run.log)")
    warning, = of(events, protocol.WorkloadWarning)
    assert warning.code == "part_failed" and warning.extra["part"] == "collectives"


def test_left_to_the_default_parts_collectives_that_cannot_run_here_are_skipped_not_failed(monkeypatch):
    """One GPU has no collectives to time: a run that did not ask for them says so and stays ok."""
    collectives_that_raise(monkeypatch, "collectives need 2 or more ranks; this node has 1 cuda device(s)",
                           "use --nproc 2")
    monkeypatch.setattr(cli, "PARTS", ("launch", "collectives"))   # the default parts, kept short
    code, events = run(*SMALL)
    assert code == 0 and not of(events, protocol.WorkloadWarning)
    row = next(r for r in of(events, protocol.Result)[0].metrics["figures"] if r["key"] == "collectives")
    assert row["note"] == ("skipped: collectives need 2 or more ranks; this node has 1 cuda device(s) "
                           "(use --nproc 2)")


def test_the_sweep_stops_where_the_figure_stops_rising(monkeypatch):
    """Constant time per FLOP from 64 on: two sizes that do not rise end the sweep (timing is faked)."""
    def fake_time(call, device):
        return Timed((1e-3,), 1)  # the same time at every size: the rate grows as n^3 ...

    rates = iter([1.0, 2.0, 2.02, 2.01])  # ... so the rate is set here instead, in TFLOP/s per size
    monkeypatch.setattr(gemm, "time_calls", fake_time)
    monkeypatch.setattr(gemm, "figure", lambda n, timed: {"n": n, "best": next(rates), "median": 1.0, "calls": 1})
    result = gemm.sweep("fp32", torch.device("cpu"), start=32, max_size=4096, max_call_s=10)
    assert [s["n"] for s in result.sizes] == [32, 64, 128, 256]
    assert result.stop.startswith("stopped rising at 256") and result.to_dict()["best_n"] == 128


def test_a_size_that_fails_ends_the_sweep_and_keeps_the_sizes_before_it(monkeypatch):
    real = gemm.operands

    def operands(dtype, n, device, seed=0):
        if n > 64:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 1.00 GiB")
        return real(dtype, n, device, seed)

    monkeypatch.setattr(gemm, "operands", operands)
    result = gemm.sweep("fp32", torch.device("cpu"), start=32, max_size=4096, max_call_s=10).to_dict()
    assert [s["n"] for s in result["sizes"]] == [32, 64] and result["skipped"] is None
    assert result["stop"] == "128 x 128 failed: OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB"


def test_cardbench_run_records_the_microbench_like_any_workload(tmp_path):
    """Registered as the registry line will register it: `cardbench run microbench` goes through the run store."""
    from tui.cli.run import run_workload
    from tui.store import load_run
    from workloads import registry

    with registry.registered(SPEC):
        code = asyncio.run(run_workload("microbench", [*SMALL, "--only", "launch,burn"],
                                        runs_dir=str(tmp_path / "runs"), as_json=False))
    assert code == 0
    record = load_run(next((tmp_path / "runs").iterdir()))
    assert record.status == "ok" and len(record.steps) == record.start.config["total_steps"] == 2
    assert record.result.metrics["burn"] == "PASS" and record.result.metrics["parts"]["burn"]["iterations"] > 0
    # issue 22.12: the launcher said "part 1/4" while the log said "part 2/4: memory"; one count, saying what it counts
    from tui.workbench.panes.run_view import render_state
    from tui.workbench.view.run_state import RunState

    log = (record.path / "run.log").read_text()
    order = [log.index(line) for line in ("part 1/2: launch", "part 1/2 done: launch", "part 2/2: burn")]
    assert order == sorted(order)
    with registry.registered(SPEC):
        shown = render_state(RunState(workload="microbench", status="running", step=1, total_steps=2)).plain
    assert "parts done 1/2" in shown


@pytest.mark.parametrize("suite, accelerator", [("quick", True), ("standard", True), ("quick", False),
                                                ("standard", False)])
def test_the_suite_s_arguments_are_ones_the_workload_takes(suite, accelerator):
    args, note = SPEC.suite.args(suite, accelerator=accelerator)
    parsed, parts, _ = cli.parse(args)
    assert "collectives" not in parts and parsed.burn_seconds > 0
    assert (note is None) == accelerator
