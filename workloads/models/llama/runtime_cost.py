"""What the runtime holds beside the model's own bytes, each a separate line of the fit (torch-free, issue 40 item 5).

The model's estimate (:mod:`workloads.models.llama.fit`) counts tensors; a card also holds:

- the **context**: the driver's state and the kernels it has loaded. PyTorch's CUDA context with lazy module loading
  (the default since CUDA 11.7) measured 287 MB (pytorch/pytorch#86509), "around 400MB" (ptrblck, #109888) and
  426 MiB on an RTX 6000 Ada with PyTorch 2.10 (unslothai/unsloth-zoo#1053); cuBLAS and attention kernels load on
  first use on top, so :data:`CONTEXT_BYTES` takes 512 MiB. Free memory read after the context exists (what a run
  on this device reads) already lacks it, so against that figure it is 0. The CPU has no driver, but a training
  step's first run leaves its own there (:data:`CPU_TRAINING_BYTES`): the backward's and AdamW's kernels paged in
  from torch's libraries and what the process keeps allocated after it (threads' buffers, caches), whatever the batch.
- the **allocator's reserve and fragmentation**: PyTorch's caching allocator rounds large blocks up to 2 MiB and
  splits segments it keeps, so what it reserves runs ahead of what is allocated; :data:`ALLOCATOR_SHARE` of the
  estimate is kept for it (an assumption the on-card two-sided check in bench/gpu_acceptance.py tests).
- **graph pools**: a decode step captured as a CUDA graph (or compiled with reduce-overhead) keeps its intermediates
  in a private pool for the graph's life: one decode step's activations and logits at the batch.
- the **collectives' buffers**, only when the work is split over several cards: NCCL's buffers (NCCL_BUFFSIZE,
  4 MiB by default, a channel and a direction, over up to 32 channels on NVLink) and, for a sharded model (FSDP),
  the layers gathered whole ahead of their use: two layers' weights and one layer's gradients.
"""

from __future__ import annotations

from dataclasses import dataclass

from workloads.models.llama.fit import prefill_values_per_token
from workloads.models.llama.presets import LlamaConfig

CONTEXT_BYTES = 512 * 2**20
# measured on tiny: 87 MiB of library pages and 102 MiB anonymous memory more after the first training step than after
# the model was built, at batches 1-3 alike (bench/train_step_peak.py); the finetune workload's own peak growth read
# 230 and 236 MiB above the rest of the plan at LoRA batches 2 and 3 (bench/fit_two_sided.py: what it imports and
# starts after its base reading besides); an inference step leaves 23 MiB, which the workspace line holds
CPU_TRAINING_BYTES = 240 * 2**20
ALLOCATOR_SHARE = 0.05
NCCL_BUFFER_BYTES = 4 * 2**20     # NCCL_BUFFSIZE's default
NCCL_CHANNELS = 32                # the most channels NCCL opens on NVLink-connected cards
GATHERED_LAYERS = 2               # FSDP gathers the next layer while one runs


@dataclass(frozen=True)
class Runtime:
    """The runtime's lines of one use of the model on one card (bytes)."""
    context: int = 0
    allocator: int = 0
    graph_pool: int = 0
    collectives: int = 0

    @property
    def total(self) -> int:
        return self.context + self.allocator + self.graph_pool + self.collectives


def layer_bytes(config: LlamaConfig, element_size: int) -> int:
    """One decoder layer's weights (the unit FSDP gathers)."""
    body = config.parameter_count() - config.vocab_size * config.hidden_size * (
        1 if config.tie_word_embeddings else 2) - config.hidden_size
    return body // config.num_hidden_layers * element_size


def graph_pool(config: LlamaConfig, batch: int, element_size: int) -> int:
    """One decode step's intermediates at ``batch`` (a token's at the MLP's peak, as a prefill counts them, and the
    logits' row in fp32), which a captured graph keeps in its own pool."""
    return batch * (prefill_values_per_token(config) * element_size + config.vocab_size * 4)


def collectives(config: LlamaConfig, cards: int, element_size: int, training: bool) -> int:
    """The buffers a card holds for its collectives when the work is split over ``cards`` (none on one card)."""
    if cards <= 1:
        return 0
    nccl = NCCL_CHANNELS * 2 * NCCL_BUFFER_BYTES
    gathered = GATHERED_LAYERS * layer_bytes(config, element_size) + (layer_bytes(config, 4) if training else 0)
    return nccl + gathered


def context_bytes(context: bool, inference: bool, cpu: bool) -> int:
    """The context line: a card's when the memory read still holds it; on the CPU a training step's own."""
    if cpu:
        return 0 if inference else CPU_TRAINING_BYTES
    return CONTEXT_BYTES if context else 0


def runtime(config: LlamaConfig, model_bytes: int, *, batch: int, element_size: int, inference: bool,
            context: bool, cards: int = 1, cpu: bool = False, allocator_share: float = ALLOCATOR_SHARE) -> Runtime:
    """The runtime's lines beside ``model_bytes`` of the model's estimate: the context when the memory it is read
    against still holds it (``cpu``: the host's memory, where training leaves its own), the allocator's
    ``allocator_share`` of the estimate, a decode graph's pool for inference on a card (the CPU captures no graph),
    collectives over cards."""
    return Runtime(context=context_bytes(context, inference, cpu),
                   allocator=int(model_bytes * allocator_share),
                   graph_pool=graph_pool(config, batch, element_size) if inference and not cpu else 0,
                   collectives=collectives(config, cards, element_size, training=not inference))
