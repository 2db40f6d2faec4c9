"""Runs across several machines: the options that make torchrun join other nodes, checked before anything starts.

Every node runs the same command with its own ``--node-rank`` (static rendezvous:
``--master-addr`` is node 0's address, where torchrun's store listens on
``--master-port``), or every node names the same ``--rdzv-endpoint HOST:PORT``
(torchrun's c10d rendezvous, which numbers the nodes itself). Global rank 0
writes the run; the other nodes' runs say that they only lent their devices.

``--dist-timeout`` bounds every wait on another node: the rendezvous (a node that
never comes) and each collective (a node that died without closing its sockets,
a powered-off machine). Without it torchrun waits 15 minutes for a rendezvous and
a process group 30 minutes for a collective. The workers read it from
:data:`DIST_TIMEOUT_ENV`.

Torch-free: a workload checks these options before it imports torch.
"""

from __future__ import annotations

import datetime
import os
import re
import signal
import subprocess
import sys
import threading
from collections import deque
from typing import Any, Mapping, Sequence

from workloads.child.harness import WorkloadError, non_negative_int, positive_float, positive_int

DIST_TIMEOUT_ENV = "CARDBENCH_DIST_TIMEOUT"
DEFAULT_DIST_TIMEOUT_S = 300.0
DEFAULT_MASTER_PORT = 29500
RDZV_ID = "cardbench"

_ENDPOINT = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$")


def add_multinode_arguments(parser: Any) -> None:
    """The multi-node options, in a group of their own in ``--help``."""
    group = parser.add_argument_group(
        "multi-node (torchrun)",
        "run the same command on every node; global rank 0 writes the run")
    group.add_argument("--nnodes", metavar="N", type=positive_int, default=1,
                       help="machines taking part (default 1)")
    group.add_argument("--node-rank", metavar="R", type=non_negative_int, default=None,
                       help="this machine's number, 0 to N-1, with --master-addr (0 is the master)")
    group.add_argument("--master-addr", metavar="HOST", default=None,
                       help="node 0's address, reachable from every node (static rendezvous)")
    group.add_argument("--master-port", metavar="PORT", type=_port, default=None,
                       help=f"a free TCP port on node 0 (default {DEFAULT_MASTER_PORT})")
    group.add_argument("--rdzv-endpoint", metavar="HOST:PORT", default=None,
                       help="torchrun's c10d rendezvous instead of --master-addr: the same on every node; "
                            "the nodes are numbered as they join")
    group.add_argument("--dist-timeout", metavar="S", type=positive_float, default=DEFAULT_DIST_TIMEOUT_S,
                       help=f"seconds to wait for another node, to join or in a collective, before the run "
                            f"ends with an error (default {DEFAULT_DIST_TIMEOUT_S:g})")


def _port(text: str) -> int:
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 1 to 65535, got {value}")
    return value


def check(args: Any) -> None:
    """Combinations no rendezvous can use, refused before any process starts."""
    static = args.master_addr is not None or args.master_port is not None or args.node_rank is not None
    if args.rdzv_endpoint is not None:
        if static:
            raise WorkloadError("--rdzv-endpoint replaces --master-addr, --master-port and --node-rank",
                                hint="give either --rdzv-endpoint HOST:PORT on every node, or "
                                     "--master-addr/--master-port with a --node-rank per node")
        if not _ENDPOINT.match(args.rdzv_endpoint) or not 1 <= int(args.rdzv_endpoint.rsplit(":", 1)[1]) <= 65535:
            raise WorkloadError(f"--rdzv-endpoint {args.rdzv_endpoint!r} is not HOST:PORT",
                                hint="for example --rdzv-endpoint 10.0.0.1:29400")
        return
    if args.nnodes == 1:
        if args.node_rank not in (None, 0):
            raise WorkloadError(f"--node-rank {args.node_rank} with --nnodes 1",
                                hint="give --nnodes, the number of machines taking part")
        return
    if args.master_addr is None:
        raise WorkloadError(f"--nnodes {args.nnodes} needs --master-addr HOST (node 0's address) "
                            "or --rdzv-endpoint HOST:PORT",
                            hint="run the same command on every node, each with its own --node-rank")
    if args.node_rank is None:
        raise WorkloadError(f"--nnodes {args.nnodes} with --master-addr needs --node-rank R on every node",
                            hint=f"0 on {args.master_addr} itself, 1 to {args.nnodes - 1} on the others")
    if args.node_rank >= args.nnodes:
        raise WorkloadError(f"--node-rank {args.node_rank} is not below --nnodes {args.nnodes}",
                            hint=f"node ranks run from 0 to {args.nnodes - 1}")


