"""torchvision's reference scripts (references/classification, detection...): their MetricLogger lines.

`Epoch: [0]  [  41/5005]  eta: 6:41:15  lr: 0.1  img/s: 21.10  loss: 6.9578 (6.9744)  acc1: ...  time:
2.3876  data: 0.0095  max mem: 3524`. The index is the batch just done, from 0 (the count is index + 1);
meters are separated by two spaces. `loss: A (B)` is the SmoothedValue's median of the last 20 batches
(A) and its mean since the start (B): the loss taken is A, as printed. `img/s` (classification) is the
last batch's. `Test: [...]` lines are evaluation; `Epoch: [0] Total time:` and `Averaged stats:` are not
progress. Scripts that copy the MetricLogger (DeiT, DETR...) print the same lines.
"""

from __future__ import annotations

import re

from workloads.command.parsers.reading import TRAIN, Reading, batch_line, to_number
from workloads.facts.missing import finite_or_none

SOURCE = "torchvision"
RATE_AS = "the last batch's img/s, as the script printed it"
_TRAIN = re.compile(r"^\s*Epoch: \[(?P<epoch>\d+)(?:/\d+)?\]\s+\[\s*(?P<i>\d+)/(?P<total>\d+)\]\s+eta: \S+(?P<meters>.*)$")
_TEST = re.compile(r"^\s*Test:\s+\[\s*\d+/\d+\]")
_METER = re.compile(r"^(?P<name>[^:]+):\s*(?P<value>\S+)")


def meters(text: str) -> dict[str, float]:
    """`  lr: 0.1  img/s: 21.1  loss: 6.9578 (6.9744)` -> {'lr': 0.1, 'img/s': 21.1, 'loss': 6.9578}."""
    out = {}
    for part in text.split("  "):
        m = _METER.match(part.strip())
        if m and to_number(m.group("value")) is not None:
            out[m.group("name").strip()] = to_number(m.group("value"))
    return out


def parse(line: str) -> Reading | None:
    return batch_line(line, _TRAIN, _TEST, SOURCE, _train)


def _train(m: re.Match, line: str) -> Reading:
    values = meters(m.group("meters"))
    rate = finite_or_none(values.get("img/s"))
    return Reading(source=SOURCE, kind=TRAIN, count=int(m.group("i")) + 1, total=int(m.group("total")),
                   epoch=int(m.group("epoch")), loss=values.get("loss"), rate=rate,
                   unit="img/s" if rate is not None else None, rate_as=RATE_AS, bar="torchvision train",
                   values=values)
