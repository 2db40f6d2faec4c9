"""Training anomalies a person reading the log would flag, as warnings at their step.

A silently failing accelerator often keeps training with numbers that cannot be right: a NaN or inf loss or
gradient norm (`{'loss': 0.0, 'grad_norm': nan, ...}` on an NPU), a loss of exactly 0.0 logged again and again,
a loss that jumps more than tenfold from one logged value to the next. The run goes on (the job decides), but
the result and the report say so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

ZERO_RUN = 3      # logged losses of exactly 0.0 in a row before it is flagged
JUMP = 10.0       # a logged loss this many times the previous one is flagged


@dataclass
class LossWatch:
    warn: Callable[[str, str], None]            # (code, message)
    zeros: int = 0
    zero_from: int | None = None
    previous: float | None = None
    counts: dict[str, int] = field(default_factory=dict)

    def see(self, step: int, loss: float | None, grad_norm: float | None) -> None:
        if grad_norm is not None and not math.isfinite(grad_norm):
            self._flag("nonfinite_grad_norm", f"step {step}: grad_norm is {grad_norm}: the gradients overflowed "
                                              "or the device computed garbage")
        if loss is None:
            return
        if not math.isfinite(loss):
            self._flag("nonfinite_loss", f"step {step}: loss is {loss}: training has diverged or the device "
                                         "computes wrong numbers")
            return
        if loss == 0.0:
            self.zeros += 1
            self.zero_from = step if self.zeros == 1 else self.zero_from
            if self.zeros == ZERO_RUN:
                self._flag("zero_loss", f"step {step}: loss exactly 0.0 for {ZERO_RUN} logged steps in a row (from "
                                        f"step {self.zero_from}): a real loss is never exactly 0; a silently "
                                        "failing device often prints this")
        else:
            self.zeros = 0
        if self.previous is not None and self.previous > 0 and loss > JUMP * self.previous:
            self._flag("loss_jump", f"step {step}: loss jumped from {self.previous:.4g} to {loss:.4g} "
                                    f"(more than {JUMP:g}x)")
        self.previous = loss

    def _flag(self, code: str, message: str) -> None:
        self.counts[code] = self.counts.get(code, 0) + 1
        self.warn(code, message)
