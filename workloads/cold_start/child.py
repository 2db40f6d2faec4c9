"""A cold start's child, the part llm's and finetune's share: the stamps it writes, the first context on the device,
the weights written for a preset and read back (`workloads.cold_start` is the parent's side).

The child is a fresh ``python -m`` of the workload's own module, started by the workload's process with the same
interpreter and environment. It writes one JSON line on stdout per phase ended, stamped with the wall clock
(``time.time()``: ``perf_counter`` counts from an origin each process picks), and its log lines on stderr, which the
parent leaves on its own (run.log). A failure is one ``error`` line and exit 1; the parent keeps every phase stamped
before it.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Callable

import torch

from workloads.child import device as dev
from workloads.child.parent import die_with_parent
from workloads.errors import WorkloadError, first_line
from workloads.models.inference_dtype import DTYPES
from workloads.models.llama.model import Llama
from workloads.models.llama.presets import LlamaConfig, preset
from workloads.models.state_dict import read_state_dict


class Stamper:
    """The child's lines to its parent: a phase's end, a note (what it found), an error."""

    def __init__(self, stream: Any = None):
        self._stream = stream if stream is not None else sys.stdout

    def _write(self, line: dict[str, Any]) -> None:
        self._stream.write(json.dumps(line) + "\n")
        self._stream.flush()

    def phase(self, name: str, at: float | None = None) -> None:
        self._write({"phase": name, "at": time.time() if at is None else at})

    def note(self, **found: Any) -> None:
        self._write({"note": found})

    def error(self, line: str) -> None:
        self._write({"error": line})


def child_main(body: Callable[[dict[str, Any], Stamper], None], started: float, imported: float) -> int:
    """The child's life: the request (argv[1], JSON) read, tied to its parent, ``body`` run; the exit status.
    ``started`` and ``imported`` are the wall clock at the module's first line and after ``import torch``."""
    stamper = Stamper()
    try:
        request = json.loads(sys.argv[1])
        die_with_parent(request.get("parent"))  # a killed workload leaves no cold start holding the card
        stamper.phase("python", started)
        stamper.phase("imported", imported)
        body(request, stamper)
        return 0
    except Exception as exc:  # noqa: BLE001 - the child's boundary: one line for the parent, the trace in run.log
        traceback.print_exc(file=sys.stderr)
        stamper.error(first_line(exc, typed=not isinstance(exc, WorkloadError)))
        return 1


def first_context(device: torch.device) -> None:
    """The device's first context: a tiny tensor made on it and the device synchronised (nothing on the CPU but the
    allocation)."""
    torch.ones(1, device=device).add_(1)
    dev.synchronize(device)


def config_of(request: dict[str, Any]) -> LlamaConfig:
    """The model's shape: the checkpoint's config.json, else the preset's."""
    if request.get("weights_dir"):
        from workloads.models.llama.hf_config import read_config

        return read_config(Path(request["weights_dir"]))
    config = preset(request["model"])
    if config is None:
        raise ValueError(f"unknown model {request['model']!r}")
    return config


def write_preset(config: LlamaConfig, dtype: torch.dtype, seed: int, path: Path) -> int:
    """A preset's random weights (`Llama.init_random`, as a run draws them) written to ``path`` in the model's own
    layout and flushed to the disk, so that its pages are clean and can be dropped from the page cache; its bytes."""
    model = Llama(config).to(dtype)
    model.init_random(seed)
    with open(path, "wb") as f:
        torch.save(model.state_dict(), f)
        f.flush()
        os.fsync(f.fileno())
    del model
    return path.stat().st_size


def read_weights(request: dict[str, Any]) -> tuple[dict[str, torch.Tensor], bool]:
    """Every tensor of the weights into host memory, and whether they are a Hugging Face checkpoint's (its names and
    layout) rather than a written preset's (the model's own)."""
    if request.get("weights_dir"):
        return read_state_dict(Path(request["weights_dir"])), True
    return torch.load(request["weights_file"], map_location="cpu", weights_only=True), False


def load_into(model: Llama, state: dict[str, torch.Tensor], hugging_face: bool, source: str) -> None:
    """The weights read copied into the model on its device."""
    if hugging_face:
        from workloads.models.llama.checkpoint import load_state_dict

        load_state_dict(model, state, source)
    else:
        with torch.no_grad():
            model.load_state_dict(state, strict=True)


def prepare(request: dict[str, Any], stamper: Stamper, dtype_of: Callable[[torch.device], str]) -> None:
    """The preparing child (not timed): the device resolved, the dtype picked (``dtype_of``), a preset's weights
    written to the request's ``write`` path; each said in a note for the start event and the measured child."""
    device = dev.resolve(request.get("device"))
    dtype_name = dtype_of(device)
    found: dict[str, Any] = {"device": str(device), "device_name": dev.name(device), "versions": dev.versions(),
                             "dtype": dtype_name}
    if request.get("write"):
        found["written_bytes"] = write_preset(config_of(request), DTYPES[dtype_name], int(request.get("seed", 0)),
                                              Path(request["write"]))
    stamper.note(**found)
