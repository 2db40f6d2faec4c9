"""A trial's values stay in a trial's range, and a config someone edited by hand (or a disk damaged) is one line,
never a traceback, never a trial that silently vanished (issue 21.9)."""

import json
import os
import subprocess
import sys

import pytest

from tui import cli
from tui.trial import clock, config as trial_config


@pytest.fixture
def cfg(tmp_path, monkeypatch):
    path = tmp_path / "cardbench" / "config.json"
    path.parent.mkdir(parents=True)
    monkeypatch.setenv(trial_config.ENV_VAR, str(path))
    return path


@pytest.mark.parametrize("argv, said", [
    (["--hours", "inf"], "--hours must be a finite number, not inf"),
    (["--hours", "3", "--price-per-hour", "inf"], "--price-per-hour must be a finite number, not inf"),
    (["--ends", "2099-06-01T00:00Z"], "is more than a year away (8784 h)"),
    (["--hours", "3", "--started", "2099-06-01T00:00Z"], "the trial's start 2099-06-01 00:00:00 UTC is after its end"),
    (["--hours", "3", "--backup-dest", "oss:b\x1b]0;pwned\x07"], "backup destination 'oss:b' holds control characters"),
    (["--hours", "3", "--backup-dest", "x" * 5000], "longer than 1024 characters"),
])
def test_values_no_trial_has_are_refused_in_one_line(cfg, capsys, argv, said):
    assert cli.main(["trial", *argv]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1 and "\x1b" not in err and len(err) < 400
    assert not cfg.exists()


NESTED = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("text, said", [
    ('{"trial": {"ends": Infinity}}', "trial.ends is Infinity, not a finite number"),   # what --hours 1e308 wrote
    ('{"trial": {"ends": 1900000000, "started": NaN}}', "trial.started is NaN, not a finite number"),
    ('{"trial": {"ends": "2027-01-01"}}', 'trial.ends is "2027-01-01", not a finite number'),
    ('{"trial": {"ends": [[[1]]]}}', "trial.ends is a list, not a finite number"),
    ('{"trial": {"ends": 1900000000, "lead_hours": -3}}', "trial.lead_hours -3 is not between 0 and 8784"),
    ('{"trial": {"ends": 1900000000, "currency": 5}}', "trial.currency is 5, not text"),
    ('{"trial": {"ends": 1900000000, "backup_dest": "oss:b\\u001b]52;c;eA==\\u0007"}}',
     "trial.backup_dest: backup destination 'oss:b' holds control characters"),
    ('{"trial": 5}', "trial is int, not an object"),
    (NESTED, "is not valid JSON (nested too deeply)"),
    (" " * (2 << 20), "is 2 MiB, not a config cardbench wrote"),
])
def test_a_hand_edited_config_is_one_line_naming_what_is_wrong(cfg, capsys, text, said):
    cfg.write_text(text)
    assert cli.main(["trial", "--show"]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1 and "Traceback" not in err and "\x1b" not in err
    warned = []   # the workbench's clock and `cardbench devices`: no trial line, one warning, no failure
    assert clock.left_line(warn=warned.append) is None and len(warned) == 1 and said in warned[0]
    assert cli.main(["trial", "--hours", "3"]) == 2   # nothing the user wrote is overwritten by a new trial
    assert cfg.read_text() == text


def test_clear_forgets_a_kept_trial_that_cannot_be_read_and_keeps_the_other_keys(cfg, capsys):
    cfg.write_text('{"theme": "dark", "trial": {"ends": Infinity}}')
    assert cli.main(["trial", "--clear"]) == 0
    assert json.loads(cfg.read_text()) == {"theme": "dark"}


def test_a_config_that_is_a_fifo_is_refused_not_waited_on(cfg):
    os.mkfifo(cfg)
    env = {**os.environ, trial_config.ENV_VAR: str(cfg)}
    done = subprocess.run([sys.executable, "-m", "tui.cli", "trial"], env=env, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert done.stderr == f"cardbench trial: the config file {cfg} is not a regular file; remove it\n"
