"""Issue 16.4: a secret inside a run's arguments stays out of the bundle when what shows it is cut short
(a launcher field, a log line cut to the screen's width) and when the export is made later, from a shell
without the variable: the run records it (hashed) when it is created, and what is drawn is drawn redacted."""

import hashlib
import json
import time
import zipfile
from pathlib import Path

import pytest

from tui.report import envinfo, png
from tui.report.export import ExportInputs, export_bundle
from tui.redact import (MIN_FRAGMENT, REDACTED, RECORD_KEY, Redactor, record_for_run, redacted_args,
                               redacted_values, secret_shape)
from tui.report.screen import live_screenshot
from tui.store import RunStore, load_run
from workloads import protocol

# no token shape: only the variable's name says it is a secret
PASSWORD = "PlainSecretValue2024xyzQ"
# a GitHub token: the shape rule finds it whole, not cut to "ghp_Qx7Lm2Wv9Rt4Kp8"
TOKEN = "ghp_Qx7Lm2Wv9Rt4Kp8Zn3Jc6Hb5Yd1Fg0SsAaEe"
CASES = [("MY_SERVICE_PASSWORD", PASSWORD), ("GITHUB_TOKEN", TOKEN)]
T0 = 1_790_000_000.0


@pytest.fixture
def quiet(monkeypatch):
    """No collect_env child (seconds), no secret-looking variable of the test host's own."""
    monkeypatch.setattr(envinfo, "run_collect_env", lambda **kw: envinfo.CollectEnv(
        "PyTorch version: 2.14.1\nOS: Linux", {"PyTorch version": "2.14.1"}, 0.1))
    for name in CASES:
        monkeypatch.delenv(name[0], raising=False)


def _pieces(value: str) -> list[str]:
    """What must not be seen of a secret: its first and last halves, and pieces of MIN_FRAGMENT + 4 anywhere."""
    half = len(value) // 2
    body = value[4:] if value.startswith("ghp_") else value  # "ghp_" itself is no secret
    return [value[:half], value[half:], *(body[i:i + MIN_FRAGMENT + 4] for i in range(0, len(body) - 8, 4))]


def _leaks(top: Path, value: str) -> list[tuple[str, str]]:
    return [(str(p.relative_to(top)), piece) for p in sorted(top.rglob("*")) if p.is_file()
            for piece in _pieces(value) if piece.encode() in p.read_bytes()]


def _data_run(root: Path, value: str, *, log_line: str = "") -> Path:
    """A resnet50 run on an ImageFolder whose path holds the secret; the workload tells the path back."""
    data = f"/tmp/{value}/imgs"
    run = RunStore(root).create("resnet50", ["--device", "cpu", "--steps", "2", "--data", data])
    run.append(protocol.Start(t=T0, workload="resnet50", device="cpu (x86_64, 2 threads)",
                              config={"batch_size": 4, "image_size": 64, "data": data}))
    for i in (1, 2):
        run.append(protocol.Step(t=T0 + i, step=i, epoch=1, loss=1.0 / i, throughput=3.0 * i, unit="images/s",
                                 step_s=1.0, data_wait_s=0.01))
    run.append(protocol.Result(t=T0 + 3, metrics={"images_per_s": 4.5, "final_loss": 0.5, "steps": 2,
                                                  "data": f"ImageFolder {data} (8 images, 2 classes)"}))
    run.append(protocol.End(t=T0 + 4, status="ok", exit_code=0))
    if log_line:
        run.log(log_line)
    run.close()
    return run.path


def _unzip(path: Path, into: Path) -> Path:
    with zipfile.ZipFile(path) as zf:
        zf.extractall(into)
    (top,) = list(into.iterdir())
    return top


def _crop_draw(width: int):
    """A screen callable that crops like the launcher: the --data field and each log line cut to ``width``."""
    seen = []

    def draw(records, sample):
        seen.append(records)
        args = records[-1].config["args"]
        value = args[args.index("--data") + 1]
        log = [line[:width] for line in records[-1].log_text.splitlines()]
        return png.terminal_svg("\n".join([f"data  {value[:width]}", *log]), "cardbench"), None

    return draw, seen


# -- the record --------------------------------------------------------------------------------------

