"""`--metric NAME=REGEX`: the user's own figures, read from any line the regex finds (one group, a number).

Names that mean something to the run: `loss` (each step's loss), `step` (the count, when the log has no
bar), `epoch`; a name with `/s` in it (`tokens/s`, `img/s`) is the throughput, in that unit. Any other
name is kept as a figure of the run (its last value is in the result).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from workloads.command.parsers.reading import TRAIN, Reading, finite, to_number

SOURCE = "--metric"


class BadMetric(ValueError):
    """A `--metric` that cannot be used; the message is one line."""


@dataclass(frozen=True)
class Metric:
    name: str
    pattern: re.Pattern

    @property
    def is_rate(self) -> bool:
        return "/s" in self.name


def compile_metric(text: str) -> Metric:
    name, sep, regex = text.partition("=")
    name = name.strip()
    if not sep or not name or not regex:
        raise BadMetric(f"--metric {text!r}: give NAME=REGEX, e.g. --metric 'loss=loss: ([0-9.]+)'")
    try:
        pattern = re.compile(regex)
    except re.error as exc:
        raise BadMetric(f"--metric {name}: {regex!r} is not a regular expression ({exc})") from None
    if pattern.groups != 1:
        raise BadMetric(f"--metric {name}: {regex!r} has {pattern.groups} groups; it needs exactly one, "
                        "around the number")
    return Metric(name, pattern)


def parse(line: str, metrics: tuple[Metric, ...]) -> Reading | None:
    values: dict[str, float] = {}
    for metric in metrics:
        m = metric.pattern.search(line)
        number = to_number(m.group(1)) if m and m.group(1) is not None else None
        if number is not None:
            values[metric.name] = number
    if not values:
        return None
    step, epoch = values.get("step"), values.get("epoch")
    rate_name = next((n for n in values if "/s" in n), None)
    return Reading(
        source=SOURCE, kind=TRAIN,
        count=int(step) if step is not None and step.is_integer() else None,
        epoch=int(epoch) if epoch is not None and epoch.is_integer() else None,
        loss=values.get("loss"),
        rate=finite(values[rate_name]) if rate_name else None, unit=rate_name,
        rate_as=f"--metric {rate_name}" if rate_name else None,
        bar="--metric step" if step is not None else None,
        values=values, asked=values,
    )
