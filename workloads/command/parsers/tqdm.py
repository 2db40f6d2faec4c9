"""tqdm progress bars: `desc:  10%|▉   | 499/5000 [06:28<57:55,  1.30it/s, loss=0.9962, lr=0.000300]`.

Also the forms without a bar (`34% 1020/3000 [...]`, as a notebook capture shows it) and without a
total (`Training: 0it [00:00, ?it/s]`, Lightning 2's `Epoch 1: |   | 40/? [...]`). tqdm prints the rate as `N<unit>/s`, or as `N s/<unit>`
once it falls below one per second; both are read as items per second. That rate is tqdm's own
smoothed figure (an exponential moving average over its recent updates, `smoothing=0.3` by
default), not the rate of the last item, and ``rate_as`` says so.
"""

from __future__ import annotations

import re

from workloads.command.parsers.reading import EVAL, EVAL_WORDS, TRAIN, Reading, to_number
from workloads.facts.missing import finite_or_none

SOURCE = "tqdm"
RATE_AS = "tqdm's smoothed rate"
WRITTEN_AS_SECONDS = "written as seconds per item"   # protocol.Step shows such a rate as s/it again
_SI = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_COUNT = r"\d+(?:\.\d+)?[kMGT]?"
# `1.30it/s`, `?it/s`, `12.3kB/s`, or `1.10s/it`
_RATE = (r"(?:(?P<rate>\?|\d+(?:\.\d+)?)(?P<si>[kMGT]?)(?P<unit>[^\s\d/,\]]*)/s"
         r"|(?P<spi>\d+(?:\.\d+)?)s/(?P<inv_unit>[^\s,\]]+))")
# the bar and what follows it; the description is the text before (a pattern that began with it would be
# tried at every position of every line, quadratic in a long line's length)
# `NN%|bar| n/total`, `NN% n/total` (no bar drawn), `|bar| n/?` (Lightning 2 with no known total: no percentage)
_WITH_TOTAL = re.compile(
    r"(?:(?P<pct>\d{1,3})%)?(?:\|[^|]*\|)?\s*(?P<n>" + _COUNT + r")/(?P<total>" + _COUNT
    + r"|\?)\s*\[(?P<elapsed>[\d:]+)<(?P<remaining>[\d:?]+),\s*" + _RATE + r"(?P<postfix>[^\]]*)\]")
_NO_TOTAL = re.compile(
    r"(?<![\w.])(?P<n>" + _COUNT + r")(?P<n_unit>[^\s\d\[]*) \[(?P<elapsed>[\d:]+),\s*" + _RATE
    + r"(?P<postfix>[^\]]*)\]")
_TIMES = re.compile(r"\[\d+:\d\d")  # every tqdm line has its elapsed time: lines without it are passed over at once
_PAIR = re.compile(r"\s*([^=,\s]+)=([^,]*)")
# the postfix names a loss in several ways: `loss=` (custom loops, old Lightning), `train_loss=` (Lightning's
# self.log), `train/loss=`; the first of these present is the loss
LOSS_KEYS = ("loss", "train_loss", "train/loss", "train_loss_step", "loss_step")


def _count(text: str) -> int | None:
    """`499` or, under unit_scale, `1.23k`."""
    scale = _SI[text[-1]] if text[-1] in "kMGT" else 1.0
    number = to_number(text.rstrip("kMGT"))
    return int(number * scale) if number is not None else None


def _rate(m: re.Match) -> tuple[float | None, str | None]:
    if m.group("spi") is not None:
        seconds = float(m.group("spi"))
        return (1.0 / seconds if seconds > 0 else None), f"{m.group('inv_unit')}/s"
    unit = m.group("unit") or "it"
    if m.group("rate") == "?":
        return None, f"{unit}/s"
    return finite_or_none(float(m.group("rate")) * _SI[m.group("si")]), f"{unit}/s"


def clock_seconds(text: str) -> float | None:
    """tqdm's `01:13` or `1:22:40` as seconds; `?` (not known yet) is None."""
    parts = text.split(":")
    if not all(p.isdigit() for p in parts) or not 2 <= len(parts) <= 3:
        return None
    seconds = 0
    for p in parts:
        seconds = seconds * 60 + int(p)
    return float(seconds)


def postfix_values(text: str) -> dict[str, float]:
    """The numeric `key=value` pairs of a bar's postfix (`, loss=0.99, v_num=3hqp` -> {'loss': 0.99})."""
    values = {}
    for key, raw in _PAIR.findall(text):
        number = to_number(raw)
        if number is not None:
            values[key] = number
    return values


_NOT_TRAINING = re.compile(r"^(val|valid|validation|test|eval)[_/]", re.IGNORECASE)


def loss_of(values: dict[str, float]) -> float | None:
    """The training loss among a postfix's figures: a usual name, else the first `*loss*` that is not a validation's
    (Lightning shows what `self.log(..., prog_bar=True)` names: `train_mse_loss_step=0.411`)."""
    known = next((values[k] for k in LOSS_KEYS if k in values), None)
    if known is not None:
        return known
    return next((v for k, v in values.items() if "loss" in k.lower() and not _NOT_TRAINING.match(k)), None)


def bar(line: str) -> tuple[str, Reading] | None:
    """(the bar's description, what it says) for a tqdm line, else None."""
    if _TIMES.search(line) is None:
        return None
    m = _WITH_TOTAL.search(line) or _NO_TOTAL.search(line)
    if m is None:
        return None
    # `Training: `, and `Epoch 2: : ` before a count with no total
    desc = line[:m.start()].strip().rstrip(":").strip().rstrip(":").strip()
    rate, unit = _rate(m)
    # a slow bar prints seconds per item: say the rate was read from that, as the log wrote it
    rate_as = f"{RATE_AS}, {WRITTEN_AS_SECONDS}" if m.group("spi") else RATE_AS
    values = postfix_values(m.group("postfix"))
    total = _count(m.group("total")) if "total" in m.re.groupindex and m.group("total") != "?" else None
    kind = EVAL if EVAL_WORDS.search(desc) else TRAIN
    # the bar's identity: its description without numbers (`Epoch 3` is `Epoch #`) and its total
    key = f"{re.sub(r'[0-9]+', '#', desc)}|{total}"
    remaining = clock_seconds(m.group("remaining")) if "remaining" in m.re.groupindex else None
    return desc, Reading(source=SOURCE, kind=kind, count=_count(m.group("n")), total=total, loss=loss_of(values),
                         rate=rate, unit=unit, rate_as=rate_as, bar=key, values=values, remaining_s=remaining)


def parse(line: str) -> Reading | None:
    found = bar(line)
    return found[1] if found else None
