"""Two "nodes" on 127.0.0.1: two process trees started with the same command and their own --node-rank.

Every process of a test carries a tag in its environment, so the processes left
behind (a launcher, torchrun, a rank re-parented to init) are found whatever
session torchrun put them in.
"""
import os
import socket
import subprocess
import sys
import time

import psutil
import pytest
from paths import REPO

TAG_ENV = "CARDBENCH_TEST_TAG"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_nodes(command, tag, nnodes=2, rendezvous="static"):
    """One process tree per node running ``command`` plus the rendezvous options: static (``--node-rank``, node 0
    first) or torchrun's c10d (``--rdzv-endpoint``, the same on each: the nodes are numbered as they join)."""
    port = str(free_port())
    env = dict(os.environ, **{TAG_ENV: tag})

    def joining(rank):
        if rendezvous == "c10d":
            return ["--rdzv-endpoint", f"127.0.0.1:{port}"]
        return ["--node-rank", str(rank), "--master-addr", "127.0.0.1", "--master-port", port]

    return [subprocess.Popen([sys.executable, *command, "--nnodes", str(nnodes), *joining(rank)],
                             cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for rank in range(nnodes)]


def start_alone(command, tag):
    """``command`` on this machine alone (no multi-node options), tagged, its stdout and stderr piped."""
    return subprocess.Popen([sys.executable, *command], cwd=REPO, env=dict(os.environ, **{TAG_ENV: tag}),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def kill_tree(proc):
    """SIGKILL a node's whole process tree at once, as a machine that loses power."""
    root = psutil.Process(proc.pid)
    tree = [root, *root.children(recursive=True)]
    for p in tree:
        try:
            p.kill()
        except psutil.NoSuchProcess:
            pass
    return len(tree)


def tagged(tag):
    found = []
    for p in psutil.process_iter():
        try:
            if p.pid != os.getpid() and p.environ().get(TAG_ENV) == tag and p.status() != psutil.STATUS_ZOMBIE:
                found.append(p)
        except psutil.Error:
            continue
    return found


def left_behind(tag, seconds=15):
    """The tagged processes still alive after ``seconds`` (none, when every child died with its parent)."""
    deadline = time.monotonic() + seconds
    while tagged(tag) and time.monotonic() < deadline:
        time.sleep(0.2)
    return [(p.pid, " ".join(p.cmdline()[:4])) for p in tagged(tag)]


def kill_tagged(tag):
    for p in tagged(tag):
        try:
            p.kill()
        except psutil.Error:
            pass


@pytest.fixture
def tag(request):
    """This test's tag (imported by a test module, it is that module's fixture); its processes are killed after."""
    name = f"nodes-{request.node.name}-{os.getpid()}"
    yield name
    kill_tagged(name)
