"""What a generate run will hold in memory, estimated before anything is allocated, against what is free.

A batch or a shape too large for the device otherwise ends on the allocator's raw line ("you tried to
allocate 2123366400000 bytes") after seconds of set-up, or not at all when the kernel ends the process.
The estimate is on the low side (the largest tensors only), so a run it lets through may still run out
of memory, but one it refuses would not have fitted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workloads.child.harness import WorkloadError
from workloads.facts.formatting import format_bytes
from workloads.generate.config import GPT2Config


@dataclass(frozen=True)
class Estimate:
    weights: int
    kv_cache: int
    activations: int

    @property
    def total(self) -> int:
        return self.weights + self.kv_cache + self.activations


def estimate(config: GPT2Config, batch: int, prompt_len: int, tokens: int, element_size: int) -> Estimate:
    """Bytes of the weights, the KV cache (every position of the run) and the prefill's largest activations."""
    c, v = config.n_embd, config.vocab_size
    per_layer = 12 * c * c + 13 * c  # attention (qkv, out) and MLP (4x) weights with their biases, two norms
    parameters = v * c + config.n_ctx * c + config.n_layer * per_layer + 2 * c
    kv = 2 * config.n_layer * batch * (prompt_len + tokens) * c * element_size
    # prefill: the residual, its norm, q/k/v and the MLP's 4x hidden before and after GELU; then the logits
    activations = batch * prompt_len * 13 * c * element_size + batch * v * element_size
    return Estimate(parameters * element_size, kv, activations)


def free_bytes(device: Any) -> int | None:
    """Memory free on ``device`` now (the host's available RAM for the CPU); None where it cannot be told."""
    try:
        if device.type == "cpu":
            import psutil

            return int(psutil.virtual_memory().available)
        import torch

        backend = getattr(torch, device.type, None)
        info = getattr(backend, "mem_get_info", None)
        return int(info(device)[0]) if info is not None else None
    except Exception:  # noqa: BLE001 - no figure, no check: the allocator still has its say
        return None


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
