"""Fake management CLIs for tests: executables written into a tmp dir that is put on PATH.

`nvidia_smi_like(dir, name, gpus, ...)` writes an executable that behaves like
nvidia-smi's CSV query mode: it answers ``--query-gpu=a,b,c --format=...`` with
one row per GPU from ``gpus`` (dicts of field -> text; a field it knows but the
GPU lacks prints ``[N/A]``), refuses the fields in ``invalid`` the way
nvidia-smi does (exit 2, 'Field "x" is not a valid field to query.'), can hang
or fail, and answers ``-L``.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

# field names nvidia-smi accepts for the same column
ALIASES = {"clocks.sm": "clocks.current.sm", "clocks.mem": "clocks.current.memory",
           "clocks.gr": "clocks.current.graphics"}

_SCRIPT = r'''#!{python}
import json, sys, time
spec = json.load(open({spec!r}))
args = sys.argv[1:]
aliases = {aliases!r}
if spec.get("hang"):
    time.sleep(60)
if spec.get("fail"):
    sys.stderr.write(spec["fail"] + "\n")
    sys.exit(spec.get("code", 9))
if args == ["-L"]:
    for i, g in enumerate(spec["gpus"]):
        print("GPU %d: %s (UUID: %s)" % (i, g.get("name", "?"), g.get("uuid", "GPU-0")))
    sys.exit(0)
query = [a for a in args if a.startswith("--query-")]
if not query:
    print(spec.get("default", ""))
    sys.exit(0)
kind, _, fields = query[0].partition("=")
if kind == "--query-compute-apps":
    if spec.get("apps") is None:
        print('Field "gpu_bus_id" is not a valid field to query.')
        sys.exit(2)
    sys.stdout.write(spec["apps"])
    sys.exit(0)
fields = fields.split(",")
for f in fields:
    if f in spec.get("invalid", []):
        print('Field "%s" is not a valid field to query.' % f)
        print("Use 'nvidia-smi --help-query-gpu' for more info")
        sys.exit(2)
with open({log!r}, "a") as log:
    log.write(",".join(fields) + "\n")
for g in spec["gpus"]:
    print(", ".join(g.get(f, g.get(aliases.get(f, f), "[N/A]")) for f in fields))
'''


def write_cli(directory: Path, name: str, spec: dict[str, Any]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    spec_path = directory / f"{name}.spec.json"
    spec_path.write_text(json.dumps(spec))
    exe = directory / name
    exe.write_text(_SCRIPT.format(python=sys.executable, spec=str(spec_path), aliases=ALIASES,
                                  log=str(directory / f"{name}.queries.log")))
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return exe


def write_script(directory: Path, name: str, body: str) -> Path:
    """A plain shell-script executable (for the JSON tools: ``cat`` a fixture, hang, fail)."""
    directory.mkdir(parents=True, exist_ok=True)
    exe = directory / name
    exe.write_text("#!/bin/sh\n" + body + "\n")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return exe


def only_on_path(monkeypatch: Any, directory: Path) -> None:
    """PATH = the fake dir plus the basic system dirs (so no real vendor tool is found)."""
    monkeypatch.setenv("PATH", os.pathsep.join([str(directory), "/usr/bin", "/bin"]))


def csv_fixture_gpus(text: str) -> list[dict[str, str]]:
    """A ``--format=csv`` capture with a header ('memory.used [MiB]') -> per-GPU field -> cell text."""
    lines = [line for line in text.splitlines() if line.strip()]
    header = [h.strip().split(" [")[0] for h in lines[0].split(",")]
    return [dict(zip(header, (c.strip() for c in row.split(",")))) for row in lines[1:]]
