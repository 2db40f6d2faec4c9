"""Collectives across every visible device, and across nodes: all_reduce, all_gather, reduce_scatter, broadcast.

:func:`measure_collectives` starts ``python -m torch.distributed.run`` with one
:mod:`~workloads.microbench.collective_worker` per device (NCCL on GPUs, the
device's own backend on other accelerators, gloo on the CPU with ``--nproc N``
processes), sweeps the sizes and returns one row per (op, size) with the time,
the algorithm bandwidth and the bus bandwidth by nccl-tests' definitions
(NVIDIA/nccl-tests, doc/PERFORMANCE.md):

- ``algbw = S / t``, S the size in bytes of the whole array (for all_gather the
  gathered output, for reduce_scatter the input), t the slowest rank's mean time;
- ``busbw = algbw x 2(n-1)/n`` for all_reduce, ``x (n-1)/n`` for all_gather and
  reduce_scatter, ``x 1`` for broadcast: a figure to hold against the link's
  rated bandwidth whatever the number of ranks n;

and ``correct``: whether every rank's result was exactly what the inputs imply.

Multi-node: the caller passes :func:`workloads.child.multinode.torchrun_args` as
``extra_torchrun_args``; every node runs the same command. Only the node that
holds global rank 0 gets the rows; the others get ``[]`` (their run says the
figures are in node 0's).

Torch-free at import: only counting the devices for ``nproc=None`` imports torch.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Iterator, Sequence

from workloads.child import multinode
from workloads.child.harness import WorkloadError, log, positive_float, positive_int
from workloads.facts.formatting import format_bytes
from workloads.microbench import collective_worker
from workloads.protocol import RUN_DIR_ENV

OPS = ("all_reduce", "all_gather", "reduce_scatter", "broadcast")
ELEMENT_BYTES = 4  # float32, as nccl-tests' default
# nccl-tests' default sweep is 8 B up; below a few KiB every collective is latency, which the smallest size shows
GPU_SIZES = tuple(2 ** k for k in range(10, 31, 2))   # 1 KiB to 1 GiB, x4
CPU_SIZES = tuple(2 ** k for k in range(10, 23, 2))   # 1 KiB to 4 MiB: gloo over loopback, in seconds
CPU_NPROC = 2
WORKER = collective_worker.__name__
STOP_GRACE_S = 10.0


def bus_factor(op: str, ranks: int) -> float:
    """nccl-tests' correction from algbw to busbw (doc/PERFORMANCE.md, "Summary")."""
    if op == "all_reduce":
        return 2 * (ranks - 1) / ranks
    if op in ("all_gather", "reduce_scatter"):
        return (ranks - 1) / ranks
    if op == "broadcast":
        return 1.0
    raise ValueError(f"unknown collective {op!r}")


def bandwidths(op: str, nbytes: int, seconds: float, ranks: int) -> tuple[float, float]:
    """(algbw, busbw) in GB/s (10^9 bytes, as nccl-tests) of an op of nccl-tests size ``nbytes``."""
    algbw = nbytes / seconds / 1e9
    return algbw, algbw * bus_factor(op, ranks)


def row(op: str, nbytes: int, ranks: int, seconds: float, correct: bool) -> dict[str, Any]:
    algbw, busbw = bandwidths(op, nbytes, seconds, ranks)
    return {"op": op, "bytes": nbytes, "ranks": ranks, "time_us": seconds * 1e6, "algbw_gbps": algbw,
            "busbw_gbps": busbw, "correct": correct}


def describe(r: dict[str, Any]) -> str:
    """One line for run.log: the figures with what they are."""
    check = "correct" if r["correct"] else "WRONG RESULT"
    return (f"{r['op']} {format_bytes(r['bytes'])} x {r['ranks']} ranks: {r['time_us']:.1f} us, algbw "
            f"{r['algbw_gbps']:.3g} GB/s, busbw {r['busbw_gbps']:.3g} GB/s, {check}")


# ---------------------------------------------------------------- options


