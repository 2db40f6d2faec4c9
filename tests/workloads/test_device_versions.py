"""The versions a run's start event names: torchvision's as the build says it, without importing torchvision."""
import json
import subprocess
import sys

import pytest
from paths import REPO

pytest.importorskip("torchvision")   # an image with torch alone: no version to name


def _python(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True).stdout


def test_torchvision_is_named_with_its_build_and_not_imported_by_a_run_that_does_not_use_it():
    """`import torchvision` loads its models and through them torch._dynamo: over a second of every generate, llm,
    microbench and opscan process, for one line of the start event."""
    named, imported = json.loads(_python(
        "import json, sys; from workloads.child import device; "
        "print(json.dumps([device.versions().get('torchvision'), sorted({'torchvision', 'torch._dynamo'} & "
        "set(sys.modules))]))"))
    assert named == _python("import torchvision; print(torchvision.__version__)").strip()   # '0.29.1+cu130'
    assert imported == []
