import os
import threading

import pytest
from paths import REPO

from tui.telemetry import torch_probe


# the children the tests spawn import `workloads` from this checkout
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
# a result figure no record declares fails its test (a real run keeps it and warns): `workloads.result_record`
os.environ["CARDBENCH_STRICT_RESULTS"] = "1"
# the suite's own parallel workers are "other processes" to every run it starts: a run is judged shared
# (tui.telemetry.sharing) only where a test asks for it (tests/tui/telemetry/test_sharing.py sets its own)
os.environ["CARDBENCH_SHARED_CORES"] = "1000"


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

# The files that take longest (core-seconds summed over their tests, `pytest --durations=0 -n 3` on the 2-core VM),
# handed to the workers first: pytest-xdist's loadfile scheduler gives out files in collection order, and one of
# these left for last ran alone on one worker for its whole length while the other sat idle (the suite's last 3 %
# took a minute). Any file not named keeps its place after them.
LONGEST_FIRST = (
    "tests/workloads/resnet50/test_resnet50.py",                   # 83 s
    "tests/tui/test_app.py",                                       # 83 s
    "tests/test_gpu_acceptance_cpu.py",                            # 65 s
    "tests/workloads/opscan/test_opscan.py",                       # 49 s
    "tests/workloads/finetune/test_finetune_run.py",               # 44 s
    "tests/tui/report/test_report.py",                             # 41 s
    "tests/workloads/microbench/test_collectives_node_dies.py",    # 37 s
    "tests/workloads/generate/test_generate_bad_input.py",         # 37 s
    "tests/tui/backup/test_backup_remote.py",                      # 35 s
    "tests/workloads/microbench/test_collectives_multinode.py",    # 31 s
    "tests/workloads/command/test_command_run.py",                 # 30 s
    "tests/workloads/generate/test_generate.py",                   # 30 s
    "tests/workloads/llm/test_llm_workload.py",                    # 28 s
    "tests/tui/backup/test_backup_untrusted.py",                   # 24 s
    "tests/workloads/test_multinode_node_dies.py",                 # 21 s
    "tests/tui/headless/test_headless.py",                         # 19 s
)


def pytest_collection_modifyitems(config, items):
    rank = {path: i for i, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))   # stable: the rest in order


_PROBED: dict[tuple, tuple] = {}
_PROBING = threading.Lock()
_real_probe_run = torch_probe.TorchProbe._run


def _probe_once_per_worker(self) -> None:
    """The sampler's torch probe, run for real once per worker and its answer handed to every later sampler: each
    in-process `cardbench run` of the suite started one (a torch import, ~1.6 s of a core, 35 of them), and its
    answer is a fact of this machine, the same each time. A probe of another module or python runs as it is."""
    if self.module != "workloads.child.probe" or self.python is not None:
        return _real_probe_run(self)
    # what the answer depends on: the arguments and what the child sees of the devices and the code
    key = (self.args, *(os.environ.get(name) for name in (
        "PYTHONPATH", "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES")))
    with _PROBING:
        if key not in _PROBED:
            _real_probe_run(self)
            if self.result is not None:   # a probe cut short at load is not this machine's answer: not kept
                _PROBED[key] = (self.result, self.error)
            return
    self.result, self.error = _PROBED[key]
    self._done.set()


@pytest.fixture(autouse=True)
def _one_torch_probe(monkeypatch):
    monkeypatch.setattr(torch_probe.TorchProbe, "_run", _probe_once_per_worker)
