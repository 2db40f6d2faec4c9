import os
import sys
from pathlib import Path

import pytest
from paths import FIXTURES, REPO


# the children the tests spawn import `workloads` from this checkout
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))


@pytest.fixture
def runs_dir(tmp_path, monkeypatch):
    path = tmp_path / "runs"
    monkeypatch.setenv("CARDBENCH_RUNS_DIR", str(path))
    return path
