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

With ``--weights DIR`` rank 0 alone reads the checkpoint (into a whole model on the CPU: the fused, transposed
layout of workloads/models/llama/checkpoint.py) and the other ranks receive it, one tensor at a time, each keeping its
shard: PyTorch's documented ``set_model_state_dict(..., full_state_dict=True, broadcast_from_rank0=True)``
(torch.distributed.checkpoint.state_dict). The adapters are drawn as with random weights.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
from torch import nn

from workloads.finetune import lora
from workloads.models.llama.model import Llama, init_parameter
from workloads.models.llama.presets import LlamaConfig


def build(config: LlamaConfig, args: Any) -> tuple[Llama, list[str]]:
    """The model (with its adapters) on the meta device; the frozen base marked bf16 where it will be held so."""
    with torch.device("meta"):
        model = Llama(config)
        adapted = lora.adapt(model, args)
    return model, adapted


@torch.no_grad()
def materialise(model: nn.Module, device: torch.device, seed: int, draw_base: bool = True) -> int:
    """Allocate this rank's shards on ``device`` and fill them (the base only with ``draw_base``: a checkpoint's
    weights come from :func:`load_from_rank0`); the bytes of the largest full tensor drawn."""
    model.to_empty(device=device)
    gen = torch.Generator(device=device).manual_seed(seed)
    largest = 0
    for name, p in model.named_parameters():
        if not draw_base or _is_adapter(name):
            continue  # drawn below, after the base, as lora.apply draws them after init_random
        full = torch.empty(p.shape, dtype=torch.float32, device=device)
        init_parameter(name, full, gen)  # Llama.init_random's rule, generator and order
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


def _is_adapter(name: str) -> bool:
    return name.rsplit(".", 1)[-1] in ("lora_A", "lora_B")


def load_from_rank0(model: nn.Module, config: LlamaConfig, directory: Path, adapted: list[str], rank: int) -> None:
    """The checkpoint's weights into every rank's shards of ``model`` (materialised), read by rank 0 alone: rank 0
    holds the whole model in host memory while it sends; the others one full tensor at a time, on their device."""
    from torch.distributed.checkpoint.state_dict import StateDictOptions, set_model_state_dict

    full: dict[str, torch.Tensor] = {}
    if rank == 0:
        from workloads.models.llama.checkpoint import load_dir

        whole = Llama(config)  # on the CPU: the host holds the checkpoint once, not each rank
        load_dir(whole, directory)
        held = dict(model.named_parameters())
        for name, value in whole.state_dict().items():
            owner, _, leaf = name.rpartition(".")
            key = f"{owner}.base.{leaf}" if owner in adapted else name  # lora.apply's wrapped products
            full[key] = value.to(held[key].dtype)  # a frozen base held in bf16 travels in bf16
        del whole
    # strict=False: the adapters are not in the checkpoint (drawn by materialise); anything else missing is refused
    missing, unexpected = set_model_state_dict(model, full, options=StateDictOptions(
        full_state_dict=True, broadcast_from_rank0=True, strict=False))
    left = [k for k in missing if not _is_adapter(k)] + list(unexpected)
    if left:
        raise RuntimeError(f"the checkpoint's broadcast left {left[0]!r} unloaded")  # a bug here, not bad input


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
