"""From readings of the job's log to step events and the run's result.

A step is a count the log printed (tqdm's n, a logged batch): the first bar to count past 0 is the
run's; another bar (an evaluation, a nested loop) is not. When its count falls back (a new epoch's
bar, the next epoch of timm or torchvision) the passes add up, so steps only go forward. A log with no
count at all (the Trainer's dicts alone, a `--metric` without `step`) numbers its progress lines.

A step stays open until its count moves on (or for :data:`OPEN_S`), because tools print a count and
then its figures: Lightning redraws a count with its new loss. Figures logged on a line of their own
while a bar runs (the Trainer's dict, through tqdm.write) go with the bar's redraw that tqdm makes
right after the line (within :data:`WRITE_REDRAW_S`), at the count it has reached (its redraws are
throttled, so the count drawn before can lag behind); a later redraw, a bar that starts a new pass, or
no redraw within :data:`OPEN_S` leaves them with the count drawn last. A loss for a step already emitted is a step event of its own,
with the same count and no rate.

Rates keep the unit the log used; the first one printed is the run's unit, and a rate in another
unit (the Trainer's closing samples/s beside its bar's it/s) is kept in the result, never mixed in.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping

from workloads.command.parsers.reading import EVAL, SUMMARY, Reading
from workloads.facts.warmup import default_warmup

OPEN_S = 2.0  # a step with no further line for this long is emitted as it is
# tqdm.write redraws the bar in the same burst of output as the line it wrote; a redraw later than this is
# the next step's
WRITE_REDRAW_S = 0.05
# the result's named figures are the job's words (a bar's postfix names its own): bounded, so a job that prints
# thousands of names, or a 'unit' of a page, cannot make a RESULT line, an event or a report of megabytes
FIGURES, NAME_CHARS, UNIT_CHARS = 64, 100, 40


def keep_figures(into: dict[str, float], values: Mapping[str, float]) -> None:
    """``values`` into ``into``, a name kept while there is room and it is no longer than :data:`NAME_CHARS`."""
    for name, value in values.items():
        if name in into or (len(into) < FIGURES and len(name) <= NAME_CHARS):
            into[name] = value


@dataclass
class _Open:
    step: int
    t: float
    epoch: int | None = None
    loss: float | None = None
    rate: float | None = None
    unit: str | None = None
    rate_as: str | None = None
    total: int | None = None
    batch: tuple[int, int] | None = None   # an epoch's bar: (batch, batches in the epoch), as the bar counts
    remaining_s: float | None = None        # the time left the log printed (to the end of its pass)


@dataclass
class Tracker:
    """Feeds on readings (:meth:`see`), emits step events through ``emit_step(step, **fields)``."""

    emit_step: Callable[..., None]
    clock: Callable[[], float] = time.time
    bar: str | None = None
    offset: int = 0
    last: tuple[int, int | None, int | None] | None = None  # the tracked bar's (count, total, epoch) last seen
    emitted: int = 0                                        # the last step number emitted
    numbered: int = 0
    open: _Open | None = None
    unit: str | None = None
    rate_as: str | None = None
    rates: list[float] = field(default_factory=list)
    other_unit_rates: int = 0
    steps: int = 0
    final_loss: float | None = None
    summary: dict[str, float] = field(default_factory=dict)
    evaluation: dict[str, float] = field(default_factory=dict)
    figures: dict[str, float] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)
    waiting: tuple[Reading, float] | None = None  # figures logged between two redraws of the bar, and when

    def see(self, r: Reading) -> None:
        if r.source not in self.sources:
            self.sources.append(r.source)
        if r.kind == SUMMARY:
            keep_figures(self.summary, r.values)
            return
        if r.kind == EVAL:
            keep_figures(self.evaluation, {k: v for k, v in r.values.items() if k.startswith("eval_")})
            return
        if r.unit is not None and len(r.unit) > UNIT_CHARS:
            r = replace(r, rate=None, unit=None, rate_as=None)   # no tool's unit is this long: not a rate
        self.figures.update(r.asked)
        if self.bar is not None and r.bar is None and r.count is None and (r.loss is not None or r.rate is not None):
            # logged while a bar runs: tqdm.write clears the bar, prints, then redraws it at its count now, which
            # can be past the count last drawn (redraws are throttled): the figures go with that redraw
            self.settle()
            self.waiting = (r, self.clock())
            return
        tracked = self.bar is not None and r.bar == self.bar
        step = self._step_of(r)
        if self.waiting is not None and tracked and step is None:
            self.settle()  # the bar starts a new pass: what was logged belongs to the pass that ended
        if step is None:
            return
        waiting, self.waiting = (self.waiting, None) if tracked else (None, self.waiting)
        if waiting is not None and self.clock() - waiting[1] > WRITE_REDRAW_S:
            self._at(self.open.step if self.open is not None else self.emitted, waiting[0])
            waiting = None  # not tqdm.write's redraw: a later step's, so the figures were the count drawn last's
        self._at(step, r)
        if waiting is not None:
            self._at(step, waiting[0])

    def _at(self, step: int, r: Reading) -> None:
        if self.open is not None and self.open.step == step:
            self._update(self.open, r)
        elif step > max(self.emitted, self.open.step if self.open else 0):
            self.flush()
            self.open = self._update(_Open(step=step, t=self.clock()), r)
        elif r.loss is not None:
            # the figures of a step already shown (the Trainer logs after its bar moved on): said on their own
            self._emit(self._update(_Open(step=step, t=self.clock()), r), with_rate=False)

    def _step_of(self, r: Reading) -> int | None:
        if r.bar is not None and r.count is not None:
            if self.bar is None and r.count > 0:
                self.bar = r.bar  # the first bar that counts: a bar at 0 may be renamed (Lightning's `Training`)
            if r.bar != self.bar:
                return None
            if self.last is not None:
                count, total, epoch = self.last
                if r.count < count or (r.epoch is not None and epoch is not None and r.epoch != epoch):
                    # a new pass of the same bar: steps go on from the pass's end, its total where the line gave
                    # one (timm and torchvision log every Nth batch, so the last one logged is not the last done)
                    self.offset += max(count, total or 0)
            self.last = (r.count, r.total, r.epoch)
            # a pass at 0 has done nothing: it starts the pass (above), it is not the last pass's end again
            return self.offset + r.count if r.count > 0 else None
        if r.loss is None and r.rate is None:
            return None
        if r.count is not None:       # the Trainer's `'step': 9000`, a `--metric step=...`
            return r.count
        if self.bar is None:
            self.numbered += 1        # no count in this log so far: its progress lines are the steps
            return self.numbered
        return self.open.step if self.open is not None else self.emitted

    def step_now(self) -> int:
        """The step the log is at: the one being read, else the last emitted."""
        return self.open.step if self.open is not None else self.emitted

    def _update(self, s: _Open, r: Reading) -> _Open:
        s.epoch = r.epoch if r.epoch is not None else s.epoch
        s.loss = r.loss if r.loss is not None else s.loss
        if r.rate is not None and r.unit in (s.unit or self.unit or r.unit,):
            s.rate, s.unit, s.rate_as = r.rate, r.unit, r.rate_as
        elif r.rate is not None:
            self.other_unit_rates += 1  # a second unit on this step: the step keeps the run's
        if r.bar is not None and r.bar == self.bar and r.total:
            s.total = self.offset + r.total  # the pass's end, counted as its steps are
            if r.count is not None:
                s.batch = (r.count, r.total)
            s.remaining_s = r.remaining_s
        return s

    def settle(self) -> None:
        """Figures logged with no redraw after them: they go with the count the bar showed last."""
        if self.waiting is None:
            return
        reading, self.waiting = self.waiting[0], None
        self._at(self.open.step if self.open is not None else self.emitted, reading)

    def tick(self) -> None:
        """Called while the job is quiet: figures and a step waiting for :data:`OPEN_S` go out as they are."""
        if self.waiting is not None and self.clock() - self.waiting[1] >= OPEN_S:
            self.settle()
        if self.open is not None and self.clock() - self.open.t >= OPEN_S:
            self.flush()

    def flush(self) -> None:
        self.settle()
        if self.open is not None:
            self._emit(self.open, with_rate=True)
            self.open = None

    def _emit(self, s: _Open, *, with_rate: bool) -> None:
        fields: dict[str, Any] = {}
        if s.epoch is not None:
            fields["epoch"] = s.epoch
        if s.loss is not None:
            fields["loss"] = s.loss
            self.final_loss = s.loss
        if with_rate and s.rate is not None and s.unit:
            if self.unit is None:
                self.unit, self.rate_as = s.unit, s.rate_as
            if s.unit == self.unit:
                fields.update(throughput=s.rate, unit=s.unit, rate_as=s.rate_as)
                self.rates.append(s.rate)
            else:
                self.other_unit_rates += 1
        # a total that covers the run: one pass of a bar without epochs (an epoch's bar ends with its epoch)
        if s.total and s.epoch is None:
            fields["total_steps"] = s.total
        elif s.epoch is not None and s.batch is not None:
            # an epoch's bar (`Epoch 1: 3/10 [00:10<00:23`): where it is in the epoch, and the log's time left to
            # the epoch's end, the only ETA a run that does not say its epochs has
            fields.update(batch=s.batch[0], batches=s.batch[1])
            if s.remaining_s is not None:
                fields["epoch_eta_s"] = s.remaining_s
        if not fields:
            return
        self.emit_step(s.step, **fields)
        self.emitted = max(self.emitted, s.step)
        self.steps += 1

    def result(self) -> dict[str, Any]:
        """The run's figures: the headline is the median of the rates the log printed, after the first few."""
        self.flush()
        skip = default_warmup(len(self.rates))   # a tool's first rates are its start-up (tqdm's begins at '?')
        kept = self.rates[skip:]
        out: dict[str, Any] = {
            "throughput": statistics.median(kept) if kept else None,
            "throughput_unit": self.unit,
            "throughput_from": self.rate_as,
            "rates": len(kept),
            "warmup_steps": skip,
            "steps_read": self.steps,
            "final_loss": self.final_loss,
            "read_by": ", ".join(self.sources) or None,
        }
        if self.other_unit_rates:
            out["rates_in_other_units"] = self.other_unit_rates
        out.update({k: v for k, v in self.summary.items() if k != "epoch"})
        out.update(self.evaluation)
        out.update({f"metric {k}": v for k, v in self.figures.items()})
        return {k: v for k, v in out.items() if v is not None}
