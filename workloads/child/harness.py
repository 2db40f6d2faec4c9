"""What every workload child uses to talk to the workbench.

- :class:`Emitter` writes protocol events, one JSON line each, flushed at once.
  It takes the real stdout for itself and points file descriptor 1 at stderr, so
  a stray ``print`` from a library lands in the run log instead of corrupting the
  event stream.
- :class:`WorkloadError` is bad input or a known failure: it becomes an ``error``
  event with a hint and exit code 2 (bad input) or 1, never a traceback.
- :func:`run_main` wraps a workload's ``main``: argument errors, ``WorkloadError``,
  SIGTERM (-> ``end(stopped)``) and unexpected exceptions all end with an
  ``end`` event; the traceback goes to stderr, which the runner puts in run.log.
- :class:`ArgumentParser` reports a bad argument as an ``error`` event and exit 2.
- :func:`log` writes a progress line to stderr, which the runner keeps as run.log.

``cardbench run`` checks a workload's arguments before it records a run, by
starting the workload with :data:`CHECK_ARGS_ENV` set to the command's name
(``cardbench run resnet50``). The workload then stops as soon as
:class:`ArgumentParser` has parsed, before anything heavy is imported, and
writes no event: exit 0 when the arguments are good; 2 and one line on stderr
when not; :data:`HELP_SHOWN` once ``--help`` has printed its text on stdout.

Nothing here imports torch: workloads import it themselves, after parsing.
"""

from __future__ import annotations

import argparse
import io
import math
import os
import signal
import sys
import traceback
from typing import Any, Callable, Mapping, NoReturn, Sequence, TextIO

from workloads import exit_codes, protocol
from workloads.child.parent import die_with_runner
from workloads.catalogue import Message
from workloads.result_record import Record
from workloads.errors import WorkloadError, clipped, first_line
from workloads.exit_codes import HELP_SHOWN
from workloads.protocol import CHECK_ARGS_ENV

# defined where the UI process can import them without importing this package (tests/test_imports.py)
__all__ = ["CHECK_ARGS_ENV", "HELP_SHOWN", "WorkloadError"]


def checking_args() -> str | None:
    """The command's name when this process only checks its arguments (:data:`CHECK_ARGS_ENV`), else None."""
    return os.environ.get(CHECK_ARGS_ENV) or None


def arguments_checked() -> None:
    """A workload calls this once its arguments are parsed and checked, before torch or any work: a check
    (:data:`CHECK_ARGS_ENV`) stops here, so `cardbench run` refuses what the workload's own checks refuse."""
    if checking_args():
        raise ArgsChecked()


class ArgsChecked(BaseException):
    """The arguments of a check parsed: the workload stops here, before it runs (a BaseException: no workload
    ``except Exception`` may swallow it)."""


class Stopped(BaseException):
    """Raised in the workload's main thread when SIGTERM arrives."""


class Emitter:
    """Writes protocol events to the stream the runner reads."""

    def __init__(self, stream: TextIO | None = None):
        self.checking = checking_args() is not None
        if stream is None and self.checking:
            stream = io.StringIO()  # a check writes no event, and stdout stays the terminal's for --help
        self._stream = stream if stream is not None else _claim_stdout()
        self.ended = False

    def emit(self, event: protocol.Event) -> None:
        if self.checking:
            raise ArgsChecked()  # a workload parsing without ArgumentParser got past its arguments: stop it here
        if isinstance(event, protocol.End):
            if self.ended:
                return
            self.ended = True
        self._stream.write(event.to_json() + "\n")
        self._stream.flush()

    def start(self, workload: str, config: dict[str, Any], device: str, versions: dict[str, Any]) -> None:
        self.emit(protocol.Start(workload=workload, config=config, device=device, versions=versions))

    def step(self, step: int, **fields: Any) -> None:
        known, extra = _split(protocol.Step, fields)
        self.emit(protocol.Step(step=step, extra=extra, **known))

    def warning(self, message: str, code: str | None = None, **extra: Any) -> None:
        self.emit(protocol.WorkloadWarning(message=message, code=code, extra=extra))

    def fallback(self, error: str, action: str, layer: str | None = None, op: str | None = None, **extra: Any) -> None:
        self.emit(protocol.Fallback(error=error, action=action, layer=layer, op=op, extra=extra))

    def result(self, record: Record | Mapping[str, Any]) -> None:
        """The run's typed result, sent as its flat metrics; a figure its record does not declare is kept, and said.
        A plain mapping is a stand-in's or a plugin's that has no record yet: its figures are said as written
        (cardbench's own workloads always give a record: tests/workloads/test_record.py checks)."""
        if not isinstance(record, Record):
            self.emit(protocol.Result(metrics=dict(record)))
            return
        undeclared = record.undeclared()
        if undeclared:
            self.warning(f"figures no result record declares, kept as written: {', '.join(undeclared)}",
                         code="undeclared_figures")
        self.emit(protocol.Result(metrics=record.to_metrics()))

    def error(self, message: str, hint: str | Message | None = None) -> None:
        self.emit(protocol.Error(message=message, hint=hint))

    def end(self, status: str, exit_code: int | None = None) -> None:
        self.emit(protocol.End(status=status, exit_code=exit_code))


