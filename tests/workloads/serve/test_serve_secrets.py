"""Issue 37, secrets: the key a server echoes back is nowhere (the terminal, the run, the bundle), even where its
variable's name does not look secret and the export runs from a shell without it; a password in --url is not kept
in the run's config.json; and every serve bundle is JSON that `cardbench compare` reads against itself."""

from __future__ import annotations

import json
import os
import zipfile

import pytest

from recorded_env import recorded_doctor_and_env  # noqa: F401 - a fixture: the export's doctor, recorded
from tui import cli
from tui.headless.plan import suite_jobs
from tui.report.export import ExportInputs, export_bundle
from tui.redact import REDACTED, Redactor
from tui.store import RunStore
from workloads.rundir import CONFIG, EVENTS, LOG
from workloads.serve.client import REDACTED as SERVE_REDACTED

# no token shape (sk-, hf_...) and a variable whose name does not look secret: only what the run recorded finds it
KEY = "qz7Hostile-Srv-Key-4411x"
VAR = "HOSTILE_SRV"


def cardbench(runs, *argv):
    return cli.main(["run", "--runs-dir", str(runs), "serve", *argv])


def _files_holding(paths, needle: bytes) -> list[str]:
    return [str(p) for p in paths if p.is_file() and needle in p.read_bytes()]


def _bundle_members_holding(bundle, needle: bytes) -> list[str]:
    with zipfile.ZipFile(bundle) as zf:
        return [n for n in zf.namelist() if needle in zf.read(n)]


def _export(run, out):
    """As from a shell without the variable (the README's export after a crash), the screen drawn from the run."""
    return export_bundle(ExportInputs([run], out, doctor_checks=[], environ={"PATH": os.environ.get("PATH", "")}))


@pytest.mark.parametrize("case, behaviour, code", [
    ("refused with a 401", {"echo_key_every": 1}, 1),
    ("refused inside the stream", {"echo_key_every": 1, "echo_in_stream": True}, 1),
    ("refused mid-level", {"echo_key_every": 2}, 0),
])
def test_a_key_the_server_echoes_is_nowhere(serve_workload, serving, tmp_path, monkeypatch, capsys,
                                            recorded_doctor_and_env, case, behaviour, code):  # noqa: F811
    monkeypatch.setenv(VAR, KEY)
    runs = tmp_path / "runs"
    with serving(**behaviour) as server:
        got = cardbench(runs, "--url", server.url, "--api-key-env", VAR, "--concurrency", "2", "--requests", "4",
                        "--output-len", "3")
    out, err = capsys.readouterr()
    assert got == code, out + err
    assert KEY not in out + err
    assert f"Incorrect API key provided: {REDACTED}" in out + err
    (run,) = runs.iterdir()
    assert _files_holding(run.rglob("*"), KEY.encode()) == []
    # as an older cardbench wrote the run (the key in run.log and events.jsonl), exported from a shell without the
    # variable: the export finds the key by what the run recorded, in the report, the summary and the screen too
    for name in (LOG, EVENTS):
        (run / name).write_text((run / name).read_text().replace(REDACTED, KEY))
    assert _files_holding([run / LOG, run / EVENTS], KEY.encode())
    monkeypatch.delenv(VAR)
    bundle = _export(run, tmp_path / "out")
    assert _bundle_members_holding(bundle, KEY.encode()) == []
    # where the key stood, the marker: in the run's copies, the summary and the report
    said = f"Incorrect API key provided: {REDACTED}".encode()
    holding = {n.split("/", 1)[1] for n in _bundle_members_holding(bundle, said)}
    assert {"metrics/summary.json", "report.html", "report.md"} <= holding, holding


def test_the_value_behind_api_key_env_is_recorded_by_digest_and_found_again(tmp_path, monkeypatch):
    monkeypatch.setenv(VAR, KEY)
    args = ["--url", "http://h/v1", "--api-key-env", VAR]
    run = RunStore(tmp_path).create("serve", args)
    config = (run.path / CONFIG).read_text()
    assert KEY not in config and json.loads(config)["redact"]["sha256"]
    echoed = f"HTTP 401: Incorrect API key provided: {KEY}. You can find your API key at ..."
    # an export from this shell knows the value from the variable the arguments name
    here = Redactor({VAR: KEY})
    here.learn_from_args(args)
    assert here.text(echoed) == f"HTTP 401: Incorrect API key provided: {REDACTED}. You can find your API key at ..."
    # one from a shell without the variable finds it by the run's record
    later = Redactor({})
    later.learn_run_dir(run.path)
    assert later.hiding
    assert KEY not in later.text(echoed) and REDACTED in later.text(echoed)


def test_the_serve_workload_writes_the_reports_marker():
    assert SERVE_REDACTED == REDACTED


def test_a_password_in_the_url_is_not_kept_in_config_json(serve_workload, serving, tmp_path, capsys):
    runs = tmp_path / "runs"
    with serving() as server:
        url = server.url.replace("http://", "http://alice:hunter2-pw@")
        assert cardbench(runs, "--url", url, "--concurrency", "1", "--requests", "2", "--output-len", "2") == 0
    capsys.readouterr()
    (run,) = runs.iterdir()
    config = json.loads((run / CONFIG).read_text())
    assert "hunter2-pw" not in json.dumps(config)
    assert config["args"][config["args"].index("--url") + 1] == server.url.replace("http://", f"http://alice:{REDACTED}@")
    assert _files_holding(run.rglob("*"), b"hunter2-pw") == []
    # what the run recorded still finds the password again where something else wrote it
    later = Redactor({})
    later.learn_run_dir(run)
    assert later.text("proxy said: hunter2-pw refused") == f"proxy said: {REDACTED} refused"


def test_every_serve_bundle_is_json_and_compares_the_same_with_itself(serve_workload, tmp_path, monkeypatch, capsys,
                                                                      recorded_doctor_and_env):  # noqa: F811
    """The standard suite's run (--test-server, no --api-key-env: "api_key_env": null in its config)."""
    monkeypatch.setitem(cli.COMMAND_MODULES, "compare", "tui.cli.compare")
    (job,) = suite_jobs("standard", ["serve"], accelerator=False, device=None)[0]
    assert "--test-server" in job.args and "--api-key-env" not in job.args
    runs = tmp_path / "runs"
    assert cardbench(runs, *job.args) == 0
    (run,) = runs.iterdir()
    bundle = _export(run, tmp_path / "out")
    with zipfile.ZipFile(bundle) as zf:
        for name in zf.namelist():
            if name.endswith(".json"):
                json.loads(zf.read(name))
            elif name.endswith(".jsonl"):
                for line in zf.read(name).decode("utf-8").split("\n")[:-1]:
                    json.loads(line)
        events = next(n for n in zf.namelist() if n.endswith("events.jsonl"))
        start = json.loads(zf.read(events).decode().splitlines()[0])
    assert start["config"]["api_key_env"] is None
    capsys.readouterr()
    assert cli.main(["compare", str(bundle), str(bundle)]) == 0
    out = capsys.readouterr().out
    assert "| B | " in out and "| 1.00 ± " in out and "| same within ± |" in out, out
