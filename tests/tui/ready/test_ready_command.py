"""`cardbench ready` as a user runs it, with torch-free stand-ins for the sub-runs (each ends with the result its
workload would give): the steps run in the run store within the budget, the table on stdout, readiness.json in each
run and the bundle's report; bad input is one line and exit 2 before any run exists; --against reads the bundle."""

from __future__ import annotations

import json
import sys
import zipfile

import pytest

import ready_results as given
from paths import CHILDREN, FIXTURES
from tui import cli
from tui.cli import ready as ready_cli
from tui.report import envinfo
from tui.ready.readiness import Readiness, write
from workloads.runner import Runner


def _result_for(name: str, args: list[str]) -> dict:
    """What each step's workload would give: by the options the plan gives it (tui/ready/steps.py)."""
    if name == "opscan":
        return given.scan() | {"by_dtype": {"fp32": given.scan()["by_dtype"]["bf16"]}}
    if name == "finetune":   # on the CPU the timed run replays its own first steps
        return given.finetune(mfu=None) | given.loss()
    return dict(given.COLD) if "--cold-start" in args else given.fit() | given.perf(prefill_share=None)


@pytest.fixture
def stand_ins(monkeypatch, tmp_path):
    """Each sub-run a stand-in child; the doctor sees no accelerator; no telemetry, collect_env or screenshot."""
    started: list[tuple[str, list[str]]] = []

    def for_workload(cls, name, args=(), **kw):
        started.append((name, list(args)))
        return cls([sys.executable, str(CHILDREN / "result_of.py"), json.dumps(_result_for(name, list(args)))], **kw)

    monkeypatch.setattr(Runner, "for_workload", classmethod(for_workload))
    monkeypatch.setattr(ready_cli, "_doctor", lambda progress: [])
    monkeypatch.setattr("tui.headless.start_sampler", lambda progress, session: None)
    monkeypatch.setattr("tui.cli.check_args.check_workload_args", lambda name, args: None)
    monkeypatch.setattr("tui.workbench.screenshot.app_screenshot", lambda records, sample: (None, "not drawn"))
    text = (FIXTURES / "report" / "nvidia-8x-rtx-a5000-torch1.11-cu115.txt").read_text()
    monkeypatch.setattr(envinfo, "run_collect_env",
                        lambda **kw: envinfo.CollectEnv(text, envinfo.parse_collect_env(text), 0.1))
    return started


def _ready(tmp_path, *more):
    return cli.main(["ready", "--model", "tiny", "--runs-dir", str(tmp_path / "runs"), "-o", str(tmp_path / "out"),
                     *more])


def test_ready_runs_each_step_and_leaves_the_table_in_the_runs_and_the_bundle(stand_ins, tmp_path, capsys):
    (tmp_path / "out").mkdir()
    assert _ready(tmp_path, "--price-per-hour", "2.5") == 0
    out = capsys.readouterr().out.splitlines()
    # on the CPU: the one cell (and its fit), the scan, the timed fine-tune with its float64 replay, the cold start
    assert [name for name, _ in stand_ins] == ["llm", "opscan", "finetune", "llm"]
    assert "--check-against-cpu" in stand_ins[2][1] and "--cold-start" in stand_ins[3][1]
    assert all("--dtype" not in args or args[args.index("--dtype") + 1] == "fp32" for _, args in stand_ins)
    assert out[0].startswith("Readiness of tiny in fp32 on cpu (stand-in)")
    assert any(line.startswith("PASS  cold start (to the first token): 41.5 s") for line in out)
    assert any(line.startswith("N/A  prefill against the compute peak") for line in out)
    runs = sorted((tmp_path / "runs").iterdir())
    assert len(runs) == 4
    kept = [Readiness.from_json(json.loads((r / "readiness.json").read_text())) for r in runs]
    assert kept[0] == kept[-1] and kept[0].price_per_hour == 2.5 and len(kept[0].runs) == 4
    assert all(row.verdict != "N/A" for row in kept[0].rows if row.question in ("fit", "loss", "decode"))
    bundle = tmp_path / "out" / out[-1].rsplit("/", 1)[-1]
    with zipfile.ZipFile(bundle) as zf:
        report = zf.read(next(n for n in zf.namelist() if n.endswith("/report.md"))).decode()
        assert sum(n.endswith("/readiness.json") for n in zf.namelist()) == 4
        zh = zf.read(next(n for n in zf.namelist() if n.endswith("/readiness.zh.md"))).decode()
        assert "| 冷启动（至首个 token） | 41.5 秒 | 60 秒 | 69 % | 通过 |" in zh
    assert "## Readiness: should this model move to this card?" in report
    # every text of the bundle goes through the redactor: no verdict line of the table reads like a secret given
    assert "[redacted]" not in report
    assert "- PASS  cold start (to the first token): 41.5 s from a fresh process" in report
    assert "| cold start (to the first token) | 41.5 s | 60 s | 69 % | PASS |" in report


