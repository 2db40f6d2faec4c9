"""The UI process must not pay for torch, and the headless paths must not load textual."""
import subprocess
import sys

import pytest

CHECK = """
import sys, importlib
for name in {modules!r}:
    importlib.import_module(name)
heavy = sorted(m for m in ("torch", "textual", "torchvision") if m in sys.modules)
print(",".join(heavy))
"""


@pytest.mark.parametrize("modules", [
    ["tui"], ["workloads.protocol"], ["workloads.runner"], ["workloads.child.harness"],
    ["tui.runs", "tui.cli", "tui.run_command"], ["tui.headless", "tui.report"],
    ["tui.telemetry", "tui.doctor"], ["tui.history", "tui.launch"],
])
def test_light_modules_load_neither_torch_nor_textual(modules):
    out = subprocess.run([sys.executable, "-c", CHECK.format(modules=modules)],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"{modules} pulled in {out.stdout.strip()}"