def add_collective_arguments(parser: Any) -> None:
    """The collectives' options (and the multi-node ones) on the microbench parser."""
    group = parser.add_argument_group("collectives (torchrun)")
    group.add_argument("--coll-ops", metavar="LIST", default=",".join(OPS),
                       help=f"collectives to time, comma-separated (default {','.join(OPS)})")
    group.add_argument("--coll-sizes", metavar="LIST", default=None,
                       help="sizes in bytes, comma-separated, K/M/G suffixes allowed (default 1K to 1G on an "
                            "accelerator, 1K to 4M on the CPU, x4)")
    group.add_argument("--nproc", metavar="N", type=positive_int, default=None,
                       help=f"processes on this node (default: every visible device; {CPU_NPROC} on the CPU)")
    group.add_argument("--coll-timeout", metavar="S", type=positive_float, default=600.0,
                       help="seconds the whole sweep may take before it is stopped (default 600)")
    multinode.add_multinode_arguments(parser)


def collective_kwargs(args: Any) -> dict[str, Any]:
    """:func:`measure_collectives`' keyword arguments from the parsed options; a bad one is a WorkloadError."""
    multinode.check(args)
    ops = [o.strip() for o in args.coll_ops.split(",") if o.strip()]
    unknown = [o for o in ops if o not in OPS]
    if unknown or not ops:
        raise WorkloadError(f"--coll-ops: unknown collective {', '.join(unknown) or '(none given)'}",
                            hint=f"use some of {','.join(OPS)}")
    sizes = parse_sizes(args.coll_sizes) if args.coll_sizes is not None else []
    extra = multinode.torchrun_args(args) if multinode.is_multinode(args) else []
    return {"sizes": sizes, "ops": ops, "nproc": args.nproc, "timeout_s": args.coll_timeout,
            "extra_torchrun_args": extra}


def parse_sizes(text: str) -> list[int]:
    scale = {"K": 2 ** 10, "M": 2 ** 20, "G": 2 ** 30}
    sizes = []
    for item in (s.strip().upper().removesuffix("B").removesuffix("I") for s in text.split(",")):
        if not item:
            continue
        factor = scale.get(item[-1], 1)
        number = item[:-1] if item[-1] in scale else item
        try:
            value = int(float(number) * factor)
        except ValueError:
            raise WorkloadError(f"--coll-sizes: {item!r} is not a size", hint="for example 1K,64K,4M,1G") from None
        if value < ELEMENT_BYTES:
            raise WorkloadError(f"--coll-sizes: {item!r} is below one float32 element ({ELEMENT_BYTES} bytes)",
                                hint="for example 1K,64K,4M,1G")
        sizes.append(value)
    if not sizes:
        raise WorkloadError("--coll-sizes: no size given", hint="for example 1K,64K,4M,1G")
    return sizes


# ---------------------------------------------------------------- the run


