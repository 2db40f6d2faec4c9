"""Collectives across two "nodes" on 127.0.0.1 when one dies (killed, or frozen), or when the process that started
torchrun is killed: the survivor ends by itself with one line within its timeout, and no process is left behind."""
import os
import signal
import time

import psutil
import pytest

from paths import CHILDREN
from two_nodes import kill_tree, left_behind, start_alone, start_nodes, tag, tagged  # noqa: F401 - tag is a fixture

NODE = [str(CHILDREN / "collective_node.py"), "--nproc", "1"]


@pytest.mark.parametrize("dies", [1, 0])
def test_when_a_node_dies_the_other_ends_with_one_line(tag, dies):
    sweep = ["--coll-sizes", ",".join(["1K"] + ["4M"] * 12), "--dist-timeout", "30", "--coll-timeout", "120"]
    nodes = start_nodes([*NODE, *sweep], tag)
    for line in nodes[0].stderr:  # node 0 is mid-sweep: it has measured its first row
        if line.startswith(b"[rank 0]"):
            break
    assert kill_tree(nodes[dies]) >= 3  # the node's command, its torchrun, its rank
    killed_at = time.monotonic()
    survivor = nodes[1 - dies]
    out, _ = survivor.communicate(timeout=90)
    took = time.monotonic() - killed_at
    assert survivor.returncode == 1
    said = out.decode().strip()
    assert said.startswith("error: collectives failed") and "\n" not in said, said
    assert "another node or rank may have stopped" in said
    assert took < 60
    assert left_behind(tag) == []


def test_a_frozen_node_ends_the_other_at_the_dist_timeout(tag):
    # a machine that stops answering closes no socket: only the collective's own timeout can end the wait
    sweep = ["--coll-sizes", ",".join(["1K"] + ["4M"] * 12), "--dist-timeout", "8", "--coll-timeout", "120"]
    nodes = start_nodes([*NODE, *sweep], tag)
    for line in nodes[0].stderr:
        if line.startswith(b"[rank 0]"):
            break
    frozen = psutil.Process(nodes[1].pid)
    for p in [frozen, *frozen.children(recursive=True)]:
        p.suspend()
    frozen_at = time.monotonic()
    out, _ = nodes[0].communicate(timeout=90)
    took = time.monotonic() - frozen_at
    said = out.decode().strip()
    assert nodes[0].returncode == 1 and said.startswith("error: collectives failed") and "\n" not in said, said
    assert 5 < took < 45, took  # the 8 s timeout, not the 120 s sweep limit
    kill_tree(nodes[1])
    assert left_behind(tag) == []


def test_a_killed_caller_takes_torchrun_and_its_ranks_with_it(tag):
    # the microbench child killed with -9 mid-sweep (its runner's last resort): nothing it started lives on
    proc = start_alone([*NODE[:1], "--nproc", "2", "--coll-sizes", ",".join(["4M"] * 40)], tag)
    for line in proc.stderr:
        if line.startswith(b"[rank 0]"):
            break
    assert len(tagged(tag)) >= 4  # the caller, torchrun, two ranks
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert left_behind(tag) == []
