"""A torchrun rank leaves without the interpreter's teardown, which can abort a gloo rank after its last step."""

import subprocess
import sys

import pytest

from paths import REPO

SCRIPT = """
import atexit, sys
sys.path.insert(0, {repo!r})
from workloads.child.data_parallel import exit_process
atexit.register(lambda: print("teardown ran"))
sys.stdout.write("last event, not yet flushed")
exit_process(3)
"""


@pytest.mark.parametrize("worker, teardown", [(True, False), (False, True)])
def test_a_rank_exits_with_its_code_and_its_output_but_no_teardown(worker, teardown):
    env = {"LOCAL_RANK": "1", "RANK": "1", "WORLD_SIZE": "2"} if worker else {}
    out = subprocess.run([sys.executable, "-c", SCRIPT.format(repo=str(REPO))], capture_output=True, text=True, timeout=60,
                         env={"PATH": "/usr/bin:/bin", **env})
    assert out.returncode == 3, out.stderr
    assert out.stdout.startswith("last event, not yet flushed")  # flushed before leaving
    assert ("teardown ran" in out.stdout) is teardown
