"""A stand-in for `resnet50 --gpus N` across nodes, on the CPU: the launcher relays rank 0's events from torchrun.

Run as ``python -m tests.children.ddp_node [--procs N] [--steps N] [--delay S] [--silent S] <multi-node options>``
from the repository root: the launcher (:func:`workloads.child.data_parallel.launch`) restarts this
module under torchrun, where each rank all-reduces a one per step and rank 0 emits the events.
"""
import sys
import time

from workloads.child import data_parallel, multinode
from workloads.child.harness import ArgumentParser, run_main


def main(emitter, argv):
    parser = ArgumentParser(prog="ddp_node")
    parser.add_argument("--procs", type=int, default=1)  # not --nproc: torchrun reads that prefix as its own
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--silent", type=float, default=0.0, help="seconds without a word after step 1 (a compile)")
    multinode.add_multinode_arguments(parser)
    args = parser.parse_args(argv)
    multinode.check(args)
    if not data_parallel.in_worker():
        return data_parallel.launch(emitter, "tests.children.ddp_node", argv, args.procs,
                                    multinode.torchrun_args(args), multinode.worker_env(args))
    import torch
    import torch.distributed as dist

    data_parallel.init_process_group(torch.device("cpu"))
    try:
        emitter.start("ddp_node", {"world_size": dist.get_world_size()}, "cpu", {})
        for step in range(1, args.steps + 1):
            ones = torch.ones(1)
            dist.all_reduce(ones)
            emitter.step(step, throughput=float(ones.item()), unit="ranks")
            time.sleep(args.silent if step == 1 else args.delay)
        emitter.result({"world_size": dist.get_world_size()})
    finally:
        data_parallel.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main, emitter=data_parallel.emitter_for_this_process()))