def test_a_run_records_the_secrets_its_arguments_hold_as_salted_digests_never_the_values(tmp_path, monkeypatch):
    monkeypatch.setenv("MY_SERVICE_PASSWORD", PASSWORD)
    monkeypatch.setenv("OTHER_API_KEY", "NotInTheArgumentsAtAll99")
    run = RunStore(tmp_path).create("resnet50", ["--data", f"/tmp/{PASSWORD}/imgs", "--hf-token",
                                                 "PlantedArgSecret4242"])
    config = json.loads((run.path / "config.json").read_text())
    recorded = config[RECORD_KEY]
    assert set(recorded) == {"salt", "sha256", "shapes"} and len(recorded["salt"]) == 32
    text = json.dumps(recorded)
    assert all(piece not in text for piece in _pieces(PASSWORD))

    def digest(value):
        return hashlib.sha256(f"{recorded['salt']}\0{value}".encode()).hexdigest()

    # the variable's value inside the path, and the secret option's value; the variable not in them is not
    assert sorted(recorded["sha256"]) == sorted([digest(PASSWORD), digest("PlantedArgSecret4242")])
    assert sorted(recorded["shapes"]) == ["20", "24"]
    assert digest("NotInTheArgumentsAtAll99") not in recorded["sha256"]
    # the rest of config.json is as it was; a run holding no secret records nothing; each run its own salt
    assert config["args"][1] == f"/tmp/{PASSWORD}/imgs" and config["workload"] == "resnet50"
    assert RECORD_KEY not in json.loads((RunStore(tmp_path).create("resnet50", ["--steps", "2"]).path
                                         / "config.json").read_text())
    again = RunStore(tmp_path).create("resnet50", ["--data", f"/tmp/{PASSWORD}/imgs"])
    assert json.loads((again.path / "config.json").read_text())[RECORD_KEY]["salt"] != recorded["salt"]


def test_shapes_are_lengths_of_letters_and_digits_around_the_separators():
    assert secret_shape(PASSWORD) == "24"
    assert secret_shape(TOKEN) == "3_36"
    assert secret_shape("wJalrXUtnFEMI/K7MDENG/PlantedAwsSecret") == "13/7/16"
    assert secret_shape("sk-proj-abc123") == "2-4-6"


# -- the export later, from a shell without the variable ---------------------------------------------

@pytest.mark.parametrize("name,value", CASES, ids=["password", "token"])
def test_an_export_from_a_shell_without_the_variable_redacts_what_the_run_recorded(tmp_path, monkeypatch, quiet,
                                                                                 name, value):
    from tui.workbench.screenshot import app_screenshot

    monkeypatch.setenv(name, value)
    path = _data_run(tmp_path / "runs", value, log_line=f"opened /tmp/{value}/imgs/a/0.png")
    monkeypatch.delenv(name)  # the README's export after a crash, from another shell
    top = _unzip(export_bundle(ExportInputs([path], tmp_path / "out", screenshot=app_screenshot, doctor_checks=[])),
                 tmp_path / "x")
    assert _leaks(top, value) == []
    svg = (top / "screenshot.svg").read_text()
    assert "device status and runs (text rendering)" not in svg  # the workbench's own screen was drawn
    assert "/tmp/[redacted]/imgs" in svg.replace("&#160;", " ")
    config = json.loads((top / f"logs/{path.name}/config.json").read_text())
    assert RECORD_KEY not in config  # the digests stay on the user's disk
    assert config["args"][-1] == "/tmp/[redacted]/imgs"
    assert "/tmp/[redacted]/imgs/a/0.png" in (top / f"logs/{path.name}/run.log").read_text()
    assert "ImageFolder /tmp/[redacted]/imgs" in (top / "report.md").read_text()
    assert "/tmp/[redacted]/imgs" in (top / f"logs/{path.name}/events.jsonl").read_text()


def test_a_secret_in_a_longer_word_or_with_separators_is_found_again(tmp_path, monkeypatch, quiet):
    aws = "wJalrXUtnFEMI/K7MDENG/PlantedAwsSecretKey"
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", aws)
    monkeypatch.setenv("MY_SERVICE_PASSWORD", PASSWORD)
    run = RunStore(tmp_path / "runs").create("resnet50", ["--data", f"/mnt/run{PASSWORD}x", "--note",
                                                          f"s3:{aws}@bucket"])
    run.log(f"reading /mnt/run{PASSWORD}x, key {aws}")
    run.log(f"and the password alone: {PASSWORD}.")  # found in the arguments (inside a word): known here too
    run.close()
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    monkeypatch.delenv("MY_SERVICE_PASSWORD")
    top = _unzip(export_bundle(ExportInputs([run.path], tmp_path / "out", doctor_checks=[])), tmp_path / "x")
    assert _leaks(top, PASSWORD) == [] and _leaks(top, aws) == []
    log = (top / f"logs/{run.path.name}/run.log").read_text()
    assert "password alone: [redacted]." in log and "key [redacted]" in log


