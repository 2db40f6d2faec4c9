"""A file written atomically is whole or absent, with the mode asked for, and a failed write leaves nothing behind."""

import os
import stat

import pytest

from tui.files import write_atomically


def test_written_whole_with_its_mode_and_no_temporary_left(tmp_path):
    path = tmp_path / "live.json"
    path.write_text("old")
    write_atomically(path, "new\n", mode=0o644)
    assert path.read_text() == "new\n" and stat.S_IMODE(path.stat().st_mode) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["live.json"]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "config.json"
    path.write_text("old")
    monkeypatch.setattr(os, "replace", lambda *a: (_ for _ in ()).throw(OSError(28, "No space left on device")))
    with pytest.raises(OSError):
        write_atomically(path, "new")
    assert path.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["config.json"]