def test_against_its_own_bundle_every_figure_is_at_100_percent_and_the_price_row_is_the_price_ratio(
        stand_ins, tmp_path, capsys):
    (tmp_path / "out").mkdir()
    assert _ready(tmp_path, "--price-per-hour", "4") == 0
    reference = capsys.readouterr().out.splitlines()[-1]
    assert _ready(tmp_path, "--price-per-hour", "2", "--against", reference) == 0
    out = capsys.readouterr().out
    assert "Against the reference cpu (stand-in)" in out
    assert "PASS  performance per unit of price: 100 % of the reference's speed (3 figures" in out
    assert "at 50 % of its price: 2x the performance per dollar" in out


def test_a_step_whose_floor_no_longer_fits_the_budget_is_skipped_with_the_reason(stand_ins, tmp_path, capsys):
    (tmp_path / "out").mkdir()
    # 0.3 min = 18 s: the one cell (at least 15 s) fits, the scan (20 s) and the fine-tune (25 s) no longer do
    assert _ready(tmp_path, "--budget", "0.3") == 0
    out = capsys.readouterr().out
    assert [name for name, _ in stand_ins][:1] == ["llm"] and "opscan" not in [name for name, _ in stand_ins]
    assert "N/A  fine-tune tokens/s and MFU: skipped: " in out and "of the 18 s budget left" in out


def _reference_dir(tmp_path, **kw):
    folder = tmp_path / "reference-run"
    folder.mkdir()
    write(given.readiness(**kw), [folder])
    return folder


def _cpu_only():
    """What the probe child says on this project's machine: a CUDA build of torch without a driver."""
    from workloads.probe_report import DeviceType, ProbeReport

    return ProbeReport(torch="2.14.1+cu130", device_types={"cuda": DeviceType(
        available=False, error="RuntimeError: Found no NVIDIA driver on your system. Please check that you have an "
                               "NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx")})


def _two_cards():
    from workloads.probe_report import DeviceType, ProbeReport

    return ProbeReport(torch="2.14.1+cu130", device_types={"cuda": DeviceType(available=True, count=2)})


@pytest.fixture
def nothing_runs(monkeypatch, tmp_path):
    """What starts once the arguments are taken (the doctor, a workload's check) is recorded, never run; the probe
    child answers as this CPU-only machine's torch does."""
    started = []
    monkeypatch.setattr(ready_cli, "_doctor", lambda progress: started.append("doctor") or [])
    monkeypatch.setattr("tui.cli.check_args.check_workload_args", lambda name, args: started.append(name))
    monkeypatch.setattr("tui.telemetry.torch_probe.run_probe", lambda *a, **kw: (_cpu_only(), None))
    return started


@pytest.mark.parametrize("args, said", [
    (["--model", "Llama-9"], "unknown model 'Llama-9'"),
    (["--weights", "/nonexistent/ckpt"], "--weights /nonexistent/ckpt: not a directory"),
    (["--data", "/nonexistent/data"], "--data /nonexistent/data: no such file or directory"),
    (["--budget", "0"], "--budget must be more than 0"),
    (["--device", "gpu0"], "--device 'gpu0' is not a torch device"),
    (["--budget", "soon"], "--budget must be minutes"),
    (["--price-per-hour", "-1"], "--price-per-hour must be a number of 0 or more (0 for a free trial), not -1.0"),
    (["--against", "/nonexistent/bundle.zip"], "--against /nonexistent/bundle.zip does not exist"),
    (["--device", "cuda:0"], "--device 'cuda:0' is not available on this machine (RuntimeError: Found no NVIDIA "
                             "driver on your system); torch here has: cpu"),
    (["--device", "npu:1"], "--device 'npu:1' is not available on this machine; torch here has: cpu"),
    (["--model", "tiny", "--device", "cuda:0", "--price-per-hour", "5"], "is not available on this machine"),
])
def test_bad_input_is_one_line_and_exit_2_before_the_doctor_and_any_run(tmp_path, capsys, nothing_runs, args, said):
    assert cli.main(["ready", "--runs-dir", str(tmp_path / "runs"), "-o", str(tmp_path / "out"), *args]) == 2
    err = capsys.readouterr().err
    assert said in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "doctor" not in err and "doctor" not in nothing_runs
    assert not (tmp_path / "runs").exists() and not (tmp_path / "out").exists()


