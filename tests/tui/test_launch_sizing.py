"""The launcher's runs sized for the device (issue 36.7): without an accelerator its defaults are the headless suite's
CPU arguments, and a run its workload estimates above ten minutes is asked about before it starts (it started
ResNet-50 at batch 64, 224 px, 200 steps on two cores: 1 h 25 min, unasked)."""

from __future__ import annotations

import pytest

from test_app import SIZE, make_app, wait_for
from tui.workbench import sizing
from tui.workbench.launch import build_args, defaults, start_question
from tui.workbench.sizing import device_is_cpu, long_run
from workloads import registry
from workloads.resnet50 import spec as resnet50_spec
from workloads.spec import flag_value

GPU_RESNET = ("64", "200", "224")   # batch size, steps, image size


@pytest.fixture
def two_cores(monkeypatch):
    """The host of the issue: two usable cores (the estimate divides by them)."""
    monkeypatch.setattr(resnet50_spec, "usable_cpus", lambda: 2)
    monkeypatch.setattr(sizing, "usable_cpus", lambda: 2)


def _resnet(values: dict[str, str]) -> tuple[str, str, str]:
    return values["batch_size"], values["steps"], values["image_size"]


def test_on_the_cpu_the_defaults_are_the_suite_s_cpu_arguments():
    assert _resnet(defaults("resnet50")) == GPU_RESNET
    assert _resnet(defaults("resnet50", on_cpu=True)) == ("8", "12", "64")
    assert defaults("generate", on_cpu=True)["repeat"] == "1"


@pytest.mark.parametrize("workload", registry.names())
def test_every_field_the_cpu_suite_sets_takes_its_value_and_still_builds(workload):
    spec = registry.spec_for(workload)
    cpu_args = list(spec.suite.cpu_quick) if spec.suite else []
    args = build_args(workload, defaults(workload, on_cpu=True))   # valid values: no BadValue
    for param in spec.params:
        wanted = flag_value(cpu_args, param.flag)
        if wanted is not None and param.kind != "switch" and wanted not in param.omit:
            assert flag_value(args, param.flag) == wanted, f"{workload} {param.flag}"


def test_where_a_run_lands():
    assert device_is_cpu("cpu", True) is True and device_is_cpu("CPU:0", None) is True
    assert device_is_cpu("cuda:1", False) is False
    assert device_is_cpu("", False) is True and device_is_cpu("auto", True) is False
    assert device_is_cpu(" ", None) is None   # not known yet: nothing is sized or estimated


def test_the_estimate_of_the_issue_s_run_is_of_its_order(two_cores):
    seconds = resnet50_spec.estimate_s(build_args("resnet50", defaults("resnet50")), True)
    assert 0.8 * 5100 < seconds < 1.2 * 5100   # it ran 1 h 25 min
    assert resnet50_spec.estimate_s(build_args("resnet50", defaults("resnet50")), False) is None
    assert resnet50_spec.estimate_s(["--data", "/srv/train"], True) is None   # a folder's epoch: not known before


def test_a_run_estimated_above_ten_minutes_is_asked_about_with_its_command(two_cores):
    values = defaults("resnet50")
    question = start_question("resnet50", values, on_cpu=True)
    assert question is not None
    assert "about 1 h 27 min on the CPU (2 cores) by a rough estimate, more than 10 min" in question
    assert "cardbench run resnet50 --batch-size 64 --epochs 1 --steps 200 --image-size 224" in question
    assert "one burst" not in question   # no stray value: only the estimate is asked about
    assert start_question("resnet50", defaults("resnet50", on_cpu=True), on_cpu=True) is None
    assert start_question("resnet50", values, on_cpu=False) is None     # a card's speed is not guessed
    assert start_question("resnet50", values, on_cpu=None) is None      # nor an unknown device's
    assert long_run("generate", ["--tokens", "100000"], True) is None   # a workload without an estimate


def _torch_sees_none(app) -> None:
    app.session.cpu_trap.see_checks([{"id": "torch.sees_device", "status": "FAIL", "evidence": "no CUDA", "hint": ""}])
    app.show_state()


async def test_the_launcher_s_defaults_follow_the_device_and_keep_what_was_edited(runs_dir):
    app = make_app(runs_dir)
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        await pilot.pause()
        launcher = app.launcher
        assert _resnet(launcher.values()) == GPU_RESNET   # torch's word not known yet: as before
        launcher.query_one("#param-resnet50-steps").value = "50"   # the user's own
        _torch_sees_none(app)
        await wait_for(pilot, lambda: launcher.values()["batch_size"] == "8", what="CPU-sized fields")
        assert _resnet(launcher.values()) == ("8", "50", "64")
        assert launcher.values("generate")["repeat"] == "1"
        assert "the launcher's values are sized for the CPU" in "\n".join(app.log_pane.lines_text)
        # an empty field shows and runs the CPU's default
        batch = launcher.query_one("#param-resnet50-batch_size")
        batch.value = ""
        assert launcher.values()["batch_size"] == "8" and batch.full_placeholder == "8 (default)"
        batch.value = "8"
        # a device field that names a card: that form's defaults are the card's again, and back with 'cpu'
        launcher.query_one("#param-resnet50-device").value = "cuda:0"
        await pilot.pause()
        assert _resnet(launcher.values()) == ("64", "50", "224")
        assert launcher.values("generate")["repeat"] == "1"
        launcher.query_one("#param-resnet50-device").value = "cpu"
        await pilot.pause()
        assert _resnet(launcher.values()) == ("8", "50", "64")


async def test_s_on_the_cpu_with_a_card_s_values_asks_first(runs_dir, two_cores):
    app = make_app(runs_dir)
    async with app.run_test(size=SIZE) as pilot:
        await app.panes_built.wait()
        _torch_sees_none(app)
        await wait_for(pilot, lambda: app.launcher.values()["batch_size"] == "8", what="CPU-sized fields")
        for key, value in zip(("batch_size", "steps", "image_size"), GPU_RESNET):
            app.launcher.query_one(f"#param-resnet50-{key}").value = value
        await pilot.press("s")
        await pilot.pause()
        assert type(app.screen).__name__ == "Confirm"
        assert "more than 10 min" in app.screen.question
        await pilot.press("n")
        await pilot.pause()
        assert not app.session.running and not app.session.runs