def measure_collectives(device_type: str, *, sizes: list[int], ops: list[str], nproc: int | None,
                        timeout_s: float, extra_torchrun_args: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Time each op at each size over every rank of the run; one row per (op, size), in that order.

    ``sizes`` empty: the default sweep for the device type. Rows come back on the
    node that holds global rank 0; elsewhere ``[]``. Raises WorkloadError with a
    hint when the sweep cannot run or a rank fails (another node gone, a timeout).
    """
    bad = [o for o in ops if o not in OPS]
    if bad or not ops:
        raise WorkloadError(f"unknown collective {', '.join(bad) or '(none given)'}",
                            hint=f"use some of {','.join(OPS)}")
    reason = why_not(device_type, nproc, extra_torchrun_args)
    if reason:
        raise WorkloadError(reason, hint="on the CPU use --nproc 2; across machines add --nnodes with --master-addr")
    nproc = nproc or _device_count(device_type)
    sizes = list(sizes) or list(GPU_SIZES if device_type != "cpu" else CPU_SIZES)
    with _rows_folder() as out:
        code, torchrun = _launch(out, device_type, sizes, ops, nproc, timeout_s, list(extra_torchrun_args))
        rows = _read_rows(out / collective_worker.RESULTS)
        if code != 0:
            raise _failure(out, code, torchrun, timeout_s, f"{len(rows)} of {len(ops) * len(sizes)}")
    if not rows:
        log("collectives: this node holds no global rank 0; node 0's run records the figures")
    return rows


def why_not(device_type: str, nproc: int | None, extra_torchrun_args: Sequence[str] = ()) -> str | None:
    """Why the collectives cannot run here (one rank has no bus: all_reduce's busbw would read 0), or None.

    For a caller that shows the part as skipped rather than failed on a machine with one device.
    """
    across_nodes = any((a.startswith("--nnodes=") and a != "--nnodes=1") or a.startswith("--rdzv-endpoint")
                       for a in extra_torchrun_args)
    count = nproc or _device_count(device_type)
    if count < 2 and not across_nodes:
        return f"collectives need 2 or more ranks; this node has {count} {device_type} device(s)"
    return None


@contextlib.contextmanager
def _rows_folder() -> Iterator[Path]:
    """Where rank 0 writes its rows: ``collectives/`` in the run directory, kept with the run (a sweep cut short
    leaves what it measured there), else a temporary folder."""
    run_dir = os.environ.get(RUN_DIR_ENV)
    if not run_dir:
        with tempfile.TemporaryDirectory(prefix="cardbench-collectives-") as folder:
            yield Path(folder)
        return
    out = Path(run_dir) / "collectives"
    out.mkdir(parents=True, exist_ok=True)
    for stale in [out / collective_worker.RESULTS, *out.glob(f"{collective_worker.ERROR_PREFIX}*.txt")]:
        stale.unlink(missing_ok=True)  # a second sweep in the same run
    yield out


def _device_count(device_type: str) -> int:
    if device_type == "cpu":
        return CPU_NPROC
    from workloads.child import device as dev  # imports torch: lazy, as torch was here

    return dev.device_count(device_type)   # a broken backend has no device to use


def _launch(out: Path, device_type: str, sizes: list[int], ops: list[str], nproc: int, timeout_s: float,
            extra: list[str]) -> tuple[int | str, multinode.Torchrun]:
    """Run torchrun to the end or to the deadline; (its exit code or "timeout", the torchrun)."""
    rendezvous = extra or ["--standalone", "--nnodes=1"]
    worker_timeout = min(timeout_s, _rendezvous_timeout(extra) or timeout_s)
    options = [*rendezvous, f"--nproc-per-node={nproc}", "--max-restarts=0", "-m", WORKER, "--out", str(out),
               "--device", device_type, "--ops", ",".join(ops), "--sizes", ",".join(str(s) for s in sizes),
               "--timeout", f"{worker_timeout:g}"]
    torchrun = multinode.Torchrun(options, stdout=sys.stderr.fileno())  # a rank's print must not reach the events
    log(f"collectives: {' '.join(torchrun.command)}")
    try:
        code: int | str = torchrun.proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        code = "timeout"
    finally:
        torchrun.stop(STOP_GRACE_S)
    return code, torchrun


def _rendezvous_timeout(extra: Sequence[str]) -> float | None:
    """The ``timeout=`` of a ``--rdzv-conf`` (multinode's --dist-timeout): a collective waits no longer for a
    node than its joining may take, so a frozen node ends the sweep with the backend's own timeout error."""
    for arg in extra:
        if arg.startswith("--rdzv-conf="):
            for item in arg.split("=", 1)[1].split(","):
                key, _, value = item.partition("=")
                if key == "timeout":
                    try:
                        return float(value)
                    except ValueError:
                        return None
    return None


def _read_rows(path: Path) -> list[dict[str, Any]]:
    rows = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []
    for line in lines:
        try:
            raw = json.loads(line)
            rows.append(row(raw["op"], int(raw["bytes"]), int(raw["ranks"]), float(raw["time_s"]),
                            bool(raw["correct"])))
        except (ValueError, KeyError, TypeError, ZeroDivisionError):
            continue  # a line cut short by a rank that died mid-write
    for r in rows:
        log(describe(r))
    return rows


def _failure(out: Path, code: int | str, torchrun: multinode.Torchrun, timeout_s: float,
             measured: str) -> WorkloadError:
    """One line saying why the sweep ended early, from the ranks' own words where they left any."""
    errors = collective_worker.rank_errors(out)
    done = f" ({measured} rows measured)" if not measured.startswith("0 ") else ""
    if code == "timeout":
        return WorkloadError(f"collectives did not finish within {timeout_s:g} s{done}; stopped",
                             hint="a node may be unreachable or far slower; raise --coll-timeout, or check "
                                  "every node runs the same command", bad_input=False)
    if errors:
        rank, message = errors[0]
        return WorkloadError(f"collectives failed{done}: rank {rank}: {message}",
                             hint="another node or rank may have stopped; its log says why", bad_input=False)
    said = torchrun.last_error() or f"torchrun exit code {code}"
    return WorkloadError(f"collectives could not start the ranks: {said}",
                         hint="every node must run the same command and reach --master-addr:--master-port "
                              "(or --rdzv-endpoint) within --dist-timeout", bad_input=False)
