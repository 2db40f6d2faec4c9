"""A workload's result as a typed record: each figure a field that carries its label and its unit (torch-free).

A workload declares its result once, as a dataclass under :class:`Record`::

    @dataclass
    class ResNet50Result(Record):
        HEADLINE: ClassVar[str] = "images_per_s"
        TABLE: ClassVar[tuple[str, ...]] = ("images_per_s", "total_s")
        images_per_s: float | None = figure("workload.resnet50.metric.images_per_s", "images/s")
        total_s: float | None = figure("workload.shared.metric.total_s", "s")

and its child emits ``emitter.result(ResNet50Result.of(metrics))``. Everything that prints a result (the terminal's
line, run.log, the report's tables, metrics/summary.json and metrics/results.csv, compare) reads the figures' labels
and units from here, never from the spelling of a key (vLLM's ``BenchmarkMetrics`` and llama-bench's one result
record with its printers are the models). On the wire the record is the flat ``{key: value}`` of the fields it was
given, so events.jsonl reads as before and old runs stay readable.

The unit says how a value reads: ``s`` a duration, ``B`` bytes in binary units, ``fraction`` a share shown as a
percentage, ``text`` words, ``table`` a nested list or mapping (events.jsonl keeps it whole), ``""`` a plain count;
any other unit (``images/s``, ``ms``, ``GB/s``, ``TFLOP/s``, ``%``) is a number in that unit, which the label says
(``"ms time to first token (TTFT), p50"``): a rate's label leads with it.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import re
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Mapping

from workloads.catalogue import Message, message
from workloads.facts.missing import is_finite

# units that are formatted by kind (and so never written in the label); every other unit is the label's
# (NESTED, not TABLE: in a record's class body TABLE is the report's table, which would hide the unit)
SECONDS, BYTES, FRACTION, TEXT, NESTED, COUNT = "s", "B", "fraction", "text", "table", ""
_KIND_OF_UNIT = {SECONDS: "seconds", BYTES: "bytes", FRACTION: "fraction", TEXT: "text", NESTED: "table",
                 COUNT: "number"}
# set in the test suite: a figure no record declares fails the test instead of being kept with a warning
STRICT_ENV = "CARDBENCH_STRICT_RESULTS"


class _Unset:
    """A field the workload did not give: left out of the record's metrics (None is a value: 'not measured')."""

    _one: ClassVar["_Unset | None"] = None

    def __new__(cls) -> "_Unset":
        if cls._one is None:
            cls._one = super().__new__(cls)
        return cls._one

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False


UNSET: Any = _Unset()


@dataclass(frozen=True)
class Figure:
    """One figure of a result: its key on the wire, its label in the reader's language and its unit."""

    key: str
    label: Any                  # said in a language when called: a catalogue Message (or a spec's Text)
    unit: str = COUNT
    short: Any = None   # the glance's shorter name for it ("TTFT p50 ms"), where the label is long
    as_kind: str = ""           # a number in a unit per second that is no measured rate (a rated peak): "number"

    @property
    def kind(self) -> str:
        """How its value is formatted: seconds, bytes, fraction, text, table, rate (a unit per second) or number."""
        if self.as_kind:
            return self.as_kind
        if self.unit in _KIND_OF_UNIT:
            return _KIND_OF_UNIT[self.unit]
        return "rate" if self.unit.endswith("/s") else "number"


def figure(label: Any, unit: str = COUNT, *, short: str | None = None, kind: str = "") -> Any:
    """A record field: the catalogue id of its label (or words said in a language when called: a Said, a
    `workloads.spec.Text`), its unit, the glance's shorter name (an id) and,
    for a number in a unit per second that is no measured rate, ``kind="number"``; unset until the workload gives
    it."""
    said = Message(label) if isinstance(label, str) else label
    return dataclasses.field(default=UNSET, metadata={
        "label": said, "unit": unit, "short": Message(short) if short else None, "kind": kind})


def _figure_of(field: dataclasses.Field) -> Figure:
    m = field.metadata
    return Figure(field.name, m["label"], m["unit"], m["short"], m["kind"])


