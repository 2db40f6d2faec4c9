"""timm's train.py: `Train: 62 [  50/135 ( 37%)]  Loss: 0.4160 (0.428)  Time: 0.224s, 4571.36/s  (0.359s,
2854.06/s)  LR: 3.229e-02  Data: 0.036 (0.171)`.

The index is the batch just done, from 0 (so the count is index + 1); `Loss:` is that batch's loss
(the running mean in brackets); `Time: 0.224s, 4571.36/s` is the time and rate of the last batch
logged (samples, all ranks, per second; the brackets hold the means since the epoch began).
`Test: [   0/12] ...` and `Test (EMA): ...` are evaluation.
"""

from __future__ import annotations

import re

from workloads.command.parsers.reading import TRAIN, Reading, batch_line, to_number
from workloads.facts.missing import finite_or_none

SOURCE = "timm"
RATE_AS = "timm's rate of the last batch logged"
_TRAIN = re.compile(r"^\s*Train: (?P<epoch>\d+) \[\s*(?P<i>\d+)/(?P<total>\d+)")
_TEST = re.compile(r"^\s*Test(?: \(EMA\))?: \[\s*\d+/\d+\]")
_LOSS = re.compile(r"Loss:\s*(?P<loss>\S+)")
_TIME = re.compile(r"Time:\s*(?P<s>[\d.]+)s,\s*(?P<rate>[\d.]+)/s")
_LR = re.compile(r"LR:\s*(?P<lr>\S+)")


def parse(line: str) -> Reading | None:
    return batch_line(line, _TRAIN, _TEST, SOURCE, _train)


def _train(m: re.Match, line: str) -> Reading:
    values: dict[str, float] = {}
    loss = _LOSS.search(line)
    time = _TIME.search(line)
    lr = _LR.search(line)
    if lr and to_number(lr.group("lr")) is not None:
        values["lr"] = to_number(lr.group("lr"))
    return Reading(source=SOURCE, kind=TRAIN, count=int(m.group("i")) + 1, total=int(m.group("total")),
                   epoch=int(m.group("epoch")), loss=to_number(loss.group("loss")) if loss else None,
                   rate=finite_or_none(float(time.group("rate"))) if time else None, unit="samples/s" if time else None,
                   rate_as=RATE_AS, bar="timm train", values=values)
