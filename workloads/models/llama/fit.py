"""Will a model fit: memory estimated from its shape alone, for inference and for training (torch-free).

Inference holds the weights, the KV cache of every position of every sequence, the prefill's
transient activations and a fixed workspace. The activations are the tensors alive at once at the
prefill's peak, inside a block's MLP (:func:`prefill_values_per_token`): ``3 x hidden + 4 x intermediate``
values a prompt token (the block's input, which the caller's loop still holds, the residual after attention
and its norm; gate and up, silu(gate) and their product), plus one row of logits a sequence. The attention's
tensors (q/k/v, the rotated q and k, its output) peak lower wherever the MLP is wider than the model, as in
every Llama-family preset. The count is of live tensors, what a card's allocator hands out: checked against
the peak RSS with every allocation of 64 KiB or more its own mapping, so RSS follows the live tensors
(bench/fit_two_sided.py's default): tiny at batch 2-10 x 960 prompt tokens, 32.06 MB a sequence measured
(7,258 values a token beside the 4 MiB of KV cache), 31.75 MB by this count. What an allocator keeps beside
them is the runtime's line (:mod:`workloads.models.llama.runtime_cost`); glibc's default kept 11,290 values
a token at 2,048 tokens, and this estimate counted that (``4 x hidden + (q + 2 kv) + 6 x intermediate``)
until 2026-12-07, a sequence 45 % too many against the live tensors. The workspace
(:data:`WORKSPACE_BYTES`) is what the math libraries hold however small the model (5-8 MiB on the CPU
here; cuBLAS's workspace on a GPU).

Training is counted as `cardbench finetune` runs it (:func:`step_memory`, the one training estimate llm's fit
and finetune share): fp32 master weights and the 16-bit copies autocast makes of them, fp32 gradients and
AdamW's two fp32 moments of what trains, and the activations kept for the backward pass: per token and layer, the
inputs of every product and norm (``4 x hidden + 2 x q + 2 x kv + 4 x intermediate`` values, after
Korthikanti et al. 2022, "Reducing Activation Recomputation", without dropout or attention scores as
SDPA keeps none), or with activation checkpointing each block's input only plus one block recomputed;
the loss on top: the gradient of the final hidden states a token (the head and its cross-entropy are fused over
chunks of tokens, :mod:`workloads.models.chunked_loss`). Beside what is kept, a step peaks above it for a moment
(:func:`step_transient`, its own line): the larger of the fused loss's chunk (formed while every kept activation is
held), the gradients the backward forms inside one block, and AdamW's temporaries (when the activations are gone).
Measured on the CPU (bench/train_step_peak.py, tiny, fp32, every tensor its own mapping so RSS follows the live
tensors): autograd kept 153 MiB a 1,024-token sequence against 144 MiB counted, and the peak sat 68 MiB above it in
the loss's chunk (64 MiB counted); the backward added 9 MiB a sequence at most (18.5 counted), AdamW 48 MiB on
full fine-tuning (75 counted). LoRA freezes
the weights (no gradient, no moments; held in bf16 under bf16 autocast) and trains rank-r adapters on the four
products of a layer finetune wraps (:func:`lora_parameters`).

Both count the host objects the model is built of (:func:`module_bytes`): each ``nn.Module`` and each
parameter is a few hundred bytes to a few KB of Python and tensor bookkeeping whatever its width, so a
config of 10^6 layers of width 2 holds 128 MB of tensors and ~25 GB of modules (measured here: 25.4 KB
a layer of nine modules and six parameters, 32.3 KB with q/k norms and biases: ~2.3 KB a module and ~0.76 KB
a parameter; the constants below count 2% under, so a shape refused by them would not have been built).

The inference estimate is checked against the peak the workload measures (tests/workloads/llm).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from workloads.models.llama.presets import LlamaConfig
from workloads.models.loss_chunk import peak_bytes as loss_peak_bytes

ADAMW_STATE_BYTES = 8   # two fp32 moments a parameter
ADAMW_TEMPORARY_BYTES = 4   # foreach AdamW's square roots of the second moments, formed for every parameter at once
GRADIENT_BYTES = 4      # gradients of the fp32 master weights are fp32
LORA_RANK = 16
# the products a LoRA adapter can wrap (workloads/models/llama/model.py): q, k, v are one product, as gate and up
TARGETS = ("qkv", "o_proj", "gate_up", "down_proj")
WORKSPACE_BYTES = 8 * 2**20
MODULE_BYTES = 2300     # one nn.Module on the host: its object, __dict__ and the ordered dicts of its members
PARAMETER_BYTES = 700   # one parameter's Python object and tensor bookkeeping, its data counted apart


@dataclass(frozen=True)
class Estimate:
    weights: int
    kv_cache: int = 0
    activations: int = 0
    gradients: int = 0
    optimizer: int = 0
    workspace: int = WORKSPACE_BYTES
    modules: int = 0        # the module and parameter objects on the host (module_bytes)
    transient: int = 0      # a training step's moment above what it keeps (step_transient)

    @property
    def total(self) -> int:
        return (self.weights + self.kv_cache + self.activations + self.gradients + self.optimizer + self.workspace
                + self.modules + self.transient)


def module_bytes(config: LlamaConfig) -> int:
    """Host bytes of the objects :class:`workloads.models.llama.model.Llama` is built of, before any weight: per layer a
    block, two norms, attention, its two products, the MLP and its two (nine modules), six parameters, and q/k
    norms and a q/k/v bias where the family has them; the decoder, its layer list and final norm on top."""
    modules, parameters = 9, 6
    if config.qk_norm:
        modules, parameters = modules + 2, parameters + 2
    if config.attention_bias:
        parameters += 1
    top = 3 * MODULE_BYTES + (3 if not config.tie_word_embeddings else 2) * PARAMETER_BYTES
    return top + config.num_hidden_layers * (modules * MODULE_BYTES + parameters * PARAMETER_BYTES)


def prefill_values_per_token(config: LlamaConfig) -> int:
    """Values a token alive at once at a forward's peak without autograd, in a block's MLP (model.py's Block and
    MLP): the block's input (the caller's loop holds it), the residual after attention, its norm, gate and up (one
    product), silu(gate) and silu(gate) x up."""
    return 3 * config.hidden_size + 4 * config.intermediate_size


def inference(config: LlamaConfig, batch: int, context: int, prefill: int, element_size: int) -> Estimate:
    """Bytes for ``batch`` sequences of ``context`` positions whose prompts of ``prefill`` tokens run at once."""
    per_token = prefill_values_per_token(config)
    activations = batch * prefill * per_token * element_size + batch * config.vocab_size * element_size
    return Estimate(weights=config.parameter_count() * element_size,
                    kv_cache=batch * context * config.kv_bytes_per_token(element_size),
                    activations=activations, modules=module_bytes(config))


def activations(config: LlamaConfig, batch: int, seq_len: int, element_size: int, checkpointing: bool) -> int:
    """Bytes a training step keeps for the backward pass (see the module's docstring), the fused loss's on top."""
    d, f, layers = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    q = config.num_attention_heads * config.head_dim
    kv = config.num_key_value_heads * config.head_dim
    block = 4 * d + 2 * q + 2 * kv + 4 * f
    kept = layers * d + block if checkpointing else layers * block
    # the fused loss (models/chunked_loss.py) keeps the gradient of the final hidden states for the backward pass, never
    # the (tokens x vocabulary) logits (5.1 GB at 4,224 tokens of Qwen2.5-7B); its chunk is step_transient's
    return batch * seq_len * (kept + d) * element_size


def step_transient(config: LlamaConfig, batch: int, seq_len: int, element_size: int, trained: int, kept: int) -> int:
    """Bytes a training step holds for a moment above its ``kept`` activations, gradients and moments: the largest of
    the fused loss's chunk (:func:`workloads.models.loss_chunk.peak_bytes`) and the gradients the backward forms inside
    one block besides what is still kept (gate and up's, 2 x intermediate, the down product's input's, intermediate,
    and the residual's, hidden, a token), both while the activations are held; and AdamW's step, once they are freed:
    foreach (a card's default; PyTorch's docs say it trades peak memory for speed) forms the square root of every
    second moment at once, 4 bytes a ``trained`` parameter, of which only what passes the freed activations is more."""
    tokens = batch * seq_len
    loss = loss_peak_bytes(tokens, config.vocab_size, element_size)
    backward = tokens * (3 * config.intermediate_size + config.hidden_size) * element_size
    return max(loss, backward, trained * ADAMW_TEMPORARY_BYTES - kept)


def split_over(e: Estimate, cards: int, config: LlamaConfig, batch: int, seq_len: int, element_size: int) -> Estimate:
    """What one of ``cards`` holds of ``e`` with the work split evenly (FSDP): weights, KV cache, gradients, moments and
    AdamW's temporaries sharded; the activations, the loss's chunk and a block's gradients each card's whole."""
    if cards <= 1:
        return e
    trained = -(-e.gradients // GRADIENT_BYTES // cards)
    transient = step_transient(config, batch, seq_len, element_size, trained, e.activations) if e.transient else 0
    return Estimate(weights=-(-e.weights // cards), kv_cache=-(-e.kv_cache // cards), activations=e.activations,
                    gradients=-(-e.gradients // cards), optimizer=-(-e.optimizer // cards), workspace=e.workspace,
                    modules=e.modules, transient=transient)


def product_shapes(config: LlamaConfig) -> dict[str, tuple[int, int]]:
    """(in, out) of each product of one layer an adapter can wrap: q, k, v are one product here, as gate and up
    (workloads/models/llama/model.py)."""
    d, f = config.hidden_size, config.intermediate_size
    q = config.num_attention_heads * config.head_dim
    kv = config.num_key_value_heads * config.head_dim
    return {"qkv": (d, q + 2 * kv), "o_proj": (q, d), "gate_up": (d, 2 * f), "down_proj": (f, d)}


def lora_parameters(config: LlamaConfig, rank: int = LORA_RANK, targets: tuple[str, ...] = TARGETS) -> int:
    """Adapter parameters as `cardbench finetune` builds them (workloads/finetune/lora.py): A (r x in) and B (out x r)
    on each targeted product of every layer, q/k/v one product and gate/up one. peft on a transformers model wraps
    q, k, v, gate and up apart, five more A matrices a layer: 40.4 M against these 35.55 M for Qwen2.5-7B at r16."""
    shapes = product_shapes(config)
    return config.num_hidden_layers * sum(rank * (n_in + n_out) for name, (n_in, n_out) in shapes.items()
                                          if name in targets)


def matmul_parameters(config: LlamaConfig) -> int:
    """Parameters of the matrix products: every one but an untied input embedding table (a lookup, no product)."""
    lookup = 0 if config.tie_word_embeddings else config.vocab_size * config.hidden_size
    return config.parameter_count() - lookup


def frozen_in_bf16(mode: str, amp: str) -> bool:
    """LoRA under bf16 autocast holds its frozen base in bf16 (lora.hold_frozen_in): its weights never update."""
    return mode == "lora" and amp == "bf16"


def held_weight_bytes(config: LlamaConfig, mode: str, amp: str, rank: int, targets: tuple[str, ...]) -> int:
    """Bytes of the parameters the model holds: fp32 (the master copy autocast reads), but a LoRA base in bf16
    under bf16 autocast; LoRA's adapters are fp32 on top."""
    adapters = lora_parameters(config, rank, targets) if mode == "lora" else 0
    return config.parameter_count() * (2 if frozen_in_bf16(mode, amp) else 4) + adapters * 4


def step_memory(config: LlamaConfig, batch: int, seq_len: int, amp: str, mode: str, checkpointing: bool,
                rank: int = LORA_RANK, targets: tuple[str, ...] = TARGETS) -> Estimate:
    """Bytes one device holds for a fine-tuning step of ``batch`` sequences as `cardbench finetune` runs it (``amp``:
    off, fp16 or bf16): the weights as held (:func:`held_weight_bytes`) and the 16-bit copies autocast makes of fp32
    ones for the step, fp32 gradients and AdamW moments of what trains, activations in the autocast dtype."""
    trained = config.parameter_count() if mode == "full" else lora_parameters(config, rank, targets)
    weights = held_weight_bytes(config, mode, amp, rank, targets)
    autocast = amp != "off"
    # autocast keeps a 16-bit copy of each fp32 weight for the step; a base already in bf16 is read as it is
    cast = (trained if frozen_in_bf16(mode, amp) else config.parameter_count()) * 2 if autocast else 0
    element_size = 2 if autocast else 4
    kept = activations(config, batch, seq_len, element_size, checkpointing)
    return Estimate(weights=weights + cast, activations=kept, gradients=trained * GRADIENT_BYTES,
                    optimizer=trained * ADAMW_STATE_BYTES,
                    transient=step_transient(config, batch, seq_len, element_size, trained, kept))


def training(config: LlamaConfig, batch: int, seq_len: int, element_size: int, method: str = "full",
             checkpointing: bool = False, rank: int = LORA_RANK) -> Estimate:
    """Bytes for one AdamW step of ``method`` ("full" or "lora") on ``batch`` sequences of ``seq_len`` tokens, as
    `cardbench finetune` runs it in a 16-bit dtype (fp32 master weights under bf16 autocast) or in fp32; the
    host's module objects on top (the one estimate llm's fit and finetune share, issue 40)."""
    amp = "off" if element_size >= 4 else "bf16"
    e = step_memory(config, batch, seq_len, amp, method, checkpointing, rank)
    return Estimate(weights=e.weights, activations=e.activations, gradients=e.gradients, optimizer=e.optimizer,
                    modules=module_bytes(config), transient=e.transient)


def largest_batch(config: LlamaConfig, context: int, prefill: int, element_size: int, free: int) -> int:
    """The most sequences of ``context`` positions that fit in ``free`` bytes (0: not even one)."""
    one = inference(config, 1, context, prefill, element_size)
    per_sequence = one.kv_cache + one.activations
    room = free - one.weights - one.workspace - one.modules
    return max(0, room // per_sequence) if per_sequence else 0


def largest_context(config: LlamaConfig, batch: int, element_size: int, free: int) -> int:
    """The longest context (prompt and output, the prompt prefilled at once) ``batch`` sequences fit in."""
    low, high = 0, config.max_position_embeddings
    while low < high:
        mid = (low + high + 1) // 2
        if inference(config, batch, mid, mid, element_size).total <= free:
            low = mid
        else:
            high = mid - 1
    return low


def cards_needed(total: int, card_bytes: int) -> int:
    """Cards of ``card_bytes`` whose memory together holds ``total`` (the model split evenly across them)."""
    return max(1, math.ceil(total / card_bytes)) if card_bytes > 0 else 0


def fit_table(config: LlamaConfig, batch: int, context: int, prefill: int, element_size: int,
              free: int | None) -> list[dict]:
    """One row per way of using the model: its estimate, and against ``free`` bytes the verdict and cards."""
    cases = [("inference", inference(config, batch, context, prefill, element_size))]
    for method in ("full", "lora"):
        for ckpt in (False, True):
            name = f"train {'AdamW full' if method == 'full' else f'LoRA r{LORA_RANK}'}" + (
                ", activation checkpointing" if ckpt else "")
            cases.append((name, training(config, batch, context, element_size, method, ckpt)))
    rows = []
    for name, e in cases:
        rows.append({"use": name, "total_bytes": e.total, "weights_bytes": e.weights, "kv_cache_bytes": e.kv_cache,
                     "activations_bytes": e.activations, "gradients_bytes": e.gradients,
                     "optimizer_bytes": e.optimizer, "workspace_bytes": e.workspace, "modules_bytes": e.modules,
                     "transient_bytes": e.transient,
                     "fits": None if free is None else e.total <= free,
                     "cards": None if not free else cards_needed(e.total, free)})
    return rows
