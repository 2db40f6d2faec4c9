"""The CPU fallback check of an llm run (`workloads.child.cpu_fallback`): a few decode steps of the first cell that
ran, profiled after the timed cells (which warmed every kernel up), so the profiler touches no timed figure."""

from __future__ import annotations

import argparse
from typing import Any

import torch

from workloads.child import device as dev
from workloads.child.cpu_fallback import FallbackWatch
from workloads.child.harness import Emitter
from workloads.llm.cells import GREEDY
from workloads.llm.plan import Plan
from workloads.models.decoding import generate

UNWATCHED = 1   # the first decode step of the generation is not watched: its cache position is new


class _Watched:
    """A decoder whose calls are the watch's steps: one decode step each, the device synchronised at its end."""

    def __init__(self, decoder: Any, watch: FallbackWatch, device: torch.device):
        self.decoder, self.watch, self.device = decoder, watch, device
        self.kind = decoder.kind
        self.calls = 0

    def __call__(self, token: torch.Tensor, pos: int) -> torch.Tensor:
        self.calls += 1
        self.watch.before(self.calls)
        logits = self.decoder(token, pos)
        dev.synchronize(self.device)
        self.watch.after(self.calls)
        return logits


def check(args: argparse.Namespace, plan: Plan, model: Any, rows: list[dict[str, Any]], device: torch.device,
          emitter: Emitter, make: Any) -> dict[str, Any]:
    """The check's figures (none where it is off, or no cell ran)."""
    watch = FallbackWatch(device, emitter, args.cpu_fallback_check, after=UNWATCHED)
    ran = [cell for cell, row in zip(plan.cells, rows) if row.get("status") == "ok"]
    if not watch.active or not ran:
        return {}
    cell = ran[0]
    cache = model.new_cache(cell.batch, cell.input_len + UNWATCHED + watch.last + 1)
    prompt = torch.randint(0, model.config.vocab_size, (cell.batch, cell.input_len),
                           generator=torch.Generator().manual_seed(args.seed)).to(device)
    generate(model, cache, _Watched(make(model, cache), watch, device), prompt, 1 + watch.last, GREEDY, device)
    watch.finish()
    return watch.figures()
