"""Helpers the backup tests import (conftest.py holds only fixtures: a module named conftest is not unique)."""

import os
import subprocess
import sys
from pathlib import Path


def sha256sum_check(folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["sha256sum", "-c", "--strict", "MANIFEST.sha256"], cwd=folder, capture_output=True, text=True)


def kill_mid_copy(dest: str, runs: Path, cwd: Path) -> int:
    """Run a backup in a child that SIGKILLs itself once the first bytes are sent (the instance going away):
    no cleanup of any kind runs. Returns its exit status."""
    code = ("import os, signal, sys; from pathlib import Path\n"
            "from tui.backup.engine import run_backup\nfrom tui.backup.sources import gather\n"
            "def die(phase, done, total):\n    if done: os.kill(os.getpid(), signal.SIGKILL)\n"
            f"run_backup({dest!r}, gather(Path({str(runs)!r})), progress=die)\n")
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=os.environ, capture_output=True).returncode
