"""A backup of a tree cardbench did not write all of: links out of it, secrets' modes, names that are not UTF-8
or hold a newline, files that vanish mid-backup, and a destination inside what it saves (issue 21, 5-8)."""

import os
import stat
import subprocess
from pathlib import Path

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
    err = capsys.readouterr().err
    for name, target in (("shadow", "/etc/shadow"), ("creds", str(secret)), ("elsewhere", str(secret.parent))):
        assert f"backup: left out {run / name}: a symbolic link (to {target}), not followed" in err
    snapshot = _latest(dest)
    held = b"".join(p.read_bytes() for p in snapshot.rglob("*") if p.is_file())
    assert b"planted-secret-value" not in held and b"root:" not in held
    assert not any(p.is_symlink() for p in snapshot.rglob("*"))
    assert sorted(manifest.parse_manifest((snapshot / "MANIFEST.sha256").read_bytes())) == sorted(
        [f"{RUN}/config.json", f"{RUN}/events.jsonl", f"{RUN}/run.log",
         "checkpoints" + str(workspace.checkpoint.resolve()), "reports" + str(workspace.report.resolve())])


def test_each_file_keeps_its_mode_and_a_private_source_makes_the_backup_0700(workspace, tmp_path, capsys):
    env = workspace.runs / "20261203-070000-resnet50" / ".env"
    env.write_text("HF_TOKEN=hf_abcdefghijkl\n")
    env.chmod(0o600)
    script = workspace.runs / "20261203-070000-resnet50" / "rerun.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    dest = tmp_path / "backup"
    old = os.umask(0o022)
    try:
        assert cli.main(workspace.argv(str(dest))) == 0
    finally:
        os.umask(old)
    snapshot = _latest(dest)
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
