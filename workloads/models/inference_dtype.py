"""Which dtype a model runs inference in on a device (generate's and llm's ``--dtype``), checked by running a tiny
GPT-2 in it first.

A new accelerator behind a compatibility layer may lack kernels for bf16 or
fp16; asking for one it cannot run must end with a one-line error before the
real model is built, and ``--dtype auto`` must step down with a fallback event.
"""

from __future__ import annotations

import torch

from workloads.child import device as dev
from workloads.child.harness import WorkloadError
from workloads.errors import first_line
from workloads.hints import hint_for
from workloads.models.gpt2.config import SIZES
from workloads.models.gpt2.model import GPT2, KVCache

DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
NAMES = {dtype: name for name, dtype in DTYPES.items()}   # torch.float32 -> fp32, as --dtype says it


def probe(device: torch.device, name: str) -> str | None:
    """None when a tiny GPT-2 prefill and decode step run in ``name`` on ``device``, else the error."""
    config = SIZES["tiny"]
    try:
        with torch.inference_mode():
            model = GPT2(config).to(device=device, dtype=DTYPES[name])
            model.init_random(0)
            cache = KVCache(config, 1, 8, DTYPES[name], device)
            idx = torch.zeros(1, 4, dtype=torch.long, device=device)
            logits = model(idx, cache, 0, last_only=True)
            model(logits.argmax(-1), cache, 4)
            dev.synchronize(device)
    except Exception as exc:  # noqa: BLE001 - any failure means the dtype does not run here
        return first_line(exc)
    return None


def pick(choice: str, device: torch.device) -> tuple[str, list[tuple[str, str]]]:
    """The dtype to run and the (dtype, error) of each one 'auto' passed over.

    ``choice`` itself if it runs (else WorkloadError); for 'auto', fp32 on the
    CPU, elsewhere the first of bf16, fp16, fp32 that runs.
    """
    if choice != "auto":
        error = probe(device, choice)
        if error is not None:
            raise WorkloadError(f"--dtype {choice} does not run on {device}: {error}",
                                hint=hint_for(error) or "try --dtype fp32")
        return choice, []
    if device.type == "cpu":
        return "fp32", []
    skipped = []
    for name in ("bf16", "fp16"):
        error = probe(device, name)
        if error is None:
            return name, skipped
        skipped.append((name, error))
    return "fp32", skipped
