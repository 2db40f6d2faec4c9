"""Will a GPT-2 run fit: the bytes of its largest tensors, from the shape alone (torch-free).

On the low side (the largest tensors only): a run the estimate lets through may still run out of memory, but one
it refuses (generate's check, :mod:`workloads.generate.memory`) would not have fitted.
"""

from __future__ import annotations

from dataclasses import dataclass

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
