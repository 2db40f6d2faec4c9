"""Which files a checkpoint directory may have opened: its own regular files, whatever its index or links name.

Torch-free, so llm's and finetune's argument checks refuse a bad ``--weights`` (a shard index naming
``../../etc/passwd``, ``/dev/zero``, a FIFO that blocks the read forever, another checkpoint's shard) in one line
before torch is imported or a run directory exists; `workloads.models.state_dict` reads only what this returns.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from workloads.child.harness import WorkloadError
from workloads.errors import first_line
from workloads.facts.formatting import format_bytes
from workloads.safe_text import file_name, one_line

SAFETENSORS = "model.safetensors"
SAFETENSORS_INDEX = "model.safetensors.index.json"
TORCH_BIN = "pytorch_model.bin"

# what no real checkpoint exceeds: DeepSeek-V3's index (91,000 names) is 9 MB; the package caps a header at 100 MB
_MAX_INDEX_BYTES = 64 << 20
_HINT_FOREIGN = "a checkpoint's index and links may name only regular files inside its directory"
_KINDS = {stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
          stat.S_IFSOCK: "a socket", stat.S_IFDIR: "a directory"}


def weights_files(directory: Path) -> list[Path]:
    """The checkpoint file(s) in ``directory``, safetensors first, each resolved: only a regular file inside the
    directory (links followed) is ever opened, whatever its index names: an index is someone else's text, and a
    name like ``../../etc/passwd``, ``/dev/zero``, a FIFO (blocks the read forever) or another checkpoint's shard
    (loads and runs "ok") is refused in one line."""
    return [real for _, real in checkpoint_files(directory)]


def checkpoint_files(directory: Path) -> list[tuple[Path, Path]]:
    """(the name in ``directory``, the file it resolves to) of each checkpoint file; the name says the format
    (a hub cache's blobs have none) and is what a message shows."""
    if not directory.is_dir():
        why = "is not a directory" if directory.exists() else "does not exist"
        raise WorkloadError(f"weights directory {str(directory)!r} {why}",
                            hint="--weights takes a local Hugging Face GPT-2 directory")
    index = _own_file(directory, SAFETENSORS_INDEX, file_name(directory / SAFETENSORS_INDEX))
    if index is not None:
        where = file_name(directory / SAFETENSORS_INDEX)
        return [(directory / name, _inside(directory, name, f"{where}: shard {_shown(name)}"))
                for name in _shard_names(index, where)]
    for name in (SAFETENSORS, TORCH_BIN):
        found = _own_file(directory, name, file_name(directory / name))
        if found is not None:
            return [(directory / name, found)]
    raise WorkloadError(f"no {SAFETENSORS} or {TORCH_BIN} in {directory}",
                        hint="--weights takes a local Hugging Face GPT-2 directory")


def _roots(directory: Path) -> tuple[Path, ...]:
    """Where a checkpoint's files may resolve to: its directory, and for a Hugging Face hub cache snapshot
    (``models--X/snapshots/REV/``, whose files are links to ``../../blobs/HASH``) that repository's blobs."""
    root = directory.resolve()
    return (root, root.parent.parent / "blobs") if root.parent.name == "snapshots" else (root,)


def _own_file(directory: Path, name: str, what: str) -> Path | None:
    """``directory / name`` resolved and checked by :func:`_inside`; None when there is nothing of that name."""
    return _inside(directory, name, what) if os.path.lexists(directory / name) else None


def _inside(directory: Path, name: str, what: str) -> Path:
    """``directory / name`` with its links resolved, when that is a regular file inside ``directory`` (see
    :func:`_roots`); else WorkloadError. Nothing outside is stat'ed, and nothing is opened here."""
    shown = file_name(directory)
    try:
        real = Path(os.path.realpath(directory / name))
        if not any(real.is_relative_to(root) for root in _roots(directory)):
            raise WorkloadError(f"{what} is outside {shown} (it leads to {file_name(real)})", hint=_HINT_FOREIGN)
        mode = real.stat().st_mode
    except FileNotFoundError:
        raise WorkloadError(f"{what} is not in {shown}", hint=_HINT_FOREIGN) from None
    except (OSError, ValueError) as exc:  # a loop of links, a NUL in the name, a directory that denies us
        raise WorkloadError(f"{what}: {first_line(exc)}", hint=_HINT_FOREIGN) from None
    if not stat.S_ISREG(mode):
        raise WorkloadError(f"{what} is not a regular file ({_KINDS.get(stat.S_IFMT(mode), 'not a file')})",
                            hint=_HINT_FOREIGN)
    return real


def _shard_names(index: Path, where: str) -> list[str]:
    """The distinct shard names of a ``model.safetensors.index.json``'s weight_map, sorted; each a string."""
    try:
        with open(index, "rb") as f:
            text = f.read(_MAX_INDEX_BYTES + 1)
        if len(text) > _MAX_INDEX_BYTES:
            raise ValueError(f"over {format_bytes(_MAX_INDEX_BYTES)}, which no index needs")
        weight_map = json.loads(text)["weight_map"]
        if not isinstance(weight_map, dict):
            raise ValueError("its weight_map is not a JSON object")
    except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
        raise WorkloadError(f"cannot read {where}: {first_line(exc, typed=isinstance(exc, KeyError), limit=200)}",
                            hint="a damaged or edited model.safetensors.index.json") from None
    for name in weight_map.values():
        if not isinstance(name, str) or name in ("", ".") or "\x00" in name:
            raise WorkloadError(f"{where}: shard {_shown(name)} is not a file name", hint=_HINT_FOREIGN)
    return sorted(set(weight_map.values()))


def _shown(value: Any) -> str:
    """A value from an index as JSON (so an escape in it is shown, not obeyed), cut short."""
    return one_line(json.dumps(value) if isinstance(value, (str, int, float, bool, type(None))) else
                    f"<a JSON {type(value).__name__}>", limit=120)


def check_files(directory: Path) -> None:
    """WorkloadError (exit 2) now, at the argument check, for a checkpoint whose index or links name anything but a
    regular file inside it; the files are read later. A directory with no checkpoint file yet is left to the load
    to say (its other checks, the tokenizer's, come first)."""
    if any(os.path.lexists(directory / name) for name in (SAFETENSORS_INDEX, SAFETENSORS, TORCH_BIN)):
        weights_files(directory)
