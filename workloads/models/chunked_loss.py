"""The logits head and its cross-entropy fused over chunks of tokens: no (tokens x vocabulary) tensor ever exists.

A causal LM's loss reads ``hidden @ head`` for every token, and a vocabulary of 152,064 (Qwen2.5) makes those
logits the largest tensor of a fine-tuning step: at 2,048 tokens 1.25 GB in fp32 for the loss, the same again for
their gradient, plus the 16-bit copy autocast made, each written and read again by separate kernels. Liger
Kernel's FusedLinearCrossEntropy (linkedin/Liger-Kernel, ``fused_linear_cross_entropy.py``) and Apple's Cut
Cross-Entropy avoid it the same way: for each chunk of tokens the forward computes the chunk's logits, its loss,
and at once the gradient of that loss with respect to the chunk's hidden states (and the head, when it trains);
the backward only scales those gradients by the loss's own gradient. Peak memory is one chunk's logits; the
arithmetic is the unfused step's, nothing recomputed, so the model FLOPs an MFU counts are the FLOPs done.

The softmax and the loss are taken in fp32 as transformers' causal LMs take them, whatever dtype the product ran in.
"""

from __future__ import annotations

from typing import Any

import torch

from workloads.models.loss_chunk import chunk_rows


class _LinearCrossEntropy(torch.autograd.Function):
    """mean over rows of cross_entropy(hidden @ head, targets), its gradients taken in the forward pass."""

    @staticmethod
    def forward(ctx: Any, hidden: torch.Tensor, head: torch.Tensor, targets: torch.Tensor,
                rows: int) -> torch.Tensor:
        n = hidden.shape[0]
        want_head = head.requires_grad
        grad_hidden = torch.empty_like(hidden)
        # fp32, or fp64 in the CPU replay that checks a run (chosen in Python: torch.promote_types would be one more
        # op that opscan traces and compares)
        wide = torch.float64 if hidden.dtype == torch.float64 else torch.float32
        grad_head = torch.zeros(head.shape, dtype=wide, device=head.device) if want_head else None
        total = torch.zeros((), dtype=wide, device=hidden.device)
        for start in range(0, n, rows):
            h, t = hidden[start:start + rows], targets[start:start + rows]
            logits = h @ head  # under autocast this runs in its 16-bit dtype, as the unfused head did
            log_p = torch.log_softmax(logits.to(wide), dim=-1)
            total -= log_p.gather(1, t[:, None]).sum()
            # d(mean CE)/d(logits) = (softmax - one_hot) / n, formed in place over the chunk's log-probabilities
            grad = log_p.exp_()
            grad[torch.arange(t.shape[0], device=t.device), t] -= 1.0
            grad = grad.div_(n).to(logits.dtype)
            grad_hidden[start:start + rows] = (grad @ head.t().to(grad.dtype)).to(hidden.dtype)
            if grad_head is not None:
                grad_head.addmm_(h.t().to(wide), grad.to(wide))
        ctx.save_for_backward(grad_hidden, grad_head if grad_head is not None else torch.empty(0))
        ctx.want_head = want_head
        ctx.head_dtype = head.dtype
        return total / n

    @staticmethod
    def backward(ctx: Any, grad_loss: torch.Tensor) -> tuple[Any, ...]:
        grad_hidden, grad_head = ctx.saved_tensors
        scale = grad_loss.to(grad_hidden.dtype)
        head = (grad_head * grad_loss).to(ctx.head_dtype) if ctx.want_head else None
        return grad_hidden * scale, head, None, None


def linear_cross_entropy(hidden: torch.Tensor, head: torch.Tensor, targets: torch.Tensor,
                         rows: int | None = None) -> torch.Tensor:
    """Mean cross-entropy of ``hidden @ head`` (hidden: tokens x width, head: width x vocabulary) against
    ``targets`` (tokens), in chunks of ``rows`` tokens (default :func:`chunk_rows`)."""
    return _LinearCrossEntropy.apply(hidden, head, targets, rows or chunk_rows(head.shape[1]))
