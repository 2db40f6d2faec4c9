"""Collectives across two "nodes" on 127.0.0.1 (gloo, one rank each): figures on node 0, and a node that never comes
(test_collectives_node_dies.py: a node that dies). Each case ends by itself and leaves no process behind."""
import json
import time

import pytest

from paths import CHILDREN
from two_nodes import kill_tree, left_behind, start_nodes, tag  # noqa: F401 - tag is a fixture

NODE = [str(CHILDREN / "collective_node.py"), "--nproc", "1"]


@pytest.mark.parametrize("rendezvous", ["static", "c10d"])
def test_two_nodes_measure_together_and_node_0_has_the_figures(tag, rendezvous):
    nodes = start_nodes([*NODE, "--coll-sizes", "1K,64K", "--coll-ops", "all_reduce,all_gather"], tag,
                        rendezvous=rendezvous)
    outputs = [node.communicate(timeout=180) for node in nodes]
    assert [node.returncode for node in nodes] == [0, 0], outputs[1][1].decode()[-2000:]
    if rendezvous == "c10d" and json.loads(outputs[0][0]) == []:
        outputs.reverse()  # c10d numbers the nodes as they join: the second started may be node 0
    rows = json.loads(outputs[0][0])
    assert [(r["op"], r["bytes"], r["ranks"], r["correct"]) for r in rows] == [
        ("all_reduce", 1024, 2, True), ("all_reduce", 65536, 2, True),
        ("all_gather", 1024, 2, True), ("all_gather", 65536, 2, True)]
    assert json.loads(outputs[1][0]) == []  # node 1 lent its rank: node 0's run records the figures
    assert "node 0's run records the figures" in outputs[1][1].decode()
    assert left_behind(tag) == []


def test_a_node_that_never_joins_ends_the_wait_at_the_timeout(tag):
    port_and_all = start_nodes([*NODE, "--coll-sizes", "1K", "--dist-timeout", "5"], tag)
    kill_tree(port_and_all[1])  # node 1 never comes
    started = time.monotonic()
    out, _ = port_and_all[0].communicate(timeout=120)
    assert port_and_all[0].returncode == 1
    said = out.decode().strip()
    assert said.startswith("error: collectives could not start the ranks: ") and "\n" not in said, said
    assert "1/2 clients joined" in said  # torchrun's own words: who is missing
    assert time.monotonic() - started < 60
    assert left_behind(tag) == []
