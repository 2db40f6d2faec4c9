"""`--metric NAME=REGEX`: the user's own figures, read from any line the regex finds (one group, a number).

Names that mean something to the run: `loss` (each step's loss), `step` (the count, when the log has no
bar), `epoch`; a name that is a rate, per second in its denominator (`tokens/s`, `img/s`, `samples/sec`), is
the throughput, in that unit. A time per something (`ms/step`, `s/it`) is not a rate: lower is better there, and
a headline read as "faster" would be upside down. Any other name is kept as a figure of the run (its last value
is in the result).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from workloads.command.parsers.reading import TRAIN, Reading, to_number
from workloads.facts.missing import finite_or_none
from workloads.safe_text import one_line

SOURCE = "--metric"
_NAME_CHARS = 40


class BadMetric(ValueError):
    """A `--metric` that cannot be used; the message is one line."""


@dataclass(frozen=True)
class Metric:
    name: str
    pattern: re.Pattern

    @property
    def is_rate(self) -> bool:
        return is_rate_unit(self.name)


_PER_SECOND = {"s", "sec", "secs", "second", "seconds"}
_TIMES = {"s", "ms", "us", "µs", "ns", "sec", "secs", "second", "seconds", "min", "h"}


def is_rate_unit(unit: str) -> bool:
    """Per second in the denominator and not a time over it: `tokens/s` yes, `ms/step` and `s/s` no."""
    numerator, slash, denominator = unit.strip().lower().rpartition("/")
    return bool(slash) and denominator.strip() in _PER_SECOND and numerator.strip() not in _TIMES


def compile_metric(text: str) -> Metric:
    name, sep, regex = text.partition("=")
    name = name.strip()
    if not sep or not name or not regex:
        raise BadMetric(f"--metric {text!r}: give NAME=REGEX, e.g. --metric 'loss=loss: ([0-9.]+)'")
    if len(name) > _NAME_CHARS or one_line(name) != name:   # the name is printed on every step line
        raise BadMetric(f"--metric {name[:40]!r}: a NAME is up to {_NAME_CHARS} printable characters, "
                        "e.g. loss or tokens/s")
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
    rate_name = next((n for n in values if is_rate_unit(n)), None)
    return Reading(
        source=SOURCE, kind=TRAIN,
        count=int(step) if step is not None and step.is_integer() else None,
        epoch=int(epoch) if epoch is not None and epoch.is_integer() else None,
        loss=values.get("loss"),
        rate=finite_or_none(values[rate_name]) if rate_name else None, unit=rate_name,
        rate_as=f"--metric {rate_name}" if rate_name else None,
        bar="--metric step" if step is not None else None,
        values=values, asked=values,
    )
