"""The language-model loss: what fine-tuning trains on and what the scan records a training step of."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F


def lm_loss(model: Any, tokens: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy of each next token; the logits in fp32 for the loss (as transformers' causal LMs).

    A model that ``fuses_loss`` (the Llama family) takes the targets and returns the loss without ever holding the
    whole logits (:mod:`workloads.models.chunked_loss`); a compiled model answers for the module it wraps.
    """
    if getattr(model, "fuses_loss", False):
        return model(tokens[:, :-1], targets=tokens[:, 1:])
    logits = model(tokens[:, :-1])
    return F.cross_entropy(logits.float().flatten(0, 1), tokens[:, 1:].flatten())