def test_a_recorded_secret_the_config_no_longer_holds_is_found_in_a_long_log(tmp_path, monkeypatch, quiet):
    monkeypatch.setenv("MY_SERVICE_PASSWORD", PASSWORD)
    path = _data_run(tmp_path / "runs", PASSWORD)
    monkeypatch.delenv("MY_SERVICE_PASSWORD")
    config = json.loads((path / "config.json").read_text())
    config["args"] = ["--steps", "2"]  # edited by hand: only the digest knows the secret now
    (path / "config.json").write_text(json.dumps(config))
    with open(path / "run.log", "a") as fh:  # long enough for the line-wise pass
        fh.write("".join(f"[bench] step {i} | loss 0.5 | 3.0 images/s\n" for i in range(5000)))
        fh.write(f"[bench] data: /tmp/{PASSWORD}/imgs\n")
    top = _unzip(export_bundle(ExportInputs([path], tmp_path / "out", doctor_checks=[])), tmp_path / "x")
    assert _leaks(top, PASSWORD) == []
    assert "data: /tmp/[redacted]/imgs" in (top / f"logs/{path.name}/run.log").read_text()


@pytest.mark.parametrize("recorded", [
    "not an object", {"salt": 1, "sha256": [], "shapes": []}, {"salt": "ab", "sha256": ["zz"], "shapes": ["24"]},
    {"salt": "ab", "sha256": ["0" * 64], "shapes": ["24a"]}, {"salt": "ab", "sha256": ["0" * 64], "shapes": ["0"]},
    {"salt": "ab", "sha256": ["0" * 64, "1" * 64], "shapes": [None, "9" * 30]}, {"salt": "ab"}])
def test_a_malformed_record_is_ignored(tmp_path, quiet, recorded):
    path = _data_run(tmp_path / "runs", "not-a-secret")
    config = json.loads((path / "config.json").read_text())
    config[RECORD_KEY] = recorded
    (path / "config.json").write_text(json.dumps(config))
    top = _unzip(export_bundle(ExportInputs([path], tmp_path / "out", doctor_checks=[])), tmp_path / "x")
    assert "not-a-secret" in (top / f"logs/{path.name}/run.log").read_text()
    assert RECORD_KEY not in json.loads((top / f"logs/{path.name}/config.json").read_text())


def test_finding_recorded_secrets_in_a_long_log_stays_fast():
    recorded = record_for_run({"args": [f"/tmp/{PASSWORD}/imgs", TOKEN]}, {"MY_PASSWORD": PASSWORD})
    line = ('{"event":"step","t":1790000000.1,"step":123,"loss":6.123456,"throughput":2412.0,"unit":"images/s",'
            '"step_s":0.1,"data_wait_s":0.002,"memory_allocated_bytes":64424509440}\n')
    text = line * 100_000 + f"/tmp/{PASSWORD}/imgs {TOKEN}\n"  # 17 MB
    redactor = Redactor({})
    redactor.learn_recorded(recorded)
    started = time.perf_counter()
    out = redactor.text(text)
    assert time.perf_counter() - started < 5.0  # about 0.2 s; a regex walk at every position took 4 s
    assert out.endswith("/tmp/[redacted]/imgs [redacted]\n") and not redactor.hiding


# -- what is drawn is drawn redacted ---------------------------------------------------------------------

@pytest.mark.parametrize("name,value", CASES, ids=["password", "token"])
def test_a_field_that_crops_the_path_shows_the_marker_never_half_the_secret(tmp_path, monkeypatch, quiet, name,
                                                                           value):
    monkeypatch.setenv(name, value)  # known at export too: the whole value was always redacted
    path = _data_run(tmp_path / "runs", value)
    draw, seen = _crop_draw(24)
    top = _unzip(export_bundle(ExportInputs([path], tmp_path / "out", screenshot=draw,
                                            doctor_checks=[])), tmp_path / "x")
    assert _leaks(top, value) == []
    (records,) = seen
    assert records[0].config["args"][-1] == "/tmp/[redacted]/imgs"
    assert "data  /tmp/[redacted]/imgs" in (top / "screenshot.svg").read_text().replace("&#160;", " ")


@pytest.mark.parametrize("name,value", CASES, ids=["password", "token"])
def test_the_text_screen_cuts_lines_after_redacting_them(tmp_path, monkeypatch, quiet, name, value):
    monkeypatch.setenv(name, value)
    # the text screen cuts a log line ("[2026-12-02 21:00:00] " and the rest) at column 118: 14 characters in
    path = _data_run(tmp_path / "runs", value, log_line="x" * (118 - 22 - 6 - 14) + f" path {value}/imgs")
    top = _unzip(export_bundle(ExportInputs([path], tmp_path / "out", screenshot=None,
                                            doctor_checks=[])), tmp_path / "x")
    assert _leaks(top, value) == []
    assert "plain text rendering" in (top / "report.md").read_text()


