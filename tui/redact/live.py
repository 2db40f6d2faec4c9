"""What the live screen shows of a run's arguments and the launcher's fields."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from tui.redact.redactor import Redactor
from tui.redact.rules import REDACTED, is_secret_name


def redacted_args(args: Iterable[Any], redactor: Redactor) -> list[str]:
    """A run's arguments as a screen may show them: secret options' values and learned secrets replaced."""
    return redactor.obj([str(a) for a in args])


def redacted_values(values: Mapping[str, str], redactor: Redactor) -> dict[str, str]:
    """The launcher's field values (field name -> text) as a screen may show them.

    A field whose name looks secret shows only the marker; any other its text redacted. Set on the
    fields before the screen is drawn: a field crops its text, and the cropped half of a secret is
    found by no rule afterwards.
    """
    return {key: (REDACTED if value and is_secret_name(key) else redactor.text(value)) if isinstance(value, str)
            else value for key, value in values.items()}

