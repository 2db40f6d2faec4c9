"""Model FLOPs per token, MFU and the memory fit of a fine-tuning step, from the model's shape (torch-free).

FLOPs follow PaLM (Chowdhery et al. 2022, arXiv:2204.02311, appendix B): a token of training costs
``6N + 12·L·H·Q·T`` matmul FLOPs, N the parameters of the matrix products, L layers, H heads, Q the
head dimension, T the sequence length; 6N is 2N forward, 2N for the activations' gradients and 2N
for the weights' gradients. LoRA computes every gradient of the activations but only the adapters'
weight gradients, so its cost is ``4N + 2·N_trainable + 12·L·H·Q·T`` (N including the adapters).
Recomputation under activation checkpointing is not counted: MFU counts the model's FLOPs, not the
hardware's (PaLM's point in defining it).

N leaves out an untied input embedding (a lookup, no product); a tied table is the logits head and counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from workloads.models.llama import fit
from workloads.models.llama.presets import LlamaConfig

# the LoRA count, the weights a step holds and its memory are the shared estimate's (one for llm's fit and
# finetune, issue 40); their names here are the ones finetune's modules and tests call
TARGETS = fit.TARGETS
product_shapes = fit.product_shapes
adapter_parameters = fit.lora_parameters
matmul_parameters = fit.matmul_parameters
frozen_in_bf16 = fit.frozen_in_bf16
held_weight_bytes = fit.held_weight_bytes
step_memory = fit.step_memory


@dataclass(frozen=True)
class Flops:
    per_token: float
    formula: str


def per_token(config: LlamaConfig, seq_len: int, mode: str, trainable: int = 0) -> Flops:
    """Training FLOPs of one token at ``seq_len`` (PaLM appendix B), with the formula filled in as text."""
    n = matmul_parameters(config) + (trainable if mode == "lora" else 0)
    L, H, Q, T = config.num_hidden_layers, config.num_attention_heads, config.head_dim, seq_len
    attention = 12 * L * H * Q * T
    if mode == "lora":
        total = 4 * n + 2 * trainable + attention
        formula = (f"4N + 2N_trainable + 12·L·H·Q·T = 4·{n:,} + 2·{trainable:,} + 12·{L}·{H}·{Q}·{T} "
                   f"= {total:,} FLOP/token (PaLM appendix B; LoRA: weight gradients of the adapters only)")
    else:
        total = 6 * n + attention
        formula = f"6N + 12·L·H·Q·T = 6·{n:,} + 12·{L}·{H}·{Q}·{T} = {total:,} FLOP/token (PaLM appendix B)"
    return Flops(float(total), formula)


def mfu(tokens_per_s_per_device: float | None, flops_per_token: float, rated_tflops: float | None) -> float | None:
    if not tokens_per_s_per_device or not rated_tflops:
        return None
    return tokens_per_s_per_device * flops_per_token / (rated_tflops * 1e12)


def largest_batch(fits_in: int, estimate_at: Callable[[int], int]) -> int:
    """The largest batch whose ``estimate_at(batch)`` bytes are at most ``fits_in`` (0: not even one)."""
    if estimate_at(1) > fits_in:
        return 0
    low, high = 1, 2
    while estimate_at(high) <= fits_in and high < 1 << 20:
        low, high = high, high * 2
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if estimate_at(mid) <= fits_in else (low, mid)
    return low
