"""Whose processes hold each card: cardbench's own workloads, and "another container's process" for the rest.

On a rented instance cardbench runs in a container. NVML and the vendor CLIs list a card's processes by the
host's pids (or with empty names, as npu-smi does), which mean nothing in the container's pid namespace: a
listed pid with no ``/proc/<pid>`` here belongs to another namespace. So a card's memory is attributed in
this order:

1. a listed pid that is one of cardbench's own workload children (same namespace: a bare machine) is owned by
   ``cardbench <workload>``;
2. an own workload on that card that is not listed by its pid (seen by its host pid) is matched to the
   foreign entry closest above what the child reports it holds (its allocator's reserved bytes; the driver
   counts its context on top, so the entry is larger by at most `CONTEXT_SLACK`);
3. the other foreign entries are "another container's process" where cardbench runs in a container (`in_container`),
   else "a process /proc here does not show" (it ended, or /proc hides it); outside a container an empty name of a
   pid /proc shows is read from ``/proc/<pid>/comm``;
4. an own workload matched to no entry (the tool lists none inside a container) is added with the pid it has
   here and what it reports holding, so the card's memory is never left unexplained.

The tool's pid, name and memory are kept as it printed them; cardbench's word is the process's ``owner``.

UI-free and torch-free: the session says which children run where (`OwnWorkload`).
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from tui.telemetry.sample import DeviceProcess, DeviceSample, Sample

OTHER_CONTAINER = "another container's process"
NOT_SHOWN = "a process /proc here does not show (ended, or hidden)"   # the same, outside a container
GIB = 1024 ** 3


@dataclass(frozen=True)
class OwnWorkload:
    """A workload child cardbench runs: its pid here, the card it runs on (the tools' index) and what it holds."""

    pid: int
    workload: str
    device_index: int | None
    held_bytes: int | None = None   # the child's own report (its allocator's reserved bytes); None: not yet


def context_slack(held: int) -> int:
    """How much more than the child's allocator the driver may count for it (its context, libraries): 1 GiB, or
    a tenth of what it holds on a card where a tenth is more."""
    return max(GIB, held // 10)


@functools.cache
def in_container(root: str = "/") -> bool:
    """Whether cardbench runs in a container (docker, podman, containerd, Kubernetes): there the tools' pids are the
    host's. The runtimes' own marks: /.dockerenv, /run/.containerenv, pid 1's cgroup naming one of them."""
    if any(os.path.exists(os.path.join(root, mark)) for mark in (".dockerenv", "run/.containerenv")):
        return True
    try:
        with open(os.path.join(root, "proc/1/cgroup"), encoding="utf-8", errors="replace") as fh:
            cgroup = fh.read()
    except OSError:
        return False
    return any(word in cgroup for word in ("docker", "kubepods", "containerd", "libpod", "lxc"))


def pid_here(pid: int | None, proc_root: str = "/proc") -> bool:
    return pid is not None and pid > 0 and os.path.exists(os.path.join(proc_root, str(pid)))


def _comm(pid: int, proc_root: str) -> str | None:
    try:
        with open(os.path.join(proc_root, str(pid), "comm"), encoding="utf-8", errors="replace") as fh:
            return fh.read().strip() or None
    except OSError:
        return None


def _closest(entries: list[tuple[int, DeviceProcess]], held: int) -> tuple[int, DeviceProcess] | None:
    """The (position, entry) whose memory is the closest above ``held`` within the context's slack."""
    fits = [(at, p) for at, p in entries
            if p.used_bytes is not None and 0 <= p.used_bytes - held <= context_slack(held)]
    return min(fits, key=lambda e: (e[1].used_bytes or 0) - held, default=None)


def attribute_device(d: DeviceSample, own: Sequence[OwnWorkload], proc_root: str = "/proc",
                     container: bool | None = None) -> DeviceSample:
    """``d`` with each listed process's ``owner`` said (the module's four steps), the tool's pid, name and memory
    kept; unchanged when the card lists no processes and no own workload runs on it."""
    mine = [w for w in own if w.device_index is not None and w.device_index == d.index]
    if d.processes is None and not mine:
        return d
    container = in_container() if container is None else container
    by_pid = {w.pid: w for w in own}
    listed = list(d.processes or ())
    foreign: list[int] = []   # positions of entries whose pid is of another namespace
    for at, p in enumerate(listed):
        if p.pid in by_pid:
            listed[at] = p._replace(owner=f"cardbench {by_pid[p.pid].workload}")
            mine = [w for w in mine if w.pid != p.pid]
        elif not container and pid_here(p.pid, proc_root):
            # in a container a host pid may be a number in use here too, by another process: its name is not read
            listed[at] = p if p.name else p._replace(name=_comm(p.pid or 0, proc_root))
        else:
            foreign.append(at)
    added: list[DeviceProcess] = []
    for w in mine:
        match = _closest([(at, listed[at]) for at in foreign], w.held_bytes) if w.held_bytes else None
        if match is None:   # the tool lists it under no pid we can match: what the child says it holds
            added.append(DeviceProcess(w.pid, _comm(w.pid, proc_root), w.held_bytes, f"cardbench {w.workload}"))
            continue
        foreign.remove(match[0])
        listed[match[0]] = match[1]._replace(owner=f"cardbench {w.workload}")
    for at in foreign:
        listed[at] = listed[at]._replace(owner=OTHER_CONTAINER if container else NOT_SHOWN)
    return d.replace(processes=tuple(listed) + tuple(added))


def attribute(sample: Sample, own: Sequence[OwnWorkload] = (), proc_root: str = "/proc",
              container: bool | None = None) -> Sample:
    devices = tuple(attribute_device(d, own, proc_root, container) for d in sample.devices)
    if devices == sample.devices:
        return sample
    return Sample(t=sample.t, devices=devices, host=sample.host, errors=sample.errors, sources=sample.sources)


OwnWorkloads = Callable[[], Sequence[OwnWorkload]]

# the variable that renumbers each torch device type's cards (its ordinal i is the i-th card it lists)
VISIBLE = {"cuda": ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"), "npu": ("ASCEND_RT_VISIBLE_DEVICES",),
           "musa": ("MUSA_VISIBLE_DEVICES",), "mlu": ("MLU_VISIBLE_DEVICES",)}


def card_index(device: str, env: Mapping[str, str]) -> int | None:
    """The run's device as its start event says it ('cuda:1 (NVIDIA H100 80GB HBM3)', 'npu:0 (Ascend910B3)', 'cpu
    (x86_64, 2 threads)') -> the card's index as the management tools number it, through the type's visible-devices
    variable (CUDA_VISIBLE_DEVICES=2,3 makes cuda:1 card 3); None for the CPU, a card named by UUID, or a device
    string this does not know."""
    m = re.match(r"\s*([a-z_]+)(?::(\d+))?(?=\s|\(|$)", device)
    if m is None or m.group(1) not in VISIBLE:
        return None
    number = int(m.group(2) or 0)
    for name in VISIBLE[m.group(1)]:
        listed = [part.strip() for part in env.get(name, "").split(",") if part.strip()]
        if listed:
            pick = listed[number] if number < len(listed) else ""
            return int(pick) if pick.isdigit() else None
    return number
