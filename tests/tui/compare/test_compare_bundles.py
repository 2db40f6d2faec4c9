"""End to end: real ResNet-50 runs on the CPU, bundled by `cardbench export --run`, then `cardbench compare`."""
import json
import shutil

import pytest

from recorded_env import text_screen  # noqa: F401 - a fixture: the bundles' screen is not compared
from tui import cli, doctor
from tui.report import envinfo

TINY = ["--device", "cpu", "--batch-size", "2", "--steps", "5", "--warmup", "1", "--threads", "1",
        "--num-classes", "10", "--epoch-size", "10"]
SLOW_DOWN = 0.78


@pytest.fixture
def cardbench(monkeypatch, capsys, text_screen):
    monkeypatch.setitem(cli.COMMAND_MODULES, "compare", "tui.compare.command")
    # collect_env and the doctor (a torch probe in a child) take seconds and say nothing these tests read
    monkeypatch.setattr(envinfo, "run_collect_env", lambda **kw: envinfo.CollectEnv(
        "PyTorch version: 2.14.1", {"PyTorch version": "2.14.1"}, 0.1))
    monkeypatch.setattr(doctor, "run_checks", lambda *a, **kw: [])

    def go(*argv):
        code = cli.main([str(a) for a in argv])
        out, err = capsys.readouterr()
        return code, out, err
    return go


def _train(cardbench, runs, image_size):
    before = set(runs.iterdir()) if runs.exists() else set()
    code, _, err = cardbench("run", "--runs-dir", runs, "resnet50", *TINY, "--image-size", image_size)
    assert code == 0, err
    (run,) = set(runs.iterdir()) - before
    return run


def _bundle(cardbench, run, out, *options):
    code, _, err = cardbench("export", "--run", run, "-o", out, *options)
    assert code == 0, err
    (bundle,) = out.glob("*.zip")
    return bundle


def _slowed(run, copy):
    """The run as if the card were 22 % slower: every step's rate and the headline times 0.78."""
    shutil.copytree(run, copy)
    lines = []
    for line in (copy / "events.jsonl").read_text().splitlines():
        event = json.loads(line)
        if event.get("event") == "step" and event.get("throughput") is not None:
            event["throughput"] *= SLOW_DOWN
        if event.get("event") == "result":
            event["metrics"]["images_per_s"] *= SLOW_DOWN
        lines.append(json.dumps(event))
    (copy / "events.jsonl").write_text("\n".join(lines) + "\n")
    return copy


def test_bundles_of_unlike_runs_are_refused_and_alike_ones_give_ratio_and_verdict(cardbench, tmp_path):
    runs = tmp_path / "runs"
    small = _train(cardbench, runs, "32")
    large = _train(cardbench, runs, "64")
    a = _bundle(cardbench, small, tmp_path / "a", "--price-per-hour", "11", "--currency", "CNY")
    b = _bundle(cardbench, large, tmp_path / "b")

    code, out, err = cardbench("compare", a, b)
    assert code == 2 and out == ""
    assert "unlike runs, refused" in err and "image size 32 (A) vs 64 (B)" in err

    slow = _bundle(cardbench, _slowed(small, tmp_path / "slow-run"), tmp_path / "slow",
                   "--price-per-hour", "6.5", "--currency", "CNY")
    code, out, err = cardbench("compare", a, slow, "--json")  # the prices the bundles were exported with
    assert code == 0, err
    (w,) = json.loads(out)["workloads"]
    ratio = w["headline"]["ratios"]["B"]
    assert ratio["ratio"] == pytest.approx(SLOW_DOWN) and ratio["uncertainty"] > 0
    pm = ratio["uncertainty"]
    assert w["verdicts"]["B"] == (f"B reaches 78 ± {round(pm * 100)} % of A's ResNet-50 throughput at 59 % of its "
                                  f"price: 1.32 ± {pm / (6.5 / 11):.2f}x the performance per yuan")

    # a bundle reads as the run it was made from: the same figures, the same spread
    code, out, err = cardbench("compare", a, small, "--json")
    assert code == 0, err
    same = json.loads(out)["workloads"][0]["headline"]["ratios"]["B"]
    assert same["ratio"] == pytest.approx(1.0) and same["uncertainty"] == pytest.approx(ratio["uncertainty"] / SLOW_DOWN)