@dataclass(frozen=True)
class Family:
    """Figures whose keys are made at run time (llama-bench's ``tg128_tokens_per_s``): a pattern with named groups,
    the label's catalogue id (said with the groups) and the unit they share."""

    pattern: str
    label: str
    unit: str = COUNT
    kind: str = ""   # as figure()'s: "number" for a unit per second that is no measured rate (a rated peak)

    def figure(self, key: str) -> Figure | None:
        match = re.fullmatch(self.pattern, key)
        if not match:
            return None
        return Figure(key, message(self.label, **match.groupdict()), self.unit, as_kind=self.kind)


class UndeclaredFigure(ValueError):
    """A workload gave a figure its record does not declare."""


@dataclass
class Record:
    """The base of every workload's result record. Class variables, not fields, say how the result is read:
    HEADLINE the figure the campaigns quote, TABLE the report's table in order, LINE the glance beside the headline,
    VERDICT a text figure said before the headline (a soak's PASS/WARN/FAIL), COST_BASIS "images" or "tokens" when
    the headline prices a run, FAMILIES the figures named at run time; REPORT_TABLE and READ_AGAINST the printers of
    a workload whose figures need a table of their own ("module:function", see `printer`)."""

    HEADLINE: ClassVar[str] = ""
    TABLE: ClassVar[tuple[str, ...]] = ()
    LINE: ClassVar[tuple[str, ...]] = ()
    VERDICT: ClassVar[str] = ""
    COST_BASIS: ClassVar[str | None] = None
    FAMILIES: ClassVar[tuple[Family, ...]] = ()
    UNIT: ClassVar[str | None] = None   # the headline's unit where it is not its figure's ("" for your job's own)
    # whether every step repeats the same work, so the steps' median rate is a figure (and stands in for a missing
    # headline); False where each step is other work: serve's load levels (a median of 688 and 2,282 tokens/s said
    # 1,485), llm's cells of other shapes
    STEPS_REPEAT: ClassVar[bool] = True
    # the VERDICT's values that are problems, which the report lists as such (data IO's "compute-bound" is a healthy
    # pipeline, not a problem; a soak's WARN is one)
    PROBLEMS: ClassVar[tuple[str, ...]] = ("WARN", "FAIL")
    # metrics -> (heading, columns, rows): an extra table under the run's figures; any word may be a Said. Named as
    # "module:function" and imported when a report first needs it: a table module may read run files (opscan's
    # ops.csv), which the workbench's first frame, importing every record through the registry, leaves for later
    REPORT_TABLE: ClassVar[str | None] = None
    # metrics -> the summary's "read against" cell (a Said, or None: N/A), for a workload whose steps are not alike
    # (serve's are its levels); "module:function" as above; None here: the step median and the bounds it has
    READ_AGAINST: ClassVar[str | None] = None
    # figures compare sets side by side besides the rates and fractions of TABLE (which it reads by kind): durations
    # whose ratio is the point (a cold start's phases)
    COMPARED: ClassVar[tuple[str, ...]] = ()
    # further tables under REPORT_TABLE's, each a printer as REPORT_TABLE (llm's llama-bench rows under its cells)
    MORE_TABLES: ClassVar[tuple[str, ...]] = ()
    # metrics -> lines the terminal prints after the tables, as written (llm's llama-bench markdown, to paste beside
    # llama.cpp's); "module:function" as above
    TERMINAL_TEXT: ClassVar[str | None] = None
    # the result line of a run that timed nothing (a plan, --fit-only, whose REPORT_TABLE follows it): these figures
    # only, where every figure would make a line of a thousand characters the table says better
    PLAN_LINE: ClassVar[tuple[str, ...]] = ()

    def __post_init__(self) -> None:
        # figures a family declares, or (outside the tests) kept from a workload newer than its record
        self._more: dict[str, Any] = {}
        self._order: list[str] = []   # the order the workload gave its figures in (run.log lists them so)

    @classmethod
    def figures(cls) -> tuple[Figure, ...]:
        """Every declared field as a Figure, in declaration order (families are not listed: their keys are made)."""
        return tuple(_figure_of(f) for f in dataclasses.fields(cls) if "label" in f.metadata)

    @classmethod
    def figure(cls, key: str) -> Figure | None:
        """The figure ``key`` names: a field, or a member of a family; None for a key this record does not declare."""
        field = cls.__dataclass_fields__.get(key)
        if field is not None and "label" in field.metadata:
            return _figure_of(field)
        return next((f for f in (family.figure(key) for family in cls.FAMILIES) if f is not None), None)

    @classmethod
    def of(cls, metrics: Mapping[str, Any]) -> "Record":
        """The record of a workload's metrics. A key no field or family declares raises UndeclaredFigure under the
        test suite; in a real run it is kept (the run's figures are never lost) and listed by ``undeclared``."""
        fields = {k: v for k, v in metrics.items() if k in cls.__dataclass_fields__}
        record = cls(**fields)
        for key, value in metrics.items():
            if key in fields:
                continue
            if cls.figure(key) is None and os.environ.get(STRICT_ENV):
                raise UndeclaredFigure(f"{cls.__name__} declares no figure {key!r}: add a field or a family")
            record._more[key] = value
        record._order = list(metrics)
        return record

    @classmethod
    def timed(cls, metrics: Mapping[str, Any]) -> bool:
        """Whether ``metrics`` hold a figure something was timed for (a rate or a duration) with a value: a plan
        (--fit-only) holds none, so nothing in it can read as noise or be a speed."""
        return any(f is not None and f.kind in ("rate", "seconds") and is_finite(v)
                   for f, v in ((cls.figure(k), v) for k, v in metrics.items()))

    def undeclared(self) -> list[str]:
        """The keys kept that no field or family declares (a warning says them)."""
        return [k for k in self._more if type(self).figure(k) is None]

    def to_metrics(self) -> dict[str, Any]:
        """The flat ``{key: value}`` of what the workload gave, in its order: the result event's metrics."""
        given = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                 if getattr(self, f.name) is not UNSET}
        given.update(self._more)
        ordered = {k: given[k] for k in self._order if k in given}
        return {**ordered, **given}

    @classmethod
    def printer(cls, name: str) -> Callable[[Mapping[str, Any]], Any] | None:
        """The REPORT_TABLE, READ_AGAINST or TERMINAL_TEXT printer, imported now: None when the record has none."""
        where = getattr(cls, name)
        return _imported(where) if where is not None else None

    @classmethod
    def table_printers(cls) -> list[Callable[[Mapping[str, Any]], Any]]:
        """REPORT_TABLE's printer and MORE_TABLES', in order: each metrics -> (heading, columns, rows)."""
        return [_imported(where) for where in ((cls.REPORT_TABLE,) if cls.REPORT_TABLE else ()) + cls.MORE_TABLES]

    @classmethod
    def checked(cls) -> None:
        """Raise ValueError when the class variables name a figure no field declares (the registry calls this)."""
        named = [cls.HEADLINE, *cls.TABLE, *cls.LINE, cls.VERDICT, *cls.COMPARED, *cls.PLAN_LINE]
        missing = [k for k in named if k and cls.figure(k) is None]
        if missing:
            raise ValueError(f"{cls.__name__}: {', '.join(missing)} named but not declared as figures")
        # a field named as the base's own attribute ("figures", "of") would hide it: declare such a key by a Family
        hiding = [f.name for f in dataclasses.fields(cls) if "label" in f.metadata and hasattr(Record, f.name)]
        if hiding:
            raise ValueError(f"{cls.__name__}: field {', '.join(hiding)} hides Record's own: declare it by a Family")


def _imported(where: str) -> Callable[[Mapping[str, Any]], Any]:
    module, _, function = where.partition(":")
    return getattr(importlib.import_module(module), function)


def record_of(headline: str, unit: str, label: Any = None) -> type[Record]:
    """A record that declares its headline alone: a stand-in or a first plugin workload whose other figures are
    said as written (its label defaults to the unit)."""
    said = label if label is not None else (lambda lang="en": unit)
    return dataclasses.make_dataclass(
        f"{headline.title().replace('_', '')}Result", [(headline, "float | None", figure(said, unit))],
        bases=(Record,), namespace={"HEADLINE": headline, "TABLE": (headline,)})