def test_the_drawn_copy_of_a_run_shares_its_steps_and_leaves_the_run_as_it_was(tmp_path, monkeypatch):
    monkeypatch.setenv("MY_SERVICE_PASSWORD", PASSWORD)
    record = load_run(_data_run(tmp_path, PASSWORD, log_line=f"opened /tmp/{PASSWORD}/imgs"))
    redactor = Redactor()
    redactor.learn_run(record)
    drawn = redactor.record(record)
    assert all(a is b for a, b in zip(drawn.steps, record.steps))  # nothing to redact in a step: no copy
    assert drawn.start.config["data"] == "/tmp/[redacted]/imgs"
    assert drawn.result.metrics["data"] == "ImageFolder /tmp/[redacted]/imgs (8 images, 2 classes)"
    assert PASSWORD not in drawn.log_text and "opened /tmp/[redacted]/imgs" in drawn.log_text
    assert RECORD_KEY not in drawn.config and drawn.config["args"][-1] == "/tmp/[redacted]/imgs"
    assert record.start.config["data"] == f"/tmp/{PASSWORD}/imgs" and PASSWORD in record.log_text
    assert RECORD_KEY in record.config and drawn.path == record.path and drawn.telemetry is record.telemetry


# -- the live screen ------------------------------------------------------------------------------------

def test_a_live_screen_loses_what_a_cut_left_of_a_secret_or_a_token():
    redactor = Redactor({"MY_SERVICE_PASSWORD": PASSWORD})
    cut_token = TOKEN[:19]  # "ghp_" and 15 more: too short for the shape rule
    svg = png.terminal_svg("\n".join([
        f"data  /tmp/{PASSWORD[:13]}", f"{PASSWORD[9:]}/imgs (8 images)", f"token {cut_token}",
        "pip install sk-learn hf_hub; bypass the password prompt", f"whole: {PASSWORD} and {TOKEN}"]), "cardbench")
    out = redactor.screen(svg).replace("&#160;", " ")
    assert all(piece not in out for piece in _pieces(PASSWORD)) and TOKEN[4:12] not in out
    assert "data  /tmp/[redacted]" in out and "[redacted]/imgs (8 images)" in out and "token [redacted]" in out
    assert "pip install sk-learn hf_hub; bypass the password prompt" in out
    assert "whole: [redacted] and [redacted]" in out


def test_field_values_and_arguments_for_a_screen():
    redactor = Redactor({"MY_SERVICE_PASSWORD": PASSWORD})
    assert redacted_values({"data": f"/tmp/{PASSWORD}/imgs", "hf_token": "abc", "steps": "2", "device": ""},
                           redactor) == {"data": "/tmp/[redacted]/imgs", "hf_token": REDACTED, "steps": "2",
                                         "device": ""}
    assert redacted_args(["--data", f"/tmp/{PASSWORD}/imgs", "--hf-token", "xyzxyzxyz", "--steps", 2], redactor) \
        == ["--data", "/tmp/[redacted]/imgs", "--hf-token", REDACTED, "--steps", "2"]


async def test_the_live_workbench_draws_its_fields_redacted_and_keeps_their_values(tmp_path, monkeypatch):
    from tui.workbench.app import build_app

    monkeypatch.setenv("MY_SERVICE_PASSWORD", PASSWORD)
    path = _data_run(tmp_path / "runs", PASSWORD)
    monkeypatch.delenv("MY_SERVICE_PASSWORD")  # known from the run's record alone
    app = build_app(tmp_path / "runs", start_sampler=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await app.panes_built.wait()
        app.launcher.show_args("resnet50", ["--data", f"/tmp/{PASSWORD}/imgs", "--steps", "3"])
        await pilot.pause()
        assert PASSWORD[:13] in app.export_screenshot()  # the field crops the path: the SVG holds half of it
        svg = live_screenshot(app, run_dirs=[path])
        assert all(piece not in svg for piece in _pieces(PASSWORD))
        assert "/tmp/[redacted]" in svg.replace("&#160;", " ")
        assert app.launcher.values("resnet50")["data"] == f"/tmp/{PASSWORD}/imgs"  # the field keeps its value
        await pilot.pause()
        assert app.launcher.values("resnet50")["data"] == f"/tmp/{PASSWORD}/imgs"
