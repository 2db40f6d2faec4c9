"""Where a scan keeps its state: `$CARDBENCH_OPSCAN_STATE`, else `$XDG_CACHE_HOME/cardbench/opscan` (issue 21.11)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from workloads.opscan import state

HERE = Path(__file__).resolve().parent


def test_the_state_root_follows_xdg_cache_home_and_the_override_comes_first(tmp_path, monkeypatch):
    monkeypatch.delenv(state.STATE_ENV, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert state.state_root() == tmp_path / "cache" / "cardbench" / "opscan"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/ignored")   # the XDG spec: a relative path is ignored
    assert state.state_root() == tmp_path / "home" / ".cache" / "cardbench" / "opscan"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert state.state_root() == tmp_path / "home" / ".cache" / "cardbench" / "opscan"
    monkeypatch.setenv(state.STATE_ENV, str(tmp_path / "mine"))
    assert state.state_root() == tmp_path / "mine"


def test_a_real_scan_writes_its_state_under_xdg_cache_home_and_nothing_under_home(tmp_path):
    home, cache = tmp_path / "home", tmp_path / "cache"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k != state.STATE_ENV}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(cache),
               PYTHONPATH=f"{HERE}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    done = subprocess.run([sys.executable, "-m", "workloads.opscan", "--device", "cpu", "--repeats", "1",
                           "--model", "tinynet:build", "--dtypes", "fp32", "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, env=env, timeout=300, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    journals = list((cache / "cardbench" / "opscan").glob("*/journal.jsonl"))
    assert len(journals) == 1 and journals[0].read_text().strip()
    assert sorted(p.relative_to(home) for p in home.rglob("*")) == []
