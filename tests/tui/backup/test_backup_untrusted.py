"""A backup of a tree cardbench did not write all of: links out of it, secrets' modes, names that are not UTF-8
or hold a newline, files that vanish mid-backup, and a destination inside what it saves (issue 21, 5-8)."""

import json
import os
import re
import stat
import subprocess
from pathlib import Path

import pytest

from tui import cli
from tui.backup import engine, manifest

RUN = "runs/20261203-070000-resnet50"


def _latest(dest: Path) -> Path:
    return dest / (dest / "LATEST").read_text().strip()


def test_links_out_of_the_runs_dir_are_not_followed_and_are_named(workspace, tmp_path, capsys):
    secret = tmp_path / "outside" / "credentials"
    secret.parent.mkdir()
    secret.write_text("aws_secret_access_key = planted-secret-value\n")
    run = workspace.runs / "20261203-070000-resnet50"
    (run / "shadow").symlink_to("/etc/shadow")
    (run / "creds").symlink_to(secret)
    (run / "elsewhere").symlink_to(secret.parent, target_is_directory=True)
    dest = tmp_path / "backup"
    assert cli.main(workspace.argv(str(dest))) == 0
    out, err = capsys.readouterr()
    for name, target in (("shadow", "/etc/shadow"), ("creds", str(secret)), ("elsewhere", str(secret.parent))):
        assert f"backup: left out {run / name}: a symbolic link (to {target}), not followed" in err
    # and again in the summary, which a log or a cron mail may hold alone
    assert (f"backup: 3 symbolic links not followed, not in this backup: {run / 'elsewhere'}, {run / 'creds'}, "
            f"{run / 'shadow'}\n") in out
    snapshot = _latest(dest)
    held = b"".join(p.read_bytes() for p in snapshot.rglob("*") if p.is_file())
    assert b"planted-secret-value" not in held and b"root:" not in held
    assert not any(p.is_symlink() for p in snapshot.rglob("*"))
    assert sorted(manifest.parse_manifest((snapshot / "MANIFEST.sha256").read_bytes())) == sorted(
        [f"{RUN}/config.json", f"{RUN}/events.jsonl", f"{RUN}/run.log",
         "checkpoints" + str(workspace.checkpoint.resolve()), "reports" + str(workspace.report.resolve())])


def _back_up_under_umask_022(workspace, dest: Path) -> Path:
    """The umask most systems run with, so that a mode seen in the backup is the backup's doing; the snapshot."""
    old = os.umask(0o022)
    try:
        assert cli.main(workspace.argv(str(dest))) == 0
    finally:
        os.umask(old)
    return _latest(dest)


def test_each_file_keeps_its_mode_and_a_private_source_makes_the_backup_0700(workspace, tmp_path, capsys):
    env = workspace.runs / "20261203-070000-resnet50" / ".env"
    env.write_text("HF_TOKEN=hf_abcdefghijkl\n")
    env.chmod(0o600)
    script = workspace.runs / "20261203-070000-resnet50" / "rerun.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    dest = tmp_path / "backup"
    snapshot = _back_up_under_umask_022(workspace, dest)
    assert stat.S_IMODE((snapshot / RUN / ".env").stat().st_mode) == 0o600
    assert stat.S_IMODE((snapshot / RUN / "rerun.sh").stat().st_mode) == 0o755
    assert stat.S_IMODE(snapshot.stat().st_mode) == 0o700   # others cannot even list it
    env.unlink()
    capsys.readouterr()
    assert cli.main(workspace.argv(str(dest))) == 0
    assert stat.S_IMODE(_latest(dest).stat().st_mode) == 0o755   # nothing private: readable as before


