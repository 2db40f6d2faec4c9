"""resnet50's multi-node options (workloads/child/multinode.py): refused clashes are one line before anything runs."""

import argparse

import pytest

from workloads.child.harness import WorkloadError
from workloads.resnet50.options import build_parser, check_combinations


def _args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(list(argv))


@pytest.mark.parametrize("argv, said", [
    (("--nnodes", "2", "--node-rank", "0", "--master-addr", "127.0.0.1"), "--nnodes and --rdzv-endpoint need --gpus"),
    (("--gpus", "1", "--find-batch-size", "--nnodes", "2", "--node-rank", "1", "--master-addr", "10.0.0.1"),
     "--find-batch-size runs on one device"),
])
def test_multi_node_clashes_are_refused(argv, said):
    with pytest.raises(WorkloadError, match=said):
        check_combinations(_args(*argv))


def test_a_two_node_run_s_options_are_taken():
    args = _args("--gpus", "1", "--device", "cpu", "--nnodes", "2", "--node-rank", "1", "--master-addr", "127.0.0.1",
                 "--master-port", "29511")
    check_combinations(args)
    assert (args.nnodes, args.node_rank, args.master_addr, args.master_port) == (2, 1, "127.0.0.1", 29511)
