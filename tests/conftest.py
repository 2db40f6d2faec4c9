import os

import pytest
from paths import REPO


# the children the tests spawn import `workloads` from this checkout
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))


@pytest.fixture(autouse=True)
def _no_user_config(tmp_path_factory, monkeypatch):
    """The developer's own ~/.config/cardbench (a trial, a price) stays out of every test and snapshot."""
    own = tmp_path_factory.mktemp("config")
    monkeypatch.setenv("CARDBENCH_CONFIG", str(own / "config.json"))
    # an opscan a test runs keeps its state in a folder of its own, not in ~/.cache/cardbench/opscan where the
    # developer's scans are and where two scans of the same plan on two pytest-xdist workers would share files
    monkeypatch.setenv("CARDBENCH_OPSCAN_STATE", str(own / "opscan"))


@pytest.fixture
def runs_dir(tmp_path, monkeypatch):
    path = tmp_path / "runs"
    monkeypatch.setenv("CARDBENCH_RUNS_DIR", str(path))
    return path
