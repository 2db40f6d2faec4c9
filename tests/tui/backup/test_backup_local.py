"""`cardbench backup DIR`: what it holds, a restore checked by sha256sum -c, a second backup that sends only what
changed, and interruptions (Ctrl+C, a killed process, a full disk) that leave the previous backup whole."""

import errno
import os
import shutil
import signal
import subprocess
from pathlib import Path

from backup_helpers import kill_mid_copy, sha256sum_check

from tui import cli
from tui.backup import manifest, progress


def _latest(dest: Path) -> Path:
    return dest / (dest / "LATEST").read_text().strip()


def _names(dest: Path) -> list[str]:
    """What a destination holds, but for the lock a backup takes on it."""
    return sorted(p.name for p in dest.iterdir() if p.name != ".cardbench-backup.lock")


def test_a_backup_holds_the_runs_checkpoints_and_reports_and_a_restore_passes_sha256sum(workspace, tmp_path, capsys):
    dest = tmp_path / "backup"
    assert cli.main(workspace.argv(str(dest))) == 0
    out = capsys.readouterr().out
    assert f"backup: 5 files to {dest} (runs 3, checkpoints 1, reports 1)" in out
    assert "backup: 5 files sent" in out and "0 unchanged not sent" in out
    snapshot = _latest(dest)
    listed = manifest.parse_manifest((snapshot / "MANIFEST.sha256").read_text())
    ckpt_rel = "checkpoints" + str(workspace.checkpoint.resolve())
    assert sorted(listed) == sorted(["runs/20261203-070000-resnet50/config.json",
                                     "runs/20261203-070000-resnet50/events.jsonl",
                                     "runs/20261203-070000-resnet50/run.log", ckpt_rel,
                                     "reports" + str(workspace.report.resolve())])   # no lock, no .partial
    restored = tmp_path / "restored"
    restored.mkdir()
    subprocess.run(["cp", "-a", f"{snapshot}/.", str(restored)], check=True)
    checked = sha256sum_check(restored)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert (restored / ckpt_rel).read_bytes() == workspace.checkpoint.read_bytes()


def test_a_second_backup_sends_only_what_changed(workspace, tmp_path, capsys):
    dest = tmp_path / "backup"
    assert cli.main(workspace.argv(str(dest))) == 0
    first = _latest(dest)
    with open(workspace.runs / "20261203-070000-resnet50" / "events.jsonl", "a") as events:
        events.write('{"type": "step"}\n')
    capsys.readouterr()
    assert cli.main(workspace.argv(str(dest))) == 0
    out = capsys.readouterr().out
    assert "backup: 1 file sent (35 B), 4 unchanged not sent (" in out
    assert "hard-linked to the previous backup); 5 files" in out
    assert f"(previous: {first.name})" in out
    second = _latest(dest)
    assert second != first
    ckpt_rel = "checkpoints" + str(workspace.checkpoint.resolve())
    # not sent: the same file on disk as in the first backup
    assert (second / ckpt_rel).stat().st_ino == (first / ckpt_rel).stat().st_ino
    assert sha256sum_check(second).returncode == 0 and sha256sum_check(first).returncode == 0
    assert (second / "runs/20261203-070000-resnet50/events.jsonl").read_text().count("\n") == 2


def _change_checkpoint(workspace):
    workspace.checkpoint.write_bytes(os.urandom(400_000))


def test_ctrl_c_mid_copy_leaves_the_previous_backup_whole_and_named(workspace, tmp_path, capsys, monkeypatch):
    dest = tmp_path / "backup"
    assert cli.main(workspace.argv(str(dest))) == 0
    first = _latest(dest)
    _change_checkpoint(workspace)
    monkeypatch.setattr(progress, "QUIET_S", 0.0)

    def interrupt(self, phase, done, total):
        raise KeyboardInterrupt

    monkeypatch.setattr(progress.ProgressLine, "__call__", interrupt)
    capsys.readouterr()
    assert cli.main(workspace.argv(str(dest))) == 130
    err = capsys.readouterr().err
    assert f"cardbench backup: interrupted; the previous backup {first.name} is intact at {dest}" in err
    assert _latest(dest) == first and sha256sum_check(first).returncode == 0
    assert _names(dest) == sorted(["LATEST", first.name])   # nothing half-written left


def test_a_killed_backup_leaves_the_previous_one_and_the_next_backup_cleans_up(workspace, tmp_path, capsys):
    dest = tmp_path / "backup"
    assert cli.main(workspace.argv(str(dest))) == 0
    first = _latest(dest)
    _change_checkpoint(workspace)
    assert kill_mid_copy(str(dest), workspace.runs, workspace.root) == -signal.SIGKILL
    assert any(p.name.startswith(".partial-") for p in dest.iterdir())
    assert _latest(dest) == first and sha256sum_check(first).returncode == 0
    capsys.readouterr()
    assert cli.main(workspace.argv(str(dest))) == 0
    out = capsys.readouterr().out
    assert "removed 1 unfinished backup(s) left by an interruption" in out
    assert "1 file sent" in out
    assert not any(p.name.startswith(".partial-") for p in dest.iterdir())
    assert sha256sum_check(_latest(dest)).returncode == 0


