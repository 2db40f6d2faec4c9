"""One rank of the collectives benchmark: what torchrun starts on every device of every node.

``python -m workloads.microbench.collective_worker --out DIR --device cpu|cuda --ops ... --sizes ...``
(started by :func:`workloads.microbench.collectives.measure_collectives`). Each
(op, size) is run ``--warmup`` times, then timed over ``--iters`` runs between
barriers; the time kept is the slowest rank's mean, as nccl-tests keeps it, since
a collective is over only when every rank has its result. Each rank then checks
its own result against the value the inputs imply (integers in float32, so exact)
and the ranks agree on whether all were right.

Global rank 0 appends one JSON line per (op, size) to ``DIR/results.jsonl`` as it
goes, so a run cut short keeps what it measured. A rank that fails writes one
line to ``DIR/error-rank<N>.txt`` and exits 1: the launcher quotes it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from workloads.child import multinode
from workloads.child.parent import die_with_parent
from workloads.errors import first_line

RESULTS = "results.jsonl"
ERROR_PREFIX = "error-rank"
ELEMENT_BYTES = 4  # float32


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="collective_worker")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--device", default="cpu", help="device type: cpu (gloo) or an accelerator type (its backend)")
    p.add_argument("--ops", required=True, help="comma-separated collective names")
    p.add_argument("--sizes", required=True, help="comma-separated sizes in bytes (the nccl-tests size S)")
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--iters", type=int, default=5)
    p.add_argument("--timeout", type=float, default=300.0, help="seconds a collective may wait for a peer")
    return p


def elements(op: str, nbytes: int, world: int) -> tuple[int, int]:
    """(elements each rank sends, elements each rank receives) for an op of nccl-tests size ``nbytes``.

    nccl-tests' size S is the whole array: for all_gather the gathered output, for
    reduce_scatter the input that is scattered, so a rank holds S/n of it.
    """
    total = nbytes // ELEMENT_BYTES
    share = total // world
    if op == "all_gather":
        return share, share * world
    if op == "reduce_scatter":
        return share * world, share
    return total, total


def main(argv: list[str] | None = None) -> int:
    die_with_parent()  # torchrun starts each rank in its own session: a kill of the group misses it
    args = build_parser().parse_args(argv)
    rank = int(os.environ.get("RANK", "0"))
    try:
        _run(args, rank)
    except BaseException as exc:  # noqa: BLE001 - every ending of a rank is said in one line the launcher quotes
        if isinstance(exc, SystemExit) and exc.code in (None, 0):
            raise
        traceback.print_exc(file=sys.stderr)
        message = "stopped" if isinstance(exc, KeyboardInterrupt) else first_line(exc, typed=True)
        message = multinode.short_error(message)
        (args.out / f"{ERROR_PREFIX}{rank}.txt").write_text(message + "\n", encoding="utf-8")
        return 1
    return 0


def _run(args: argparse.Namespace, rank: int) -> None:
    import datetime

    import torch
    import torch.distributed as dist

    from workloads.child import device as dev  # imports torch: lazy, as torch is here

    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    if args.device == "cpu":
        device = torch.device("cpu")
        torch.set_num_threads(1)  # the ranks share the host's cores; more threads per rank only wait on each other
    else:
        dev.load(args.device)   # its extension, so torch knows the type before a device of it is made
        device = torch.device(args.device, local_rank)
        dev.set_device(device)
    # the device table's backend: nccl, hccl, cncl, mccl, xccl; gloo on the CPU
    dist.init_process_group(backend=dev.backend(device), timeout=datetime.timedelta(seconds=args.timeout))
    try:
        world = dist.get_world_size()
        out = args.out / RESULTS
        for op in args.ops.split(","):
            for nbytes in (int(s) for s in args.sizes.split(",")):
                row = measure(op, nbytes, world, rank, device, args.warmup, args.iters)
                if rank == 0:
                    with open(out, "a", encoding="utf-8") as handle:
                        handle.write(json.dumps(row) + "\n")
                    sys.stderr.write(f"[rank 0] {op} {row['bytes']} B x {world} ranks: {row['time_s'] * 1e6:.1f} us"
                                     f"{'' if row['correct'] else ', WRONG RESULT'}\n")
                    sys.stderr.flush()
    finally:
        dist.destroy_process_group()


def measure(op: str, nbytes: int, world: int, rank: int, device: Any, warmup: int, iters: int) -> dict[str, Any]:
    import torch
    import torch.distributed as dist

    # the *_single names replace the *_tensor ones in recent torch; older builds have only the latter
    all_gather = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor
    reduce_scatter = getattr(dist, "reduce_scatter_single", None) or dist.reduce_scatter_tensor
    send_n, recv_n = elements(op, nbytes, world)
    send = torch.full((send_n,), float(rank + 1), dtype=torch.float32, device=device)
    recv = torch.empty(recv_n, dtype=torch.float32, device=device)

    def once() -> None:
        if op == "all_reduce":
            dist.all_reduce(recv)  # in place, as NCCL's in-place figure; recv holds zeros, which stay zeros
        elif op == "all_gather":
            all_gather(recv, send)
        elif op == "reduce_scatter":
            reduce_scatter(recv, send)
        elif op == "broadcast":
            dist.broadcast(send if rank == 0 else recv, src=0)
        else:
            raise ValueError(f"unknown collective {op!r}")

    if op == "all_reduce":
        recv.zero_()
    for _ in range(warmup):
        once()
    _synchronize(device)
    dist.barrier()
    t0 = time.perf_counter()
    for _ in range(iters):
        once()
    _synchronize(device)
    elapsed = torch.tensor([(time.perf_counter() - t0) / iters], dtype=torch.float64, device=device)
    dist.all_reduce(elapsed, op=dist.ReduceOp.MAX)
    # the check: one more run from known inputs (rank r holds r + 1), its result compared exactly
    if op == "all_reduce":
        recv.copy_(send)
        once()
    elif op == "broadcast" and rank == 0:
        recv.copy_(send)
    _synchronize(device)
    right = torch.tensor([1 if _correct(op, recv, world, send_n) else 0], dtype=torch.int32, device=device)
    dist.all_reduce(right, op=dist.ReduceOp.MIN)
    return {"op": op, "bytes": max(send_n, recv_n) * ELEMENT_BYTES, "ranks": world,
            "time_s": float(elapsed.item()), "correct": bool(right.item())}


def _correct(op: str, recv: Any, world: int, send_n: int) -> bool:
    """Whether this rank's result is the one its inputs imply: rank r sends r + 1 everywhere."""
    import torch

    if op in ("all_reduce", "reduce_scatter"):
        expected = torch.full_like(recv, world * (world + 1) / 2)
    elif op == "all_gather":
        expected = torch.arange(1, world + 1, dtype=recv.dtype, device=recv.device).repeat_interleave(send_n)
    else:  # broadcast from rank 0, which sent 1
        expected = torch.ones_like(recv)
    return bool(torch.equal(recv, expected))


def _synchronize(device: Any) -> None:
    from workloads.child import device as dev  # imports torch: lazy, as torch is here

    dev.synchronize(device)


def rank_errors(out: Path) -> list[tuple[int, str]]:
    """(rank, its one-line error) of every rank that failed, by rank."""
    found = []
    for path in out.glob(f"{ERROR_PREFIX}*.txt"):
        try:
            found.append((int(path.stem[len(ERROR_PREFIX):]), path.read_text(encoding="utf-8").strip()))
        except (ValueError, OSError):
            continue
    return sorted(found)


if __name__ == "__main__":
    sys.exit(main())