def test_a_device_index_past_the_count_is_refused_before_the_doctor(tmp_path, capsys, nothing_runs, monkeypatch):
    monkeypatch.setattr("tui.telemetry.torch_probe.run_probe", lambda *a, **kw: (_two_cards(), None))
    # `cardbench --device X ready` (the option before the command) is the same refusal
    assert cli.main(["--device", "cuda:2", "ready", "--runs-dir", str(tmp_path / "runs")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "cardbench ready: --device 'cuda:2' does not exist: this machine has 2 cuda device(s), numbered " \
                  "from 0"
    assert nothing_runs == [] and not (tmp_path / "runs").exists()


def test_a_weights_folder_that_is_no_checkpoint_is_refused_by_the_workloads_check_before_the_doctor(
        tmp_path, capsys, nothing_runs, monkeypatch):
    from tui.cli.errors import CliError

    def refuse(name, args):
        nothing_runs.append(name)
        raise CliError(f"cardbench run {name}: --weights {tmp_path}: no config.json", 2)

    monkeypatch.setattr("tui.cli.check_args.check_workload_args", refuse)
    assert cli.main(["ready", "--weights", str(tmp_path), "--runs-dir", str(tmp_path / "runs")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith(f"--weights {tmp_path}: no config.json") and len(err.splitlines()) == 1
    assert "doctor" not in nothing_runs and not (tmp_path / "runs").exists()


@pytest.mark.parametrize("reference, args, said", [
    ({"model": "Qwen2.5-7B"}, [], "the model (Qwen2.5-7B there, tiny here)"),
    ({"model": "tiny", "dtype": "bf16"}, ["--dtype", "fp16"], "the dtype (bf16 there, fp16 here) differs"),
    ({"model": "tiny", "dtype": "int8"}, [], "is a readiness in 'int8', not one of fp32, fp16, bf16"),
    (None, [], "holds no readiness.json"),
])
def test_an_against_of_another_model_or_dtype_given_is_refused_naming_it_before_the_doctor(
        tmp_path, capsys, nothing_runs, reference, args, said):
    if reference is None:
        folder = tmp_path / "empty-run"
        folder.mkdir()
    else:
        folder = _reference_dir(tmp_path, **reference)
    assert cli.main(["ready", "--model", "tiny", "--runs-dir", str(tmp_path / "runs"), "--against", str(folder),
                     *args]) == 2
    err = capsys.readouterr().err.strip()
    assert said in err and len(err.splitlines()) == 1
    assert nothing_runs == [] and not (tmp_path / "runs").exists()


def test_against_a_reference_dtype_auto_judges_in_the_references_dtype(stand_ins, tmp_path, capsys):
    """The same work on both cards: auto takes the reference's dtype, known before the doctor (not fp32 because this
    machine is a CPU, then refused once the doctor said so)."""
    folder = _reference_dir(tmp_path, model="tiny", dtype="bf16")
    (tmp_path / "out").mkdir()
    assert _ready(tmp_path, "--against", str(folder)) == 0
    out = capsys.readouterr().out
    assert out.startswith("Readiness of tiny in bf16 on cpu (stand-in)")
    assert all(args[args.index("--dtype") + 1] == "bf16" for _, args in stand_ins if "--dtype" in args)
    assert any("--amp" in args and args[args.index("--amp") + 1] == "bf16" for _, args in stand_ins)


def test_an_option_the_workload_lacks_makes_its_row_na_and_any_other_refusal_is_exit_2(monkeypatch):
    from tui.cli.errors import CliError
    from tui.ready.steps import Model, plan

    def check(name, args):
        if "--cold-start" in args:
            raise CliError("cardbench run llm: unrecognized arguments: --cold-start", 2)

    monkeypatch.setattr("tui.cli.check_args.check_workload_args", check)
    unsupported = ready_cli._unsupported(plan(Model(), True))
    assert list(unsupported) == ["cold_start"] and "no cold start measurement" in unsupported["cold_start"]["en"]

    def other(name, args):   # a cold start that takes other options than this command gives it: N/A, not exit 2
        if "--cold-start" in args:
            raise CliError("cardbench run llm: --cold-start measures one cell: drop --repeat", 2)

    monkeypatch.setattr("tui.cli.check_args.check_workload_args", other)
    said = ready_cli._unsupported(plan(Model(), True))["cold_start"]["en"]
    assert said == "the workload refused the step's options: cardbench run llm: --cold-start measures one cell: " \
        "drop --repeat"

    def refuse(name, args):
        raise CliError("cardbench run finetune: --weights /w: no config.json", 2)

    monkeypatch.setattr("tui.cli.check_args.check_workload_args", refuse)
    with pytest.raises(CliError, match="cardbench ready: finetune: --weights /w: no config.json"):
        ready_cli._unsupported(plan(Model(), True))


def test_ctrl_c_between_two_runs_keeps_what_was_measured_in_the_table_and_the_bundle(stand_ins, tmp_path, capsys,
                                                                                    monkeypatch):
    from tui.ready import runs

    real = runs.run_suite
    calls = []

    async def interrupted_at_the_second(jobs, *rest):
        calls.append(jobs[0].workload)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return await real(jobs, *rest)

    monkeypatch.setattr(runs, "run_suite", interrupted_at_the_second)
    (tmp_path / "out").mkdir()
    assert _ready(tmp_path) == 130
    out = capsys.readouterr().out
    assert calls == ["llm", "opscan"]
    assert "WARN  decode against the memory bandwidth" in out or "PASS  decode against the memory bandwidth" in out
    assert "N/A  ops on the card in the dtype: not run: interrupted" in out
    assert "N/A  fine-tune tokens/s and MFU: not run: interrupted" in out
    assert out.splitlines()[-1].endswith(".zip")
