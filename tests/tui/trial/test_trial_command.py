"""`cardbench trial` keeps the trial in the user's config file; the time left reads the same for every reader."""

import dataclasses
import json
from datetime import datetime, timedelta, timezone

import pytest

from tui import cli
from tui.trial import clock, config as trial_config

NOW = 1_800_000_000.0   # 2027-01-15 08:00:00 UTC


@pytest.fixture
def cfg(tmp_path, monkeypatch):
    path = tmp_path / "cardbench" / "config.json"
    monkeypatch.setenv(trial_config.ENV_VAR, str(path))
    monkeypatch.setitem(cli.COMMAND_MODULES, "trial", "tui.cli.trial")
    return path


def test_ends_and_price_are_kept_beside_the_files_other_keys_and_shown(cfg, capsys):
    cfg.parent.mkdir(parents=True)
    cfg.write_text(json.dumps({"theme": "dark"}))
    ends = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(days=30)   # within a trial's year
    beijing = ends.astimezone(timezone(timedelta(hours=8))).isoformat()
    assert cli.main(["trial", "--trial-ends", beijing, "--price-per-hour", "6.5",
                     "--currency", "CNY", "--backup-dest", "oss:bucket/trial"]) == 0
    data = json.loads(cfg.read_text())
    assert data["theme"] == "dark"
    assert data["trial"]["ends"] == ends.timestamp()
    assert data["trial"]["price_per_hour"] == 6.5 and data["trial"]["currency"] == "CNY"
    out = capsys.readouterr().out
    assert f"(ends {ends:%Y-%m-%d %H:%M:%S} UTC), 0.00 CNY so far at 6.50 CNY/h list price" in out
    assert f"the banner and bell come at {ends - timedelta(hours=2):%Y-%m-%d %H:%M:%S} UTC (2 h before the end" in out
    assert "backup destination (key b): oss:bucket/trial" in out
    assert cli.main(["trial", "--clear"]) == 0
    assert json.loads(cfg.read_text()) == {"theme": "dark"}
    assert trial_config.load() == trial_config.TrialConfig()


