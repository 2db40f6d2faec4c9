"""What a generate run will hold in memory (:mod:`workloads.models.gpt2.fit`), before anything is allocated, against
what is free.

A batch or a shape too large for the device otherwise ends on the allocator's raw line ("you tried to
allocate 2123366400000 bytes") after seconds of set-up, or not at all when the kernel ends the process.
The estimate is on the low side (the largest tensors only), so a run it lets through may still run out
of memory, but one it refuses would not have fitted.
"""

from __future__ import annotations

from typing import Any

from workloads.child.device import free_bytes
from workloads.child.harness import WorkloadError
from workloads.facts.formatting import format_bytes
from workloads.models.gpt2.config import GPT2Config
from workloads.models.gpt2.fit import Estimate, estimate


def check_fits(config: GPT2Config, size: str, batch: int, prompt_len: int, tokens: int, dtype: str,
               element_size: int, device: Any) -> Estimate:
    """Refuse (bad input) a run whose estimate is above the device's free memory; returns the estimate."""
    need = estimate(config, batch, prompt_len, tokens, element_size)
    free = free_bytes(device)
    if free is not None and need.total > free:
        raise WorkloadError(
            f"GPT-2 {size} in {dtype} at batch {batch} x {prompt_len + tokens} positions needs about "
            f"{format_bytes(need.total)} (weights {format_bytes(need.weights)}, KV cache "
            f"{format_bytes(need.kv_cache)}, "
            f"activations {format_bytes(need.activations)}); {device} has {format_bytes(free)} free",
            hint="lower --batch-size, --tokens or --prompt-len, or " + (
                "use a smaller model than the --weights config.json describes" if size == "custom"
                else "pick a smaller --model-size"))
    return need
