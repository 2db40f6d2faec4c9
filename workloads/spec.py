"""What a workload declares about itself, torch-free: the workbench, the headless suite and the report read it.

Each workload package holds a ``spec`` module with one :class:`WorkloadSpec`; the
registry in :mod:`workloads` lists them. Nothing under ``tui/`` names a workload:
the launcher's fields, the suite's arguments, the headline figure and the
report's rows all come from here. A new workload is a folder with ``spec.py``
and ``__main__.py`` plus one registry line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from workloads.catalogue import Message
from workloads.result_record import Figure, Record


@dataclass(frozen=True)
class Text:
    """Words in English and Chinese (the reviewers' language in the trial campaigns)."""

    en: str
    zh: str = ""

    def __call__(self, lang: str = "en") -> str:
        return self.zh if lang == "zh" and self.zh else self.en


@dataclass(frozen=True)
class Param:
    """One launcher field: ``flag`` is the workload's option, ``choices`` makes it a pick-list."""

    key: str
    label: str
    flag: str
    default: str = ""
    kind: str = "text"                 # "int" (positive), "text", "choice", or "switch" (a bare flag when on)
    choices: tuple[str, ...] = ()
    placeholder: str = ""
    omit: tuple[str, ...] = ()         # values that mean "the workload's default": not passed
    max: int | None = None             # "int": above this the launcher asks before starting (a stray key adds digits)


SWITCH = ("off", "on")
# the launcher's device field left empty: auto. Said as what auto does, not as devices ("auto (cuda:0, cpu...)" read as
# a claim of a cuda:0 on a machine with none)
DEVICE_PLACEHOLDER = "auto (card, else cpu)"   # 21 characters: the launcher field shows that many


SUITES = ("quick", "standard")   # the headless suites; the first is the default one


@dataclass(frozen=True)
class SuiteArgs:
    """The workload's arguments in the headless suite (`cardbench --export-report`).

    With an accelerator: ``quick`` or ``standard``; where torch sees none, the scaled
    ``cpu_quick`` / ``cpu_standard`` and the note the report states about the scaling.
    ``amp_flag``: the option that takes the autocast mode the doctor found working.
    ``suites``: the suites that run the workload when `--workloads` does not name the workloads.
    """

    quick: tuple[str, ...] = ()
    standard: tuple[str, ...] = ()
    cpu_quick: tuple[str, ...] = ()
    cpu_standard: tuple[str, ...] = ()
    cpu_quick_note: str | Text | Message = ""     # the report says it in its language when it is not a str
    cpu_standard_note: str | Text | Message = ""
    amp_flag: str | None = None
    suites: tuple[str, ...] = SUITES
    # the option that takes the seconds a CPU-only run may spend (its share of the suite's budget), so the
    # workload sizes its work from a rate it measures instead of being cut at the deadline
    budget_flag: str | None = None

    def __post_init__(self) -> None:
        unknown_suites = [s for s in self.suites if s not in SUITES]
        if unknown_suites:
            raise ValueError(f"suites {', '.join(unknown_suites)}: not one of {', '.join(SUITES)}")

    @property
    def default(self) -> bool:
        """Run by the default suite (quick), which `cardbench --help` lists."""
        return SUITES[0] in self.suites

    def args(self, suite: str, *, accelerator: bool, amp: str = "off") -> tuple[list[str], str | Text | Message | None]:
        """(arguments, note for the report or None) for this suite on this machine."""
        standard = suite == "standard"
        if accelerator:
            args = list(self.standard if standard else self.quick)
            if self.amp_flag:
                args += [self.amp_flag, amp]
            return args, None
        args = list(self.cpu_standard if standard else self.cpu_quick)
        return args, (self.cpu_standard_note if standard else self.cpu_quick_note) or None


PlannedSteps = Callable[[Sequence[str], Mapping[str, Any]], "int | None"]
# (this workload's run dir in the suite or None when it did not end ok, why not, a later job's workload, its
# arguments, which the hook may extend) -> what the report says that job was given, or None: it takes nothing
HandOver = Callable[[Path | None, Text | Message, str, list[str]], Text | Message | None]


def flag_value(args: Sequence[str], flag: str) -> str | None:
    """What ``flag`` is given in an argument list (``--flag V`` or ``--flag=V``); the last one wins, as argparse."""
    value = None
    for i, item in enumerate(args):
        if item == flag and i + 1 < len(args):
            value = args[i + 1]
        elif item.startswith(flag + "="):
            value = item.split("=", 1)[1]
    return value


def option(args: Sequence[str], flag: str, default: float | None = None) -> float | None:
    """The number given to ``flag`` in an argument list (``--flag N`` or ``--flag=N``), else ``default``."""
    text = flag_value(args, flag)
    if text is None:
        return default
    try:
        return float(text)
    except ValueError:
        return default


def positive(value: Any) -> int | None:
    """``value`` when it is a positive whole number (not a bool), else None."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _cap_only(args: Sequence[str], config: Mapping[str, Any]) -> int | None:
    return positive(config.get("steps")) or positive(option(args, "--steps"))


@dataclass(frozen=True)
class WorkloadSpec:
    """Everything the UI-free side and the workbench know about one workload."""

    name: str
    title: Text | Message
    result: type[Record] = Record        # the typed result: its figures, their labels and units, the headline
    params: tuple[Param, ...] = ()       # the launcher's fields
    suite: SuiteArgs | None = None       # None: not part of the headless suite
    counts: str = "steps"                # what a step event counts: "steps" or "tokens"
    # the progress line's name for one count, beside "N/M": "timed token"
    progress: Text | Message = Message("workload.shared.step")
    has_loss: bool = True                # False: no step carries a loss, so none is shown (not even as N/A)
    warmup_emits_steps: bool = True      # False: warm-up emits no step, so none is dropped from the step statistics
    planned_steps: PlannedSteps = _cap_only  # how many steps a configuration will count (progress and ETA); the
                                         # words in ``progress`` say what that count covers
    module: str = ""                     # what the runner starts: `python -m <module>` (default workloads.<name>)
    run_files: tuple[str, ...] = ()      # files of the run directory the bundle carries besides the events and log
    detached: bool = False               # hours long: the workbench starts it detached (quitting leaves it running)
    short: str = ""                      # the launcher's and the footer's name, when the title's first word is not one
    hand_over: HandOver | None = None    # what its run gives the suite's later jobs: with one it runs first
    # a soak's run of it, when it has a steady form: its arguments made to keep the load on for the seconds given
    # (the rest of the soak) with several steps an interval (the interval's seconds), so the soak only restarts it
    # when it dies; None: run after run, each started when the last ends
    steady: Callable[[Sequence[str], float, float], list[str]] | None = None
    # `cardbench doctor --data DIR`: a quick torch-free look at a data directory -> {"status": PASS/WARN/FAIL,
    # "evidence", "hint", "zh" (the Chinese of both), "value", "unit"}
    data_check: Callable[[str], Mapping[str, Any]] | None = None
    # a workload that runs others (the soak): the runs its arguments plan, (workload, its arguments), among the
    # workload names given (the registry's); raises WorkloadError on a plan that cannot run. `cardbench soak` checks
    # the plan and each inner run's arguments this way before anything starts
    inner_runs: Callable[[Sequence[str], Sequence[str]], list[tuple[str, list[str]]]] | None = None
    # a rough guess of a run's seconds, before it starts: (its arguments, on the CPU) -> seconds, or None where the
    # workload cannot tell (a data folder's size, an accelerator's speed); the launcher asks before a long run
    estimate_s: Callable[[Sequence[str], bool], "float | None"] | None = None

    @property
    def run_module(self) -> str:
        return self.module or f"workloads.{self.name}"

    @property
    def short_title(self) -> str:
        """The footer's key label: ``short``, else the title's first word."""
        return self.short or self.title.en.split(" ")[0]

    def __post_init__(self) -> None:
        self.result.checked()

    # what the report, the terminal and compare read of the result: the record's, said here for the many readers
    @property
    def headline(self) -> str:
        return self.result.HEADLINE

    @property
    def unit(self) -> str:
        """The headline's unit, of each step's throughput too ("" where it is the run's own: your job's it/s)."""
        if self.result.UNIT is not None:
            return self.result.UNIT
        head = self.result.figure(self.headline) if self.headline else None
        return head.unit if head is not None else ""

    @property
    def metrics(self) -> tuple[Figure, ...]:
        """The report's table for a run of this workload, in order (precision and batch size follow on every one)."""
        return tuple(f for f in (self.result.figure(k) for k in self.result.TABLE) if f is not None)

    @property
    def line_metrics(self) -> tuple[Figure, ...]:
        """Besides the headline: the terminal's result line and the launcher's glance."""
        return tuple(f for f in (self.result.figure(k) for k in self.result.LINE) if f is not None)

    @property
    def verdict(self) -> str:
        return self.result.VERDICT

    @property
    def steps_repeat(self) -> bool:
        """Whether the steps' median rate is a figure of the run (`Record.STEPS_REPEAT`)."""
        return self.result.STEPS_REPEAT

    @property
    def cost_basis(self) -> str | None:
        return self.result.COST_BASIS

    @property
    def report_table(self) -> Any:
        return self.result.printer("REPORT_TABLE")

    @property
    def report_tables(self) -> list[Any]:
        """Every table printer of the report: REPORT_TABLE's, then MORE_TABLES'."""
        return self.result.table_printers()

    @property
    def terminal_text(self) -> Any:
        return self.result.printer("TERMINAL_TEXT")

    @property
    def read_against(self) -> Any:
        return self.result.printer("READ_AGAINST")

    def metric(self, key: str) -> Figure | None:
        """The figure ``key`` names in this workload's result, or None when its record does not declare it."""
        return self.result.figure(key)

    def headline_label(self, lang: str = "en", unit: str | None = None) -> str:
        """The headline's label, which says which figure it is: 'images/s (median after warm-up)'. A workload
        whose unit is the run's own (your job's it/s) is given it: 'it/s, throughput the log printed (...)'."""
        metric = self.metric(self.headline)
        label = metric.label(lang) if metric else self.unit
        return f"{unit}, {label}" if unit and not self.unit and metric else label

    def steps_planned(self, args: Sequence[str], config: Mapping[str, Any] | None = None) -> int | None:
        """Steps the run will count up to, when knowable: the start event's ``total_steps`` first."""
        config = config or {}
        return positive(config.get("total_steps")) or self.planned_steps(list(args), config)


def unknown(name: str) -> WorkloadSpec:
    """The spec of a run whose workload is not registered here (a run from another version)."""
    return WorkloadSpec(name=name, title=Text(name or "unknown workload"))
