"""The collectives: nccl-tests' bandwidth definitions, the options, and a two-process gloo sweep on the CPU.

The bus-bandwidth factors are nccl-tests' own (NVIDIA/nccl-tests, doc/PERFORMANCE.md at commit 03a204a1,
"Summary": AllReduce 2*(n-1)/n, ReduceScatter (n-1)/n, AllGather (n-1)/n, Broadcast 1; algbw = S/t with S
the whole array's size in bytes).
"""
import argparse
import json

import pytest

from workloads.child.harness import WorkloadError
from workloads.microbench import collective_worker, collectives


def test_bus_factors_are_nccl_tests_definitions():
    for n in (2, 3, 4, 8, 16):
        assert collectives.bus_factor("all_reduce", n) == pytest.approx(2 * (n - 1) / n)
        assert collectives.bus_factor("all_gather", n) == pytest.approx((n - 1) / n)
        assert collectives.bus_factor("reduce_scatter", n) == pytest.approx((n - 1) / n)
        assert collectives.bus_factor("broadcast", n) == 1.0
    with pytest.raises(ValueError):
        collectives.bus_factor("alltoall", 2)


def test_bandwidths_match_a_published_all_reduce_perf_line():
    # all_reduce_perf -b 512M -e 8G -f 2 -g 1 under `mpirun -np 16` (two nodes of 8 GPUs), as published in a
    # cloud provider's guide "Running parallel tasks in a GPU cluster": size 1073741824 B, out-of-place time
    # 16512 us, algbw 65.03 GB/s, busbw 121.92 GB/s (the time is printed rounded to the microsecond: 0.01 of slack)
    algbw, busbw = collectives.bandwidths("all_reduce", 1073741824, 16512e-6, 16)
    assert algbw == pytest.approx(65.03, abs=0.01)
    assert busbw == pytest.approx(121.92, abs=0.01)


def test_a_row_carries_the_interface_keys_with_the_figures_they_name():
    r = collectives.row("all_gather", 4 * 2 ** 20, 4, 0.002, True)
    assert set(r) == {"op", "bytes", "ranks", "time_us", "algbw_gbps", "busbw_gbps", "correct"}
    assert r["time_us"] == pytest.approx(2000.0)
    assert r["algbw_gbps"] == pytest.approx(4 * 2 ** 20 / 0.002 / 1e9)
    assert r["busbw_gbps"] == pytest.approx(r["algbw_gbps"] * 3 / 4)


def test_the_size_is_the_whole_array_as_nccl_tests_counts_it():
    # all_gather's S is the gathered output, reduce_scatter's the scattered input: a rank holds S/n of it
    assert collective_worker.elements("all_gather", 4096, 4) == (256, 1024)
    assert collective_worker.elements("reduce_scatter", 4096, 4) == (1024, 256)
    assert collective_worker.elements("all_reduce", 4096, 4) == (1024, 1024)
    assert collective_worker.elements("broadcast", 4096, 4) == (1024, 1024)
    # a size that does not split evenly is measured at the largest size that does
    assert collective_worker.elements("all_gather", 4 * 10, 4) == (2, 8)


def parse(*argv):
    parser = argparse.ArgumentParser()
    collectives.add_collective_arguments(parser)
    return parser.parse_args(list(argv))


def test_options_become_measure_collectives_arguments():
    kwargs = collectives.collective_kwargs(parse("--coll-ops", "all_reduce,broadcast", "--coll-sizes", "1K,4M,1G",
                                                 "--nproc", "2", "--coll-timeout", "90"))
    assert kwargs == {"sizes": [1024, 4 * 2 ** 20, 2 ** 30], "ops": ["all_reduce", "broadcast"], "nproc": 2,
                      "timeout_s": 90.0, "extra_torchrun_args": []}
    assert collectives.collective_kwargs(parse())["ops"] == list(collectives.OPS)


def test_multinode_options_reach_torchrun():
    kwargs = collectives.collective_kwargs(parse("--nnodes", "2", "--node-rank", "1", "--master-addr", "10.0.0.1",
                                                 "--master-port", "29400", "--dist-timeout", "45"))
    assert kwargs["extra_torchrun_args"] == ["--nnodes=2", "--node-rank=1", "--master-addr=10.0.0.1",
                                             "--master-port=29400", "--rdzv-conf=timeout=45"]


@pytest.mark.parametrize("argv, said", [
    (["--coll-ops", "all_reduce,alltoall"], "--coll-ops: unknown collective alltoall"),
    (["--coll-sizes", "1K,lots"], "--coll-sizes: 'LOTS' is not a size"),
    (["--coll-sizes", "2"], "below one float32 element"),
    (["--nnodes", "2"], "--nnodes 2 needs --master-addr"),
])
def test_bad_options_are_one_line(argv, said):
    with pytest.raises(WorkloadError) as caught:
        collectives.collective_kwargs(parse(*argv))
    assert said in caught.value.message and caught.value.hint


def test_one_rank_is_refused_with_a_hint():
    with pytest.raises(WorkloadError) as caught:
        collectives.measure_collectives("cpu", sizes=[1024], ops=["all_reduce"], nproc=1, timeout_s=30)
    assert "2 or more ranks" in caught.value.message and "--nproc 2" in caught.value.hint
    # a caller can ask first, to show the part as skipped on a one-device machine
    assert collectives.why_not("cpu", 1) == caught.value.message
    assert collectives.why_not("cpu", 2) is None
    assert collectives.why_not("cpu", 1, ["--nnodes=2", "--node-rank=0"]) is None  # one rank here, one there


def test_two_gloo_processes_report_figures_and_pass_the_check_and_a_run_keeps_the_rows(capfd, tmp_path, monkeypatch):
    # one 2-rank torchrun for both (its start-up is most of its ~15 s on a loaded 2-core VM): the figures and the
    # check, and, inside a run (CARDBENCH_RUN_DIR), every row kept in the run's directory
    monkeypatch.setenv("CARDBENCH_RUN_DIR", str(tmp_path))
    sizes = [1024, 65536]
    rows = collectives.measure_collectives("cpu", sizes=sizes, ops=list(collectives.OPS), nproc=2, timeout_s=180)
    assert [(r["op"], r["bytes"]) for r in rows] == [(op, s) for op in collectives.OPS for s in sizes]
    for r in rows:
        assert r["ranks"] == 2 and r["correct"] is True
        assert r["time_us"] > 0
        assert r["algbw_gbps"] == pytest.approx(r["bytes"] / (r["time_us"] * 1e-6) / 1e9)
        assert r["busbw_gbps"] == pytest.approx(r["algbw_gbps"] * collectives.bus_factor(r["op"], 2))
    log = capfd.readouterr().err
    assert "torch.distributed.run" in log and "all_reduce 64 KiB x 2 ranks" in log  # run.log names each figure
    kept = [json.loads(line) for line in (tmp_path / "collectives" / "results.jsonl").read_text().splitlines()]
    assert [(k["op"], k["bytes"]) for k in kept] == [(r["op"], r["bytes"]) for r in rows]


def test_a_wrong_result_is_caught_by_the_check():
    import torch

    recv = torch.full((8,), 3.0)  # what two ranks sending 1 and 2 must sum to
    assert collective_worker._correct("all_reduce", recv, 2, 8)
    recv[5] = 3.0000002
    assert not collective_worker._correct("all_reduce", recv, 2, 8)
    gathered = torch.tensor([1.0, 1.0, 2.0, 2.0])
    assert collective_worker._correct("all_gather", gathered, 2, 2)
    assert not collective_worker._correct("all_gather", gathered.flip(0), 2, 2)