def _split(cls: type[protocol.Event], values: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    names = set(cls.__dataclass_fields__) - {"extra"}
    known = {k: v for k, v in values.items() if k in names}
    extra = {k: v for k, v in values.items() if k not in names}
    return known, extra


def _claim_stdout() -> TextIO:
    """Keep the real stdout for events; send fd 1 (and sys.stdout) to stderr."""
    sys.stdout.flush()
    events_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return io.TextIOWrapper(os.fdopen(events_fd, "wb", buffering=0), encoding="utf-8", line_buffering=True)


class ArgumentParser(argparse.ArgumentParser):
    """argparse that reports a bad argument as an ``error`` event, exit 2; in a check, usage names `cardbench run`."""

    emitter: Emitter | None = None

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        checked_as = checking_args()
        if checked_as:
            self.prog = checked_as  # "usage: cardbench run resnet50 ..."

    def error(self, message: str) -> NoReturn:  # type: ignore[override]
        from workloads import registry

        command = f"cardbench run {self.prog}" if self.prog in registry else self.prog
        raise WorkloadError(f"{self.prog}: {message}", hint=f"see `{command} --help`")


def _number(text: str, kind: type, minimum: float, inclusive: bool, what: str):
    try:
        value = kind(text)
    except ValueError:  # a 100,000-digit argument is named by its start and length, not repeated
        raise argparse.ArgumentTypeError(
            f"{clipped(text, quote=True)} is not {'an integer' if kind is int else 'a number'}") from None
    if not math.isfinite(value):  # inf passes a lower bound: --temperature inf sampled uniformly, status ok
        raise argparse.ArgumentTypeError(f"must be a finite number, got {clipped(text)}")
    if not (value >= minimum if inclusive else value > minimum):
        raise argparse.ArgumentTypeError(f"must be {what}, got {clipped(text)}")
    return value


def positive_int(text: str) -> int:
    return _number(text, int, 0, False, "a positive integer")


def non_negative_int(text: str) -> int:
    return _number(text, int, 0, True, "0 or more")


def positive_float(text: str) -> float:
    return _number(text, float, 0.0, False, "above 0")


def non_negative_float(text: str) -> float:
    return _number(text, float, 0.0, True, "0 or more")


def log(message: str) -> None:
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


def _on_sigterm(signum: int, frame: Any) -> None:
    raise Stopped()


def run_main(main: Callable[[Emitter, Sequence[str]], int | None], argv: Sequence[str] | None = None,
             emitter: Emitter | None = None) -> int:
    """Run a workload's ``main(emitter, argv)`` and turn every ending into an ``end`` event.

    Returns the process exit code; a workload module does ``sys.exit(run_main(main))``.
    """
    em = emitter or Emitter()
    if argv is None:
        argv = sys.argv[1:]
    if checking_args():
        return _check_args(main, em, list(argv))
    die_with_runner()
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        code = main(em, list(argv)) or exit_codes.OK
        em.end("ok" if code == exit_codes.OK else "failed", exit_code=code)
        return code
    except WorkloadError as exc:
        em.error(exc.message, exc.hint)
        em.end("failed", exit_code=exc.exit_code)
        return exc.exit_code
    except SystemExit as exc:  # --help, or a library calling sys.exit
        code = exc.code if isinstance(exc.code, int) else (exit_codes.OK if exc.code is None else exit_codes.FAILED)
        em.end("ok" if code == exit_codes.OK else "failed", exit_code=code)
        return code
    except (Stopped, KeyboardInterrupt):
        em.end("stopped", exit_code=exit_codes.STOPPED)
        return exit_codes.STOPPED
    except Exception as exc:  # noqa: BLE001 - the boundary: everything becomes an event
        traceback.print_exc(file=sys.stderr)
        from workloads.hints import hint_for  # local: keeps start-up light

        em.error(first_line(exc, typed=True), hint_for(str(exc)))
        em.end("failed", exit_code=exit_codes.FAILED)
        return exit_codes.FAILED
    finally:
        signal.signal(signal.SIGTERM, previous)


def _check_args(main: Callable[[Emitter, Sequence[str]], int | None], em: Emitter, argv: list[str]) -> int:
    """A check (:data:`CHECK_ARGS_ENV`): ``main`` runs until `arguments_checked` (or its first event); no event,
    one line at most."""
    try:
        main(em, argv)
    except ArgsChecked:
        return exit_codes.OK
    except WorkloadError as exc:
        said = f"{exc.message} ({exc.hint})" if exc.hint else exc.message
        command = checking_args() or ""
        log(said if said.startswith(command) else f"{command}: {said}")  # argparse's lines name it already
        return exc.exit_code
    except SystemExit as exc:  # --help printed its text on stdout
        if exc.code in (None, 0):
            return HELP_SHOWN
        return exc.code if isinstance(exc.code, int) else exit_codes.FAILED
    except Exception:  # noqa: BLE001 - not the arguments: the run that follows the check reports it
        traceback.print_exc(file=sys.stderr)
        return exit_codes.FAILED
    return exit_codes.OK  # main returned without parsing or reporting anything: nothing to object to
