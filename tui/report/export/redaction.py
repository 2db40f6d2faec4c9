"""The export's redaction stage: a redactor that knows every secret the runs recorded, and redacted copies of
the runs for everything that is drawn (see ``tui.redact`` for the rules)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from tui.redact import Redactor
from tui.store.record import RunRecord


@dataclass(frozen=True)
class Redacted:
    redactor: Redactor
    shown: tuple[RunRecord, ...]   # the runs, redacted: what the screen, the text screen and the charts draw


def redact(records: Sequence[RunRecord], environ: Mapping[str, str] | None) -> Redacted:
    """The redactor taught by ``environ`` and the runs; the runs redacted.

    Each run teaches its arguments, its start config and the secrets it recorded when
    it was created (the variable may be gone from this shell: an export after a crash).
    What is drawn is drawn from redacted copies: a field or a line cut to its width can
    then only cut the marker, never half a secret that no rule finds after.
    """
    redactor = Redactor(environ)
    for record in records:
        redactor.learn_run(record)
    if redactor.hiding:  # a recorded secret no config holds now (one was edited): looked for in the logs too
        for record in records:
            redactor.discover(record.log_text)
    return Redacted(redactor, tuple(redactor.record(record) for record in records))