@pytest.mark.parametrize("argv, said", [
    (["--ends", "friday"], "cannot read 'friday' as a time"),
    (["--ends", "2020-01-01T00:00Z"], "the trial's end 2020-01-01 00:00:00 UTC is in the past"),
    (["--hours", "0"], "--hours must be more than 0, not 0"),
    (["--hours", "nan"], "--hours must be a finite number, not nan"),
    (["--hours", "3", "--price-per-hour", "-1"], "--price-per-hour must be 0 or more, not -1"),
    (["--ends", "2099-01-01T00:00Z", "--hours", "3"], "not allowed with argument"),
    (["--started", "2026-12-01T00:00Z"], "--started needs a trial"),
])
def test_bad_values_are_one_line_and_exit_2_and_keep_nothing(cfg, capsys, argv, said):
    assert cli.main(["trial", *argv]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1 and "Traceback" not in err
    assert not cfg.exists()


def test_a_broken_config_file_is_one_line_for_the_command_and_silence_for_the_readers(cfg, capsys):
    cfg.parent.mkdir(parents=True)
    cfg.write_text("{not json")
    assert cli.main(["trial", "--show"]) == 2
    err = capsys.readouterr().err
    assert f"the config file {cfg} is not valid JSON (line 1)" in err and err.count("\n") == 1
    assert clock.left_line() is None   # `cardbench devices` and the export print no trial line, and do not fail
    assert cfg.read_text() == "{not json"   # and nothing overwrote the user's file


def test_the_config_lives_under_xdg_config_home_by_default(tmp_path, monkeypatch):
    monkeypatch.delenv(trial_config.ENV_VAR, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert trial_config.config_path() == tmp_path / "xdg" / "cardbench" / "config.json"


def test_the_time_left_line_for_the_headless_export_and_devices():
    trial = trial_config.TrialConfig(ends=NOW + 26 * 3600 + 125, started=NOW - 10 * 3600, price_per_hour=2.5)
    assert clock.left_line(trial_config.TrialConfig(), clock=lambda: NOW) is None
    assert clock.left_line(trial, clock=lambda: NOW) == (
        "trial: 1 d 2 h left (ends 2027-01-16 10:02:05 UTC), 25.00 USD so far at 2.50 USD/h list price")
    near = clock.left_line(trial, clock=lambda: trial.ends - 7140)   # 1 h 59 min left: within the 2 h lead
    assert near.startswith("trial: 1 h 59 min left") and near.endswith(
        "; export the report and back up now (cardbench backup DEST)")
    kept = dataclasses.replace(trial, backup_dest="oss:bucket/trial")   # `cardbench backup` then needs no DEST
    assert clock.left_line(kept, clock=lambda: trial.ends - 7140).endswith("back up now (cardbench backup)")
    after = clock.left_line(trial, clock=lambda: trial.ends + 60)
    assert after.startswith("trial: ENDED at 2027-01-16 10:02:05 UTC, 90.09 USD so far")   # cost stops at the end


@pytest.mark.parametrize("seconds, text", [
    (59.9, "59 s"), (179.5, "2 min 59 s"), (3599.9, "59 min 59 s"), (7199, "1 h 59 min"),
    (2 * 86400 - 1, "1 d 23 h"), (-1, "N/A"),
])
def test_time_left_is_rounded_down(seconds, text):
    assert clock.time_left(seconds) == text


def test_the_header_gives_up_the_end_time_before_any_figure_when_narrow():
    state = clock.status(trial_config.TrialConfig(ends=NOW + 180, started=NOW - 7200, price_per_hour=6.5,
                                                  currency="CNY"), NOW)
    assert clock.header_text(state) == ("trial: 3 min 0 s left (ends 2027-01-15 08:03:00 UTC), 13.00 CNY so far "
                                        "at 6.50 CNY/h list price")
    assert clock.header_text(state, 78) == "trial: 3 min 0 s left, 13.00 CNY so far at 6.50 CNY/h list price"
    assert clock.header_text(state, 60) == "trial: 3 min 0 s left, 13.00 CNY so far at 6.50 CNY/h"
    assert clock.header_text(clock.status(trial_config.TrialConfig(ends=NOW + 180), NOW), 40) == "trial: 3 min 0 s left"


def test_the_report_uses_the_kept_price_unless_one_is_given(cfg):
    assert trial_config.report_price(None, "USD") == (None, "USD", None)
    trial_config.save(trial_config.TrialConfig(ends=NOW, price_per_hour=6.5, currency="CNY"))
    assert trial_config.report_price(None, "USD") == (6.5, "CNY", "trial")
    assert trial_config.report_price(2.0, "EUR") == (2.0, "EUR", "option")


@pytest.mark.parametrize("argv, said", [
    (["--hours", "1e308"], "--hours must be at most 8784, not 1e308"),
    (["--hours", "9000"], "--hours must be at most 8784"),
    (["--hours", "3", "--price-per-hour", "1e300"], "--price-per-hour must be at most 1e+06"),
    (["--hours", "3", "--lead-hours", "1e308"], "--lead-hours must be at most 8784"),
    (["--hours", "3", "--currency", "X" * 100_000], "is not a currency"),
    (["--hours", "3", "--currency", "\x1b]0;pwned\x07"], "is not a currency"),
    (["--ends", "9999-12-31T00:00Z"], "time 9999-12-31T00:00Z is not between 2000 and 2100"),
    (["--ends", "2101-01-01T00:00Z"], "time 2101-01-01T00:00Z is not between 2000 and 2100"),
])
def test_values_out_of_any_trial_s_range_are_refused(cfg, capsys, argv, said):
    assert cli.main(["trial", *argv]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1 and "Traceback" not in err and "\x1b" not in err
    assert len(err) < 400 and not cfg.exists()


def test_a_kept_value_out_of_range_is_named_not_a_vanished_trial(cfg, capsys):
    cfg.parent.mkdir(parents=True)
    cfg.write_text('{"trial": {"ends": 1e308, "started": 1764000000, "currency": "CNY"}}')
    assert cli.main(["trial", "--show"]) == 2
    err = capsys.readouterr().err
    assert "trial.ends 1e+308 s since 1970 is not between 2000 and 2100" in err and "cardbench trial --clear" in err
    warned = []
    assert clock.left_line(warn=warned.append) is None
    assert len(warned) == 1 and "trial settings not read" in warned[0]


@pytest.mark.parametrize("text, said", [
    ("{not json", "not valid JSON (line 1)"),
    ("[" * 100_000 + "]" * 100_000, "not valid JSON (nested too deeply)"),   # a RecursionError's traceback
    ('{"trial": {"ends": Infinity}}', "trial.ends is Infinity"),              # a trial that vanished in silence
])
def test_devices_says_in_one_line_that_the_config_is_broken(cfg, tmp_path, text, said):
    import os
    import subprocess
    import sys

    cfg.parent.mkdir(parents=True)
    cfg.write_text(text)
    env = {**os.environ, trial_config.ENV_VAR: str(cfg), "PATH": str(tmp_path)}   # no management CLI
    done = subprocess.run([sys.executable, "-m", "tui.cli", "devices"], env=env, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0 and "host" in done.stdout.lower()
    lines = [line for line in done.stderr.splitlines() if "config" in line]
    assert len(lines) == 1 and said in lines[0] and "Traceback" not in done.stderr
    assert lines[0].startswith("cardbench devices: trial settings not read: the config file")


def test_a_new_end_for_the_running_trial_keeps_its_start_and_cost(cfg, capsys):
    assert cli.main(["trial", "--hours", "10", "--price-per-hour", "2"]) == 0
    started = trial_config.load().started
    cfg.write_text(cfg.read_text().replace(f'"started": {started}', f'"started": {started - 3600}'))
    assert cli.main(["trial", "--hours", "20"]) == 0
    kept = trial_config.load()
    assert kept.started == started - 3600 and kept.ends > started + 19 * 3600


def test_backup_without_dest_names_a_broken_config_instead_of_saying_none_is_kept(cfg, capsys):
    cfg.parent.mkdir(parents=True)
    cfg.write_text('{"trial": {"backup_dest": "oss:bucket", "ends": 1e308}}')
    assert cli.main(["backup"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the kept one cannot be read" in err and "trial.ends" in err
