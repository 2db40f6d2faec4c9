"""``--check-against-cpu K``: the run's first K losses against the same K steps in float64 on the CPU.

The replay starts from the run's own initial weights (adapters included, copied before the first step),
takes the same batches (a pure function of the step) and the same AdamW, with no autocast: float64 is
the reference the device's arithmetic is judged against. The verdict's bound is the precision's: fp32
keeps about 7 digits, and the differences that AdamW's first steps amplify stay below 1e-3 of the loss;
bf16 keeps 8 bits of mantissa (about 0.4 % a rounding) and fp16 11, so their losses are held to 3 % and 1 %.
"""

from __future__ import annotations

from typing import Any

import torch

from workloads.child.harness import log
from workloads.finetune import lora
from workloads.models.loss import lm_loss
from workloads.models.llama.model import Llama

TOLERANCE = {"fp32": 1e-3, "fp16": 1e-2, "bf16": 3e-2}


def replay(s: Any, batches: Any, k: int) -> list[float]:
    """The first ``k`` losses of the run's steps, in float64 on the CPU."""
    args = s.args
    model = Llama(s.config)
    if args.mode == "lora":
        lora.apply(model, args.lora_target_names, args.lora_rank, args.lora_alpha, 0.0)
    model.load_state_dict(s.initial_state)
    model = model.to(torch.float64).train()
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=s.lr)
    losses = []
    for number in range(1, k + 1):
        optimizer.zero_grad(set_to_none=True)
        total = 0.0
        for micro in batches.batch_of(number).chunk(s.accum):
            loss = lm_loss(model, micro) / s.accum
            loss.backward()
            total += loss.item()
        optimizer.step()
        losses.append(total)
    return losses


def compare(s: Any, batches: Any, device_losses: list[float], precision: str) -> dict[str, Any]:
    k = len(device_losses)
    log(f"checking: the first {k} steps again in float64 on the CPU")
    reference = replay(s, batches, k)
    diffs = [abs(a - b) / abs(b) if b else abs(a - b) for a, b in zip(device_losses, reference)]
    worst = max(diffs) if diffs else 0.0
    bound = TOLERANCE.get(precision, TOLERANCE["fp32"])
    ok = worst <= bound
    words = (f"{'PASS' if ok else 'FAIL'}: the first {k} losses on {s.device} ({precision}) differ from float64 on "
             f"the CPU by at most {worst:.2e} relative (bound {bound:g} for {precision}), at step "
             f"{diffs.index(worst) + 1 if diffs else 0}")
    return {"cpu_check": words, "cpu_check_ok": ok, "cpu_check_max_relative_difference": worst,
            "cpu_check_bound": bound, "cpu_check_losses": reference}
