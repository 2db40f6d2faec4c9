import os

import pytest
from paths import REPO


# the children the tests spawn import `workloads` from this checkout
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))


@pytest.fixture(autouse=True)
def _no_user_config(tmp_path_factory, monkeypatch):
    """The developer's own ~/.config/cardbench (a trial, a price) stays out of every test and snapshot."""
    monkeypatch.setenv("CARDBENCH_CONFIG", str(tmp_path_factory.mktemp("config") / "config.json"))


@pytest.fixture
def runs_dir(tmp_path, monkeypatch):
    path = tmp_path / "runs"
    monkeypatch.setenv("CARDBENCH_RUNS_DIR", str(path))
    return path
