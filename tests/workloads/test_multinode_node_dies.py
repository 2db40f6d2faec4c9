"""A data-parallel run across two "nodes" on 127.0.0.1 when one of them dies: the other run ends by itself, with one
error event, within its timeout, and no process is left behind."""
import time

import pytest

from two_nodes import kill_tree, left_behind, start_nodes, tag  # noqa: F401 - tag is a fixture
from workloads import protocol

NODE = ["-m", "tests.children.ddp_node"]


@pytest.mark.parametrize("dies", [1, 0])
def test_when_a_node_dies_the_other_run_fails_with_one_error(tag, dies):
    nodes = start_nodes([*NODE, "--steps", "1000", "--delay", "0.05", "--dist-timeout", "30"], tag)
    for line in nodes[0].stdout:  # both nodes are training: rank 0 has all-reduced with rank 1
        if protocol.parse_line(line).kind == "step":
            break
    assert kill_tree(nodes[dies]) >= 3
    killed_at = time.monotonic()
    survivor = nodes[1 - dies]
    out, _ = survivor.communicate(timeout=90)
    assert time.monotonic() - killed_at < 60
    assert survivor.returncode == 1
    said = [protocol.parse_line(line) for line in out.splitlines()]
    errors = [e for e in said if e.kind == "error"]
    assert len(errors) == 1 and said[-1].kind == "end" and said[-1].status == "failed"
    assert "\n" not in errors[0].message
    assert "another node may have stopped" in errors[0].hint
    assert "This is typically" not in errors[0].message  # the backend's boilerplate stays in the run log
    if dies == 0:  # node 1's launcher relays no rank 0: it quotes its own rank's error
        assert errors[0].message.startswith("a worker process failed (torchrun exit code 1): rank 1: ")
    assert left_behind(tag) == []
