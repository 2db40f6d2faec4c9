"""Data-parallel runs: ``--gpus N|all`` relaunches the workload under torchrun, one process per device.

The process the runner started becomes a thin launcher: it starts
``python -m torch.distributed.run`` with the same arguments, reads the event
lines rank 0 writes on the shared stdout pipe and passes them on, and ends the
run itself when the workers die without doing so. Ranks other than 0 emit no
events (their errors go to stderr, so run.log keeps them).

torchrun stays in the launcher's process group, but it starts each worker in a
session of its own, so a signal to the group misses the workers: torchrun asks
the kernel to kill it when the launcher dies and each worker the same of
torchrun (PR_SET_PDEATHSIG), and on its own SIGTERM the launcher also stops
torchrun and waits for it, so no worker outlives the run.

Across nodes (:mod:`workloads.child.multinode`), each node's launcher runs the
same command with its own torchrun; the node that holds global rank 0 relays the
events, and the others end with a warning that says where the figures are. When a
node dies, the others' collectives fail (a closed connection at once, a frozen
node at ``--dist-timeout``) and their runs end with one error line.

Nothing here imports torch at module level: the launcher needs it only to count
accelerators (``--gpus all``, or a count to check); CPU processes need none.
With ``--gpus``, ``--device`` names the device type: rank N takes device N.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any, Mapping, Sequence

from workloads import exit_codes, protocol
from workloads.child import device_types as table
from workloads.child import multinode
from workloads.child.harness import Emitter, WorkloadError
from workloads.child.parent import die_with_parent

WORKER_ENV = "CARDBENCH_DDP_WORKER"
PEER_HINT = "in a multi-node run another node may have stopped, or not joined within --dist-timeout"
STOP_GRACE_S = 30.0  # torchrun's own shutdown of its ranks, then SIGKILL (the ranks die with it)


def in_worker() -> bool:
    """True inside a process torchrun started (ours, or the user's own torchrun)."""
    return all(name in os.environ for name in ("LOCAL_RANK", "RANK", "WORLD_SIZE"))


def rank() -> int:
    return int(os.environ.get("RANK", "0"))


def local_rank() -> int:
    return int(os.environ.get("LOCAL_RANK", "0"))


def world_size() -> int:
    return int(os.environ.get("WORLD_SIZE", "1"))


class RankEmitter(Emitter):
    """The emitter of a rank other than 0: events are dropped, problems go to stderr for the log."""

    def __init__(self, rank_number: int):
        sys.stdout.flush()
        os.dup2(2, 1)  # a stray print must not reach the event pipe rank 0 writes to
        sys.stdout = sys.stderr
        super().__init__(stream=open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115 - lives as long as the process
        self.rank = rank_number

    def emit(self, event: protocol.Event) -> None:
        if isinstance(event, (protocol.Error, protocol.Fallback, protocol.WorkloadWarning)):
            sys.stderr.write(f"[rank {self.rank}] {event.describe()}\n")
            sys.stderr.flush()
        super().emit(event)


def emitter_for_this_process() -> Emitter:
    if in_worker() and rank() != 0:
        return RankEmitter(rank())
    return Emitter()


def exit_process(code: int) -> None:
    """Exit with ``code``; a torchrun rank skips the interpreter's teardown.

    Every event is written by then. Tearing down a rank that ran gloo collectives can abort it: objects
    that hold tensors die during finalization, and a C++ thread destroyed while joinable calls
    std::terminate ("terminate called without an active exception", SIGABRT; pytorch/pytorch PR 179291).
    About one 2-rank CPU run in a few dozen died that way after its last step, which torchrun then
    reports as a failed run. ``os._exit`` after flushing the streams leaves nothing for the teardown to do.
    """
    if not in_worker():
        sys.exit(code)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing left to save
            pass
    os._exit(code)


def process_count(gpus: str, device_name: str | None) -> int:
    """How many processes ``--gpus`` asks for; 'all' counts the devices of the chosen type."""
    device_type = (device_name or "auto").split(":")[0]
    count: int | None = None
    if gpus != "all":
        try:
            count = int(gpus)
        except ValueError:
            raise WorkloadError(f"--gpus takes a number or 'all', got {gpus!r}") from None
        if count <= 0:
            raise WorkloadError(f"--gpus must be at least 1, got {count}")
        if device_type == "cpu" or count == 1:
            return count  # CPU processes share the host; one process needs no launcher
    elif device_type == "cpu":
        raise WorkloadError("--gpus all needs an accelerator", hint="on the CPU give a process count: --gpus 2")
    present = _accelerators(device_type)
    if present is None:
        raise WorkloadError(f"--gpus {gpus} found no accelerator",
                            hint="run `cardbench doctor`, or use --device cpu --gpus N")
    kind, available = present
    if count is not None and count > available:
        raise WorkloadError(f"--gpus {count} but this machine has {available} {kind} device(s)",
                            hint=f"use --gpus {available} or --gpus all")
    return count if count is not None else available


def _accelerators(device_type: str) -> tuple[str, int] | None:
    """(device type, how many) for the requested type, or the first type present for 'auto'."""
    from workloads.child import device as dev  # imports torch: lazy, as torch was here (the parent needs none)

    if device_type != "auto":
        dev.load(device_type)   # its extension: an unknown type or a failing import is the one line, exit 2
    for name in ([device_type] if device_type != "auto" else dev.available_types()):
        if name != "cpu" and dev.device_count(name) > 0:   # a broken backend counts as absent
            return name, dev.device_count(name)
    return None


def relaunched(emitter: Emitter, module: str, args: Any, argv: Sequence[str]) -> int | None:
    """A training workload's ``--gpus``: the run under torchrun (:func:`launch`) when it takes more than this one
    process, and its exit code; None when this process runs it (no ``--gpus``, one device, or a rank already)."""
    if args.gpus is None or in_worker():
        return None
    nproc = process_count(args.gpus, args.device)
    if nproc <= 1 and not multinode.is_multinode(args):
        return None
    return launch(emitter, module, _without_gpus(argv), nproc, multinode.torchrun_args(args),
                  multinode.worker_env(args))


def _without_gpus(argv: Sequence[str]) -> list[str]:
    """The workload's arguments as each rank runs them: ``--gpus`` taken out (a rank is one process)."""
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg == "--gpus":
            skip = True
            continue
        if arg.startswith("--gpus="):
            continue
        out.append(arg)
    return out


def launch(emitter: Emitter, module: str, argv: Sequence[str], nproc: int, rendezvous: Sequence[str] = (),
           env: Mapping[str, str] | None = None) -> int:
    """Run ``python -m module argv`` under torchrun with ``nproc`` workers on this node; relay rank 0's events.

    ``rendezvous``: torchrun's options that join other nodes
    (:func:`workloads.child.multinode.torchrun_args`; this node alone when empty);
    ``env``: what the workers need besides this process's environment
    (:func:`workloads.child.multinode.worker_env`). A node that does not hold global
    rank 0 has no event to relay: its run ends with a warning that says where the figures are.
    """
    across_nodes = bool(rendezvous) and "--standalone" not in rendezvous
    options = [*(rendezvous or ("--standalone", "--nnodes=1")), f"--nproc-per-node={nproc}", "--max-restarts=0",
               "-m", module, *argv]
    worker_env = dict(os.environ, **(env or {}), **{WORKER_ENV: "1"})
    worker_env.pop(protocol.PARENT_PID_ENV, None)  # the ranks' parent is torchrun: they tie themselves to it (init_process_group)
    torchrun = multinode.Torchrun(options, env=worker_env, stdout=subprocess.PIPE)
    sys.stderr.write(f"launching {nproc} processes: {' '.join(torchrun.command)}\n")
    sys.stderr.flush()
    worker_end: protocol.End | None = None
    relayed = 0
    try:
        assert torchrun.proc.stdout is not None
        for raw in torchrun.proc.stdout:
            try:
                event = protocol.parse_line(raw)
            except protocol.MalformedLine:
                sys.stderr.write(raw.decode("utf-8", errors="replace"))
                sys.stderr.flush()
                continue
            if isinstance(event, protocol.End):
                worker_end = event  # the launcher decides how the run ends, once torchrun is done
                continue
            if isinstance(event, protocol.Error) and across_nodes:
                event.message = multinode.short_error(event.message)  # the whole text is in the run log
                event.hint = event.hint or PEER_HINT
            emitter.emit(event)
            relayed += 1
        code = torchrun.proc.wait()
    finally:
        torchrun.stop(STOP_GRACE_S)
    if code == 0 and worker_end is None and relayed == 0 and across_nodes:
        emitter.warning("this node ran its ranks of a multi-node run; global rank 0, on another node, records "
                        "the run and its figures", code="multinode_not_rank0")
        emitter.end("ok", exit_code=exit_codes.OK)
        return exit_codes.OK
    return _ending(emitter, worker_end, code, torchrun.last_error())


def _ending(emitter: Emitter, worker_end: protocol.End | None, torchrun_code: int, torchrun_error: str | None) -> int:
    if torchrun_code == 0 and worker_end is not None:
        emitter.emit(worker_end)
        return worker_end.exit_code or exit_codes.OK
    if worker_end is not None and worker_end.status == "failed":
        emitter.emit(worker_end)  # rank 0 already said why, in an error event
        return worker_end.exit_code or exit_codes.FAILED
    said = f": {torchrun_error}" if torchrun_error else ""
    emitter.error(f"a worker process failed (torchrun exit code {torchrun_code}){said}",
                  hint=f"the run log holds each rank's traceback; {PEER_HINT}")
    emitter.end("failed", exit_code=exit_codes.FAILED)
    return exit_codes.FAILED


def init_process_group(device: Any) -> None:
    import torch.distributed as dist

    die_with_parent()

    # the device table's backend (nccl, hccl, cncl, mccl, xccl, gloo): torch's own lookup knows only its own types
    dist.init_process_group(backend=table.row(device.type).backend, timeout=multinode.dist_timeout())


def shutdown() -> None:
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        dist.destroy_process_group()