def test_a_full_destination_is_one_line_and_the_previous_backup_stays(workspace, tmp_path, capsys, monkeypatch):
    dest = tmp_path / "backup"
    assert cli.main(workspace.argv(str(dest))) == 0
    first = _latest(dest)
    _change_checkpoint(workspace)
    real = manifest.copy_hashing

    def fills_up(src, dst, on_bytes):
        if dst is not None:
            dst.write(src.read(1000))
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(src, dst, on_bytes)

    monkeypatch.setattr("tui.backup.snapshot.copy_hashing", fills_up)
    capsys.readouterr()
    assert cli.main(workspace.argv(str(dest))) == 1
    err = capsys.readouterr().err
    assert err == (f"cardbench backup: destination {dest} is full (No space left on device); the previous backup "
                   f"{first.name} is intact; free space there or choose another DEST\n")
    assert _latest(dest) == first and sha256sum_check(first).returncode == 0
    # and when the free space is known short before anything is sent, nothing is started
    monkeypatch.setattr(shutil, "disk_usage", lambda path: shutil._ntuple_diskusage(10**9, 10**9 - 10, 10))
    assert cli.main(workspace.argv(str(dest))) == 1
    assert "bytes to send, 10 free" in capsys.readouterr().err


def test_include_paths_are_backed_up_and_a_destination_inside_one_is_not_backed_up_into_itself(workspace, capsys):
    code = workspace.root / "code"
    code.mkdir()
    (code / "train.py").write_text("print('hi')\n")
    dest = code / "backups"
    assert cli.main(workspace.argv(str(dest), "--include", str(code))) == 0
    listed = manifest.parse_manifest((_latest(dest) / "MANIFEST.sha256").read_text())
    assert "include" + str((code / "train.py").resolve()) in listed
    assert not any("backups" in rel for rel in listed)
    capsys.readouterr()
    assert cli.main(workspace.argv(str(dest), "--include", "missing")) == 2
    assert capsys.readouterr().err == "cardbench backup: --include missing: no such file or folder\n"


def test_without_dest_the_one_kept_by_cardbench_trial_is_used(workspace, tmp_path, capsys, monkeypatch):
    assert cli.main(workspace.argv()) == 2
    assert "no DEST given and none kept (cardbench trial --backup-dest DEST)" in capsys.readouterr().err
    monkeypatch.setitem(cli.COMMAND_MODULES, "trial", "tui.cli.trial")
    assert cli.main(["trial", "--backup-dest", str(tmp_path / "kept")]) == 0
    assert cli.main(workspace.argv()) == 0
    assert (tmp_path / "kept" / "LATEST").is_file()


def test_nothing_to_back_up_is_refused_and_the_backups_there_stay(workspace, tmp_path, capsys):
    dest = tmp_path / "backup"
    assert cli.main(workspace.argv(str(dest))) == 0
    first = _latest(dest)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.chdir(elsewhere)   # the wrong folder: no runs dir, no reports (the workspace fixture restores the cwd)
    capsys.readouterr()
    assert cli.main(["backup", str(dest)]) == 1
    assert capsys.readouterr().err.endswith("cardbench backup: nothing to back up here (no runs dir, checkpoints or "
                                            "report bundles; --runs-dir DIR or --include PATH)\n")
    assert _latest(dest) == first and _names(dest) == sorted(["LATEST", first.name])


def test_a_second_backup_into_the_same_folder_at_once_is_refused(workspace, tmp_path, capsys):
    import fcntl

    dest = tmp_path / "backup"
    assert cli.main(workspace.argv(str(dest))) == 0
    first = _latest(dest)
    with open(dest / ".cardbench-backup.lock", "a") as held:   # as a backup running in another process holds it
        fcntl.flock(held, fcntl.LOCK_EX)
        capsys.readouterr()
        assert cli.main(workspace.argv(str(dest))) == 1
        assert capsys.readouterr().err == (f"cardbench backup: another backup into {dest} is running; "
                                           "try again when it has finished\n")
    assert _latest(dest) == first
    assert cli.main(workspace.argv(str(dest))) == 0


def test_keep_removes_the_oldest_complete_backups_past_n(workspace, tmp_path, capsys):
    dest = tmp_path / "backup"
    made = []
    for _ in range(3):
        assert cli.main(workspace.argv(str(dest))) == 0
        made.append(_latest(dest).name)
    out = capsys.readouterr().out
    assert f"backup: removed older backups {made[0]} (--keep)" in out
    assert _names(dest) == sorted(["LATEST", made[1], made[2]])
    assert cli.main(workspace.argv(str(dest), "--keep", "1")) == 0
    newest = _latest(dest).name
    assert _names(dest) == sorted(["LATEST", newest])
    assert sha256sum_check(dest / newest).returncode == 0   # its hard links outlive the snapshots removed
    assert cli.main(workspace.argv(str(dest), "--keep", "0")) == 2
    assert "--keep must be a whole number from 1, not '0'" in capsys.readouterr().err


def test_a_backup_started_from_another_folder_still_sends_nothing_unchanged(workspace, tmp_path, capsys):
    dest = tmp_path / "backup"
    workspace.report.unlink()   # report bundles are looked for in the folder a backup starts from
    assert cli.main(["backup", str(dest), "--runs-dir", "cardbench-runs"]) == 0   # relative, from the workspace
    os.chdir(tmp_path)
    capsys.readouterr()
    assert cli.main(["backup", str(dest), "--runs-dir", str(workspace.runs)]) == 0
    assert "backup: 0 files sent (0 B), 4 unchanged not sent" in capsys.readouterr().out
