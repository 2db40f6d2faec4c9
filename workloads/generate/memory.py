"""What a generate run will hold in memory, estimated before anything is allocated, against what is free.

A batch or a shape too large for the device otherwise ends on the allocator's raw line ("you tried to
allocate 2123366400000 bytes") after seconds of set-up, or not at all when the kernel ends the process.
The estimate is on the low side (the largest tensors only), so a run it lets through may still run out
of memory, but one it refuses would not have fitted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workloads.child.device import free_bytes
from workloads.child.harness import WorkloadError
from workloads.models.gpt2.config import GPT2Config


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


def _gib(n: float) -> str:
    return f"{n / 2**30:,.1f} GiB" if n >= 2**30 else f"{n / 2**20:,.0f} MiB"


def check_fits(config: GPT2Config, size: str, batch: int, prompt_len: int, tokens: int, dtype: str,
               element_size: int, device: Any) -> Estimate:
    """Refuse (bad input) a run whose estimate is above the device's free memory; returns the estimate."""
    need = estimate(config, batch, prompt_len, tokens, element_size)
    free = free_bytes(device)
    if free is not None and need.total > free:
        raise WorkloadError(
            f"GPT-2 {size} in {dtype} at batch {batch} x {prompt_len + tokens} positions needs about "
            f"{_gib(need.total)} (weights {_gib(need.weights)}, KV cache {_gib(need.kv_cache)}, activations "
            f"{_gib(need.activations)}); {device} has {_gib(free)} free",
            hint="lower --batch-size, --tokens or --prompt-len, or " + (
                "use a smaller model than the --weights config.json describes" if size == "custom"
                else "pick a smaller --model-size"))
    return need
