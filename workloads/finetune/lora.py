"""LoRA as peft defines it (peft/tuners/lora/layer.py, ``Linear``): ``y = W x + (alpha / r) · B A dropout(x)``.

A is ``r x in``, initialised as peft's default (``init_lora_weights=True``): kaiming-uniform with
``a=sqrt(5)``; B is ``out x r``, zeros, so the adapted model starts as the base one. The base product is frozen; only A and B train. Targets are
matched by name as peft's ``target_modules`` list does: the module's name or its last dotted parts.
tests/workloads/finetune checks outputs and gradients against peft when it is installed.
"""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from workloads.child.harness import WorkloadError
from workloads.finetune.flops import frozen_in_bf16
from workloads.models.llama.model import Dense


class LoraDense(nn.Module):
    """A frozen :class:`~workloads.models.llama.model.Dense` (``in x out``) plus a rank-``r`` adapter."""

    def __init__(self, base: Dense, rank: int, alpha: float, dropout: float):
        super().__init__()
        n_in, n_out = base.weight.shape
        self.base = base.requires_grad_(False)
        a, b = draw(n_in, n_out, rank, base.weight.device)
        self.lora_A = nn.Parameter(a)
        self.lora_B = nn.Parameter(b)
        self.scaling = alpha / rank
        self.dropout = nn.Dropout(dropout) if dropout > 0 else nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.base(x)
        update = F.linear(F.linear(self.dropout(x).to(self.lora_A.dtype), self.lora_A), self.lora_B)
        return y + (update * self.scaling).to(y.dtype)


def draw(n_in: int, n_out: int, rank: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """A (r x in) and B (out x r) from the global generator: a sharded model's adapters are drawn again with it
    (workloads/finetune/meta_init.py), so the draws must be these and in this order."""
    # as peft's update_layer: both made as nn.Linear (each drawing its default init), then A redrawn
    # kaiming-uniform and B zeroed, so one seed gives peft's A
    a = nn.Linear(n_in, rank, bias=False, device=device)
    b = nn.Linear(rank, n_out, bias=False, device=device)
    nn.init.kaiming_uniform_(a.weight, a=math.sqrt(5))
    nn.init.zeros_(b.weight)
    return a.weight.detach(), b.weight.detach()


def hold_frozen_in(model: nn.Module, dtype: torch.dtype) -> None:
    """The frozen base in ``dtype`` (bf16 under ``--amp bf16``): autocast runs its products in bf16 anyway, so an
    fp32 master copy of weights that never update only doubles their memory; the adapters stay fp32 (they train)."""
    for p in model.parameters():
        if not p.requires_grad:
            p.data = p.data.to(dtype)


def adapt(model: nn.Module, args: Any) -> list[str]:
    """The run's adapters on ``model`` (none for ``--mode full``), then a frozen base held in bf16 under ``--amp bf16``:
    as the single process, the sharded build (on the meta device) and the bench build it; the names wrapped."""
    adapted = apply(model, args.lora_target_names, args.lora_rank, args.lora_alpha,
                    args.lora_dropout) if args.mode == "lora" else []
    if frozen_in_bf16(args.mode, args.amp):
        hold_frozen_in(model, torch.bfloat16)
    return adapted


def apply(model: nn.Module, targets: tuple[str, ...], rank: int, alpha: float, dropout: float) -> list[str]:
    """Freeze ``model`` and wrap each targeted product; the names wrapped (refused when none is)."""
    model.requires_grad_(False)
    chosen = [(name, module) for name, module in model.named_modules()
              if isinstance(module, Dense) and any(name == t or name.endswith("." + t) for t in targets)]
    if not chosen:
        raise WorkloadError(f"--lora-targets {','.join(targets)} matches no product of the model",
                            hint="name some of qkv, o_proj, gate_up, down_proj")
    for name, module in chosen:
        parent_name, _, child = name.rpartition(".")
        setattr(model.get_submodule(parent_name), child, LoraDense(module, rank, alpha, dropout))
    return [name for name, _ in chosen]


def trainable(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