def is_multinode(args: Any) -> bool:
    return args.nnodes > 1 or args.rdzv_endpoint is not None


def torchrun_args(args: Any) -> list[str]:
    """torchrun's options for this node: its rendezvous and its timeouts (``--standalone`` on one machine)."""
    if not is_multinode(args):
        return ["--standalone", "--nnodes=1"]
    timeout = max(1, round(args.dist_timeout))
    if args.rdzv_endpoint is not None:
        return [f"--nnodes={args.nnodes}", "--rdzv-backend=c10d", f"--rdzv-endpoint={args.rdzv_endpoint}",
                f"--rdzv-id={RDZV_ID}", f"--rdzv-conf=join_timeout={timeout},timeout={timeout}"]
    return [f"--nnodes={args.nnodes}", f"--node-rank={args.node_rank}", f"--master-addr={args.master_addr}",
            f"--master-port={args.master_port or DEFAULT_MASTER_PORT}", f"--rdzv-conf=timeout={timeout}"]


def worker_env(args: Any) -> dict[str, str]:
    """What the workers need in their environment: how long a collective may wait for another node."""
    return {DIST_TIMEOUT_ENV: f"{args.dist_timeout:g}"}


def dist_timeout() -> datetime.timedelta | None:
    """The collective timeout the launcher asked for (:data:`DIST_TIMEOUT_ENV`), or None for torch's default."""
    text = os.environ.get(DIST_TIMEOUT_ENV, "")
    try:
        seconds = float(text)
    except ValueError:
        return None
    return datetime.timedelta(seconds=seconds) if seconds > 0 else None


_DIE_WITH_US_THEN_EXEC = """import os, sys
from workloads.child.parent import die_with_parent
die_with_parent(int(sys.argv[1]))
os.execv(sys.argv[2], sys.argv[2:])
"""


class Torchrun:
    """``python -m torch.distributed.run ...`` started so that it dies with this process (PR_SET_PDEATHSIG; its
    ranks die with it in turn), its stderr passed on to ours (run.log) with the last lines kept for a message."""

    def __init__(self, options: Sequence[str], env: Mapping[str, str] | None = None, stdout: Any = None):
        self.command = [sys.executable, "-m", "torch.distributed.run", *options]
        # a small Python asks for the signal, then becomes torchrun (the request survives exec): a preexec_fn
        # would do the same between fork and exec, where a process with threads may deadlock
        self.proc = subprocess.Popen([sys.executable, "-c", _DIE_WITH_US_THEN_EXEC, str(os.getpid()), *self.command],
                                     stdout=stdout, stderr=subprocess.PIPE, env=dict(env) if env is not None else None)
        self.tail: deque[str] = deque(maxlen=40)
        self._relay = threading.Thread(target=self._pass_on, daemon=True)
        self._relay.start()

    def _pass_on(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            line = raw.decode("utf-8", errors="replace")
            self.tail.append(line.rstrip())
            sys.stderr.write(line)
            sys.stderr.flush()

    def stop(self, grace_s: float) -> None:
        """SIGTERM (torchrun passes it to its ranks and waits for them), SIGKILL after ``grace_s``."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._relay.join(timeout=5)

    def last_error(self, limit: int = 300) -> str | None:
        """Why the ranks ended, in one line: the first rank's error (``[rank N] ERROR: ...``, from
        :class:`~workloads.child.data_parallel.RankEmitter`), else torchrun's own last error (a rendezvous that
        timed out, a store it could not reach), if any."""
        for line in self.tail:
            found = _RANK_ERROR.match(line.strip())
            if found:
                return f"rank {found['rank']}: {short_error(found['message'])}"[:limit]
        for line in reversed(self.tail):
            text = line.strip()
            if "Error" in text and "ChildFailedError" not in text and not text.startswith(("File ", "frame #")):
                return short_error(text)[:limit]
        return None


_RANK_ERROR = re.compile(r"^\[rank (?P<rank>\d+)\] ERROR: (?P<message>.*?)(?: \(hint: .*\))?$")
_SOURCE_LOCATION = re.compile(r"\[[^\]\s]+\.(?:cc|cpp|h|hpp):\d+\]\s*")  # gloo's "[.../pair.cc:545] "


def short_error(message: str) -> str:
    """A backend's error without its source location and its boilerplate ('This is typically caused by...')."""
    message = _SOURCE_LOCATION.sub("", message)
    cut = message.find(". This is typically")
    return message[:cut + 1] if cut > 0 else message
