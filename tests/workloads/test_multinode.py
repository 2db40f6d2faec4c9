"""Multi-node options (workloads/child/multinode.py) and a data-parallel run across two "nodes" on 127.0.0.1."""
import argparse
import datetime
import os
import signal

import pytest

from two_nodes import left_behind, start_alone, start_nodes, tag, tagged  # noqa: F401 - tag is a fixture
from workloads import protocol
from workloads.child import multinode
from workloads.child.harness import WorkloadError

NODE = ["-m", "tests.children.ddp_node"]


def parse(*argv):
    parser = argparse.ArgumentParser()
    multinode.add_multinode_arguments(parser)
    args = parser.parse_args(list(argv))
    multinode.check(args)
    return args


def test_one_node_is_torchruns_standalone_rendezvous():
    args = parse()
    assert not multinode.is_multinode(args)
    assert multinode.torchrun_args(args) == ["--standalone", "--nnodes=1"]


def test_static_rendezvous_names_the_master_and_bounds_the_wait():
    args = parse("--nnodes", "2", "--node-rank", "1", "--master-addr", "10.1.2.3", "--dist-timeout", "60")
    assert multinode.torchrun_args(args) == ["--nnodes=2", "--node-rank=1", "--master-addr=10.1.2.3",
                                             "--master-port=29500", "--rdzv-conf=timeout=60"]
    assert multinode.worker_env(args) == {multinode.DIST_TIMEOUT_ENV: "60"}


def test_c10d_rendezvous_needs_no_node_rank():
    args = parse("--nnodes", "2", "--rdzv-endpoint", "head:29400")
    assert multinode.torchrun_args(args) == ["--nnodes=2", "--rdzv-backend=c10d", "--rdzv-endpoint=head:29400",
                                             "--rdzv-id=cardbench", "--rdzv-conf=join_timeout=300,timeout=300"]


@pytest.mark.parametrize("argv, said", [
    (["--nnodes", "2"], "needs --master-addr HOST"),
    (["--nnodes", "2", "--master-addr", "h"], "needs --node-rank R on every node"),
    (["--nnodes", "2", "--master-addr", "h", "--node-rank", "2"], "--node-rank 2 is not below --nnodes 2"),
    (["--node-rank", "1"], "--node-rank 1 with --nnodes 1"),
    (["--nnodes", "2", "--rdzv-endpoint", "h:1", "--node-rank", "0"], "--rdzv-endpoint replaces"),
    (["--nnodes", "2", "--rdzv-endpoint", "no-port"], "is not HOST:PORT"),
])
def test_combinations_no_rendezvous_can_use_are_refused(argv, said):
    with pytest.raises(WorkloadError) as caught:
        parse(*argv)
    assert said in caught.value.message and caught.value.hint


def test_a_bad_port_is_an_argument_error():
    with pytest.raises(SystemExit):
        parse("--master-port", "70000")


def test_workers_read_the_timeout_from_the_environment(monkeypatch):
    monkeypatch.setenv(multinode.DIST_TIMEOUT_ENV, "45")
    assert multinode.dist_timeout() == datetime.timedelta(seconds=45)
    monkeypatch.delenv(multinode.DIST_TIMEOUT_ENV)
    assert multinode.dist_timeout() is None  # torch's own default


def events(raw):
    return [protocol.parse_line(line) for line in raw.splitlines()]


def test_two_nodes_train_together_and_rank_0_writes_the_run(tag):
    nodes = start_nodes([*NODE, "--steps", "2"], tag)
    outputs = [node.communicate(timeout=180) for node in nodes]
    assert [node.returncode for node in nodes] == [0, 0], outputs[0][1].decode()[-2000:]
    first = events(outputs[0][0])
    assert [e.kind for e in first] == ["start", "step", "step", "result", "end"]
    assert first[0].config["world_size"] == 2 and first[1].throughput == 2.0  # the all_reduce spans both nodes
    second = events(outputs[1][0])
    assert [e.kind for e in second] == ["warning", "end"] and second[-1].status == "ok"
    assert second[0].code == "multinode_not_rank0" and "global rank 0, on another node" in second[0].message
    assert left_behind(tag) == []


def test_a_killed_launcher_takes_torchrun_and_its_ranks_with_it(tag):
    # kill -9 of the launcher alone (not its group) while the ranks are silent (no write to meet the broken pipe):
    # torchrun dies with it, and the ranks with torchrun
    proc = start_alone([*NODE, "--procs", "2", "--steps", "2", "--silent", "120"], tag)
    for line in proc.stdout:
        if protocol.parse_line(line).kind == "step":
            break
    assert len(tagged(tag)) >= 4  # the launcher, torchrun, two ranks
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert left_behind(tag) == []
