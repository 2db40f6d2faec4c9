"""Training checkpoints (``--checkpoint DIR``, ``--resume``) and fine-tuning weights (``--weights PATH``).

A checkpoint is one file, ``DIR/resnet50-last.pt``, written through a temporary
name of the writing process's own and renamed, so a run killed while saving
leaves the previous one whole; one run at a time holds the directory (see
:mod:`~workloads.resnet50.checkpoint_lock`).
Loading checks that the file holds this model's parameters and says, in one
line, what does not match: a checkpoint of another model is bad input, not a
traceback.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import torch
from torch import nn

from workloads.child.harness import WorkloadError
from workloads.errors import first_line

FORMAT = "cardbench-resnet50"
FILENAME = "resnet50-last.pt"


def path_in(directory: str | os.PathLike[str]) -> Path:
    return Path(directory).expanduser() / FILENAME


def save(directory: str | os.PathLike[str], state: dict[str, Any]) -> Path:
    target = path_in(directory)
    # a name of this process's own: a second writer (see checkpoint_lock) cannot rename our half-written file
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        torch.save({"format": FORMAT, **state}, partial)
        os.replace(partial, target)
    except (OSError, RuntimeError) as exc:  # torch.save reports a full disk as a RuntimeError
        partial.unlink(missing_ok=True)
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else first_line(exc, limit=200)
        raise WorkloadError(f"cannot write checkpoint {target}: {reason}",
                            hint="check --checkpoint DIR is writable and has space", bad_input=False) from None
    return target


def read(path: str | os.PathLike[str], what: str = "checkpoint") -> dict[str, Any]:
    """Load a checkpoint or state-dict file on the CPU; WorkloadError if it is missing or unreadable."""
    file = Path(path).expanduser()
    if not file.is_file():
        raise WorkloadError(f"{what} {file} does not exist")
    try:
        data = torch.load(file, map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - pickle, zip and torch errors alike mean "not a checkpoint"
        detail, hint = _load_failure(exc)
        raise WorkloadError(f"{what} {file} is damaged or not a state dict: {detail}", hint=hint) from None
    if not isinstance(data, dict):
        raise WorkloadError(f"{what} {file} holds a {type(data).__name__}, not a state dict")
    return data


_RESAVE_HINT = "save the weights alone: torch.save(model.state_dict(), PATH)"
_DAMAGED_HINT = f"if the file is damaged (cut short, or changed), copy it again; otherwise {_RESAVE_HINT}"


def _load_failure(exc: BaseException) -> tuple[str, str]:
    """What a failed safe load says about the file, and a hint; never torch's advice to load it unsafely.

    A file that is not tensors and plain containers (a pickled model, numpy arrays) and a
    damaged one both fail the safe unpickler, whose message suggests ``weights_only=False``:
    loading that way runs whatever code the file holds, so that advice is never passed on.
    """
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))  # torch's message even carries terminal colours
    unpickler = re.search(r"WeightsUnpickler error:\s*(.+)", text)
    if unpickler:
        reason = unpickler.group(1).strip()
        found = re.match(r"Unsupported global: GLOBAL (\S+)", reason)
        if found:
            return f"it holds {found.group(1)}, not tensors alone", _RESAVE_HINT
        detail = f"it does not unpickle ({reason.split('. ')[0].rstrip('.')[:120]})"
    else:
        detail = first_line(exc, limit=200).split(". ")[0].rstrip(".")
    if "weights_only" in detail or "safe_globals" in detail or "Weights only" in detail:
        detail = "it does not unpickle as tensors and plain containers"
    return detail, _DAMAGED_HINT


def counters(data: dict[str, Any], where: str) -> None:
    """Check the run counters of one of our checkpoints, so a damaged one is one line, not a ValueError."""
    for key, least in (("epoch", 0), ("step", 0), ("num_classes", 1)):
        value = data.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise WorkloadError(f"{where} is damaged: its {key!r} is {value!r}, not a whole number of {least} or more",
                                hint="restore a good copy, or move the file away to start afresh")


def model_state(data: dict[str, Any]) -> dict[str, torch.Tensor]:
    """The model's state dict inside a checkpoint (ours, or the common ``state_dict``/``model`` wrappers)."""
    for key in ("model", "state_dict", "model_state_dict"):
        inner = data.get(key)
        if isinstance(inner, dict):
            data = inner
            break
    state = {k: v for k, v in data.items() if isinstance(v, torch.Tensor)}
    prefix = "module."  # saved from a DistributedDataParallel wrapper
    if state and all(k.startswith(prefix) for k in state):
        state = {k[len(prefix):]: v for k, v in state.items()}
    return state


def head_classes(state: dict[str, torch.Tensor]) -> int | None:
    weight = state.get("fc.weight")
    return int(weight.shape[0]) if weight is not None and weight.dim() == 2 else None


def load_model(model: nn.Module, state: dict[str, torch.Tensor], source: str, ignore_head: bool = False) -> None:
    """Copy ``state`` into ``model``, or raise WorkloadError naming what does not match."""
    expected = model.state_dict()
    if ignore_head:
        state = {k: v for k, v in state.items() if not k.startswith("fc.")}
        expected = {k: v for k, v in expected.items() if not k.startswith("fc.")}
    missing = [k for k in expected if k not in state]
    unexpected = [k for k in state if k not in expected]
    if missing or unexpected:
        detail = []
        if missing:
            detail.append(f"{len(missing)} of {len(expected)} ResNet-50 tensors missing (e.g. {missing[0]})")
        if unexpected:
            detail.append(f"{len(unexpected)} unknown (e.g. {unexpected[0]})")
        raise WorkloadError(f"{source} is not a ResNet-50 checkpoint: {'; '.join(detail)}",
                            hint="give a torchvision resnet50 state dict, or a checkpoint cardbench wrote")
    wrong = [k for k, v in state.items() if tuple(v.shape) != tuple(expected[k].shape)]
    if wrong:
        key = wrong[0]
        if key.startswith("fc."):
            raise WorkloadError(
                f"{source} has a {head_classes(state)}-class head, this run has {head_classes(expected)} classes",
                hint="pass the same --num-classes as the run that wrote it")
        raise WorkloadError(
            f"{source} does not fit ResNet-50: {key} is {tuple(state[key].shape)}, "
            f"expected {tuple(expected[key].shape)}")
    model.load_state_dict(state, strict=not ignore_head)