def test_names_that_are_not_utf8_or_hold_a_newline_are_kept_and_sha256sum_checks_them(workspace, tmp_path, capsys):
    run = os.fsencode(workspace.runs / "20261203-070000-resnet50")
    odd = [b"latin1-caf\xe9.log", b"two\nlines.txt", b"back\\slash.txt", b"cr\rname.txt"]
    for name in odd:
        with open(run + b"/" + name, "wb") as f:
            f.write(name * 3)
    dest = tmp_path / "backup"
    assert cli.main(workspace.argv(str(dest))) == 0
    out, err = capsys.readouterr()
    assert "backup: 9 files sent" in out and "Traceback" not in err
    snapshot = _latest(dest)
    for name in odd:
        with open(os.fsencode(snapshot / RUN) + b"/" + name, "rb") as f:
            assert f.read() == name * 3
    text = (snapshot / "MANIFEST.sha256").read_bytes()
    assert b"/latin1-caf\xe9.log\n" in text   # the bytes on disk, not re-encoded
    assert sum(line.startswith(b"\\") for line in text.split(b"\n")) == 3   # the newline, backslash and CR names
    restored = tmp_path / "restored"
    restored.mkdir()
    subprocess.run(["cp", "-a", f"{snapshot}/.", str(restored)], check=True)
    checked = subprocess.run(["sha256sum", "-c", "--strict", "MANIFEST.sha256"], cwd=restored, capture_output=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count(b": OK") == 9
    capsys.readouterr()
    assert cli.main(workspace.argv(str(dest))) == 0   # the index reads the names back: nothing sent again
    assert "backup: 0 files sent" in capsys.readouterr().out


def test_a_file_that_vanishes_mid_backup_is_noted_and_the_rest_is_backed_up(workspace, tmp_path, capsys,
                                                                           monkeypatch):
    live = workspace.runs / "20261203-070000-resnet50" / "live.json"
    live.write_text("{}")
    gather = engine.sources_for

    def then_the_run_removes_it(*args, **kwargs):
        found = gather(*args, **kwargs)
        live.unlink()   # the live run's writer, between the listing and the copy
        return found

    monkeypatch.setattr(engine, "sources_for", then_the_run_removes_it)
    dest = tmp_path / "backup"
    assert cli.main(workspace.argv(str(dest))) == 0
    out = capsys.readouterr().out
    assert f"backup: {live} went away before it was copied (a live run's file); not in this backup" in out
    assert "backup: 5 files sent" in out
    assert f"{RUN}/live.json" not in manifest.parse_manifest((_latest(dest) / "MANIFEST.sha256").read_bytes())


def test_a_dest_in_or_around_the_runs_dir_is_refused_before_anything_is_written(workspace, tmp_path, capsys):
    before = sorted(str(p) for p in workspace.root.rglob("*"))
    for dest, said in ((workspace.runs, "is inside the runs dir"), (workspace.runs / "backups", "is inside the runs dir"),
                       (workspace.root, "holds the runs dir")):
        assert cli.main(workspace.argv(str(dest))) == 2
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1 and err.startswith("cardbench backup: DEST ")
    assert sorted(str(p) for p in workspace.root.rglob("*")) == before


def test_a_remote_leaves_out_a_name_it_cannot_hold_and_says_so(workspace, webdav, tmp_path, capsys):
    remote, served = webdav
    run = os.fsencode(workspace.runs / "20261203-070000-resnet50")
    with open(run + b"/caf\xe9.log", "wb") as f:
        f.write(b"x")
    assert cli.main(workspace.argv(f"{remote}:bucket/trial")) == 0
    out, err = capsys.readouterr()
    assert "caf\\xe9.log: its name is not UTF-8, which an rclone remote cannot hold" in err
    assert "backup: 5 files sent" in out


def _secret_folder(tmp_path: Path) -> Path:
    """A folder outside the sources holding what a planted link would reach: names a run also has."""
    outside = tmp_path / "outside"
    outside.mkdir()
    for name in ("credentials", "events.jsonl"):
        (outside / name).write_text("aws_secret_access_key = planted-secret-value\n")
    return outside


def _held(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())


@pytest.mark.timeout(120)   # the old code blocked for ever on the FIFO
@pytest.mark.parametrize("where", ["folder", "webdav"])
def test_a_file_or_folder_swapped_for_a_link_or_a_fifo_after_the_listing_is_not_read(workspace, tmp_path, capsys,
                                                                                      monkeypatch, request, where):
    outside = _secret_folder(tmp_path)
    run = workspace.runs / "20261203-070000-resnet50"
    second = workspace.runs / "20261204-080000-generate"
    second.mkdir()
    (second / "events.jsonl").write_text('{"type": "start"}\n')
    gather = engine.sources_for

    def then_someone_swaps_them(*args, **kwargs):
        found = gather(*args, **kwargs)
        (run / "run.log").unlink()
        (run / "run.log").symlink_to(outside / "credentials")
        (run / "events.jsonl").unlink()
        os.mkfifo(run / "events.jsonl")   # no writer ever comes: an open that waits for one never returns
        second.rename(tmp_path / "moved")
        second.symlink_to(outside, target_is_directory=True)   # the run's folder now leads out of the tree
        return found

    monkeypatch.setattr(engine, "sources_for", then_someone_swaps_them)
    if where == "folder":
        dest, held = str(tmp_path / "backup"), tmp_path / "backup"
    else:
        remote, held = request.getfixturevalue("webdav")
        dest = f"{remote}:bucket/trial"
    assert cli.main(workspace.argv(dest)) == 0
    out = capsys.readouterr().out
    assert (f"backup: {run / 'run.log'} became a symbolic link after it was listed (not followed); "
            "not in this backup") in out
    assert (f"backup: {run / 'events.jsonl'} is no longer a regular file (a FIFO or a device since it was listed; "
            "not read); not in this backup") in out
    assert (f"backup: {second / 'events.jsonl'} lies behind a symbolic link since it was listed (a folder above it "
            "was swapped; not followed); not in this backup") in out
    assert "backup: 3 files sent" in out   # config.json, the checkpoint and the report bundle
    assert b"planted-secret-value" not in _held(held)


def test_a_remote_backup_follows_no_link_either_and_names_it_without_its_escapes(workspace, remote, tmp_path, capsys):
    remote, served = remote
    outside = _secret_folder(tmp_path)
    run = workspace.runs / "20261203-070000-resnet50"
    (run / "shadow").symlink_to("/etc/shadow")
    (run / "creds\x1b]0;owned\x07").symlink_to(outside / "credentials")
    (run / "elsewhere").symlink_to(outside, target_is_directory=True)
    assert cli.main(workspace.argv(f"{remote}:bucket/trial")) == 0
    out, err = capsys.readouterr()
    assert f"backup: left out {run / 'shadow'}: a symbolic link (to /etc/shadow), not followed" in err
    assert f"backup: left out {run / 'creds'}: a symbolic link (to {outside / 'credentials'}), not followed" in err
    assert f"backup: left out {run / 'elsewhere'}: a symbolic link (to {outside}), not followed" in err
    assert "\x1b" not in err + out and "\x07" not in err + out
    assert "backup: 5 files sent" in out
    assert f"backup: 3 symbolic links not followed, not in this backup: {run / 'elsewhere'}, {run / 'creds'}, " in out
    held = _held(served)
    assert b"planted-secret-value" not in held and b"root:" not in held


def test_a_chmod_alone_reaches_the_next_backup(workspace, tmp_path, capsys):
    """A chmod changes no size and no time: the quick check alone would hard-link the old, wider copy."""
    env = workspace.runs / "20261203-070000-resnet50" / ".env"
    env.write_text("HF_TOKEN=hf_abcdefghijkl\n")
    env.chmod(0o644)
    dest = tmp_path / "backup"
    assert cli.main(workspace.argv(str(dest))) == 0
    env.chmod(0o600)   # the user saw it was world-readable
    capsys.readouterr()
    assert cli.main(workspace.argv(str(dest))) == 0
    assert "backup: 1 file sent (" in capsys.readouterr().out
    snapshot = _latest(dest)
    assert stat.S_IMODE((snapshot / RUN / ".env").stat().st_mode) == 0o600
    assert stat.S_IMODE(snapshot.stat().st_mode) == 0o700


def test_a_private_folder_makes_every_folder_of_the_backup_0700(workspace, tmp_path, capsys):
    """Files 0644 in a 0700 folder are private all the same; a restore with `cp -a` keeps the folders closed."""
    run = workspace.runs / "20261203-070000-resnet50"
    run.chmod(0o700)
    snapshot = _back_up_under_umask_022(workspace, tmp_path / "backup")
    folders = [snapshot, *(p for p in snapshot.rglob("*") if p.is_dir())]
    assert len(folders) > 3 and {stat.S_IMODE(p.stat().st_mode) for p in folders} == {0o700}
    assert stat.S_IMODE((snapshot / RUN / "run.log").stat().st_mode) == 0o644


def test_a_source_inside_dest_is_refused_before_anything_is_written(workspace, tmp_path, capsys):
    dest = tmp_path / "backup"
    assert cli.main(workspace.argv(str(dest))) == 0
    notes = dest / "notes"
    notes.mkdir()
    (notes / "todo.txt").write_text("back this up\n")
    before = sorted((str(p), p.stat().st_mtime_ns) for p in dest.rglob("*"))
    capsys.readouterr()
    assert cli.main(workspace.argv(str(dest), "--include", str(notes))) == 2
    assert capsys.readouterr().err == (f"cardbench backup: DEST {dest} holds --include {notes}: the backup would "
                                       "leave it out; choose a folder beside it\n")
    ckpt = workspace.checkpoint.parent   # the folder a run names with --checkpoint
    assert cli.main(workspace.argv(str(ckpt))) == 2
    assert capsys.readouterr().err == (f"cardbench backup: DEST {ckpt} holds the --checkpoint folder of run "
                                       f"20261203-070000-resnet50, {ckpt}: the backup would leave it out; choose a "
                                       "folder beside it\n")
    assert sorted((str(p), p.stat().st_mtime_ns) for p in dest.rglob("*")) == before
    assert sorted(p.name for p in ckpt.iterdir()) == ["resnet50-last.pt", "resnet50-last.pt.123.partial",
                                                      "resnet50.lock"]


def test_a_broken_trial_config_is_one_line_whether_or_not_the_backup_needs_it(workspace, tmp_path, capsys):
    config = tmp_path / "config.json"   # $CARDBENCH_CONFIG in the workspace
    config.write_text('{"trial": {"backup_dest": "/mnt/nas/trial"')
    assert cli.main(workspace.argv()) == 2   # the DEST is in it
    err = capsys.readouterr().err   # the reason is tui.trial.config's own words, naming the file
    assert err.startswith("cardbench backup: no DEST given, and the kept one cannot be read: ")
    assert str(config) in err and err.count("\n") == 1
    dest = tmp_path / "backup"
    assert cli.main(workspace.argv(str(dest))) == 0   # it needs nothing from it: a warning, and the backup
    out, err = capsys.readouterr()
    assert err.startswith("cardbench backup: warning: the trial settings cannot be read (")
    assert err.endswith("); backing up to the DEST given\n") and str(config) in err and err.count("\n") == 1
    assert "backup: 5 files sent" in out and (dest / "LATEST").is_file()


def _env_file(workspace, mode: int) -> Path:
    """A run's `.env` holding a token, with ``mode``."""
    env = workspace.runs / "20261203-070000-resnet50" / ".env"
    env.write_text("HF_TOKEN=hf_abcdefghijkl\n")
    env.chmod(mode)
    return env


def _record_requests(monkeypatch, tmp_path) -> Path:
    """Every rclone started from here on writes the requests it sends, headers only and the key redacted, to the
    file returned (its stderr keeps the two lines that say -vv was turned on)."""
    log = tmp_path / "requests.log"
    monkeypatch.setenv("RCLONE_DUMP", "headers")
    monkeypatch.setenv("RCLONE_LOG_FILE", str(log))
    return log


def _mode_sent(log: Path, rel: str) -> str:
    """The mode the last request writing ``rel`` handed to object storage ('100600'): what the backup asked the
    store to keep beside the object. What the test server then keeps is not asked: `rclone serve s3` holds metadata
    in memory and drops an object's when it judges the file changed since (it did once, under load, on CI), where
    object storage keeps it with the object."""
    modes = []
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            message = json.loads(line).get("msg", "")
        except ValueError:
            message = line
        request, _, headers = message.partition("\r\n")
        method, _, target = request.partition(" ")
        if method == "PUT" and target.split("?")[0].endswith("/" + rel):
            found = re.search(r"^X-Amz-Meta-Mode: (\d+)\r?$", headers, re.MULTILINE | re.IGNORECASE)
            modes.append(found.group(1) if found else "none")
    assert modes, f"no request wrote {rel}"
    return modes[-1]


def test_a_private_remote_backup_restores_private_with_the_line_it_prints(workspace, remote, tmp_path, capsys,
                                                                          monkeypatch):
    """The restore line printed is what a user pastes, under the usual umask and a PATH that is not the venv's:
    a 0600 `.env` comes back 0600 and no folder of the restore is open to others. Object storage keeps the mode
    beside the file; WebDAV keeps none, and the restore's umask covers it."""
    remote, _ = remote
    _env_file(workspace, 0o600)
    dest = f"{remote}:bucket/trial"
    requests = _record_requests(monkeypatch, tmp_path)
    assert cli.main(workspace.argv(dest)) == 0
    said = capsys.readouterr().out.splitlines()[-1]
    assert said.startswith("backup: restore with: ")
    restored = tmp_path / "restored"
    old = os.umask(0o022)
    try:
        done = subprocess.run(["sh", "-c", said.removeprefix("backup: restore with: ").replace("DIR", str(restored))],
                              env={**os.environ, "PATH": "/usr/bin:/bin"}, capture_output=True, text=True)
    finally:
        os.umask(old)
    assert done.returncode == 0, done.stdout + done.stderr
    assert stat.S_IMODE((restored / RUN / ".env").stat().st_mode) == 0o600
    folders = [restored, *(p for p in restored.rglob("*") if p.is_dir())]
    assert {stat.S_IMODE(p.stat().st_mode) for p in folders} == {0o700}
    if remote == "obj":   # the mode itself goes to the store, not only the umask: a restore as root keeps it
        assert _mode_sent(requests, f"{RUN}/.env") == "100600"


def test_a_chmod_alone_reaches_the_next_backup_on_object_storage(workspace, s3, capsys, monkeypatch, tmp_path):
    """Object storage keeps the mode beside the file: a server-side copy of the unchanged object would keep the
    old, wider one, which `rclone copy -M` would then restore."""
    remote, _ = s3
    env = _env_file(workspace, 0o644)
    dest = f"{remote}:bucket/trial"
    requests = _record_requests(monkeypatch, tmp_path)
    assert cli.main(workspace.argv(dest)) == 0
    assert _mode_sent(requests, f"{RUN}/.env") == "100644"
    env.chmod(0o600)
    capsys.readouterr()
    assert cli.main(workspace.argv(dest)) == 0
    assert "backup: 1 file sent (" in capsys.readouterr().out
    assert _mode_sent(requests, f"{RUN}/.env") == "100600"
