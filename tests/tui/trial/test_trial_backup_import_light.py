"""`cardbench` builds every command's parser at start: importing `cardbench trial` and `cardbench backup` loads
neither Textual nor torch, and the time-left line `cardbench devices` and the export print loads neither."""

import subprocess
import sys

from paths import REPO

CODE = """
import sys
import tui.cli.trial, tui.cli.backup, tui.trial.clock
from tui import cli
cli.COMMAND_MODULES.update(trial="tui.cli.trial", backup="tui.cli.backup")
cli.build_parser()
heavy = sorted(m for m in ("textual", "torch", "rich") if m in sys.modules)
print(",".join(heavy))
"""


def test_the_commands_import_light():
    done = subprocess.run([sys.executable, "-c", CODE], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""
