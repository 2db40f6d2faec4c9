"""``--gpus N`` with random weights: the model built on the meta device, sharded, then materialised shard by shard.

FSDP2's documented pattern (the ``fully_shard`` docs and torchtitan's train.py): construct the model under
``torch.device("meta")`` (shapes, no storage), ``fully_shard`` each block and the root, then
``to_empty(device=...)`` allocates each rank's 1/N shard and the weights are initialised in place. So an
8B full fine-tune never holds the whole fp32 model (32 GB) on a rank, in host or device memory: the largest
full-size tensor at any moment is one parameter (the embedding or the head), drawn on the device and cut
to the rank's shard.

Each full parameter is drawn with the generator, order and rule of :meth:`Llama.init_random`, and each LoRA
adapter with :func:`lora.draw` from the reseeded global generator, as the single process draws them: the
sharded model starts from exactly the single process's weights (tests/workloads/finetune holds 2 ranks'
loss after 5 steps to the single process's).

With ``--weights DIR`` each rank still builds the model whole on its device and loads the checkpoint
before sharding (workloads/llm/checkpoint.py copies into whole tensors); that path is not yet per shard.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from workloads.finetune import lora
from workloads.llm.model import Llama
from workloads.llm.presets import LlamaConfig


def build(config: LlamaConfig, args: Any) -> tuple[Llama, list[str]]:
    """The model (with its adapters) on the meta device; the frozen base marked bf16 where it will be held so."""
    with torch.device("meta"):
        model = Llama(config)
        adapted = lora.apply(model, args.lora_target_names, args.lora_rank, args.lora_alpha,
                             args.lora_dropout) if args.mode == "lora" else []
    if args.mode == "lora" and args.amp == "bf16":
        lora.hold_frozen_in(model, torch.bfloat16)
    return model, adapted


@torch.no_grad()
def materialise(model: nn.Module, device: torch.device, seed: int) -> int:
    """Allocate this rank's shards on ``device`` and fill them; the bytes of the largest full tensor drawn."""
    model.to_empty(device=device)
    gen = torch.Generator(device=device).manual_seed(seed)
    largest = 0
    for name, p in model.named_parameters():
        if name.rsplit(".", 1)[-1] in ("lora_A", "lora_B"):
            continue  # drawn below, after the base, as lora.apply draws them after init_random
        full = torch.empty(p.shape, dtype=torch.float32, device=device)
        if name.endswith("bias"):  # Llama.init_random's rule
            full.zero_()
        elif "norm" in name:
            full.fill_(1.0)
        else:
            full.normal_(0.0, 0.02, generator=gen)
        largest = max(largest, full.numel() * full.element_size())
        _copy_shard(p, full)
    torch.manual_seed(seed)
    for module in model.modules():
        if isinstance(module, lora.LoraDense):
            n_out, n_in = module.lora_B.shape[0], module.lora_A.shape[1]
            a, b = lora.draw(n_in, n_out, module.lora_A.shape[0], device)
            _copy_shard(module.lora_A, a)
            _copy_shard(module.lora_B, b)
    return largest


def _copy_shard(p: torch.Tensor, full: torch.Tensor) -> None:
    """This rank's part of ``full`` into ``p`` (a sharded DTensor, or a plain tensor on one process)."""
    from torch.distributed.tensor import DTensor, distribute_tensor

    if isinstance(p, DTensor):
        # src_data_rank=None: every rank drew the same full tensor, so each cuts its own shard (no communication)
        p.copy_(distribute_tensor(full.to(p.dtype), p.device_mesh, p.placements, src_data_rank=None))
    else:
        p.copy_(full)


def local_parameter_bytes(model: nn.Module) -> int:
    """Bytes of parameters this process holds: its shards under FSDP, everything on one process."""
    from torch.distributed.tensor import DTensor

    return sum((p.to_local() if isinstance(p, DTensor) else p).numel() * p.element_size()
               for p in model.parameters())
