"""One reader per vendor management CLI that has no NVML and no JSON of AMD's shape.

Each module here is named after its tool and holds, UI-free and torch-free:

- ``EXE``: the executable's name as installed (``"npu-smi"``);
- ``read(call) -> (devices, problems)``: asks the tool what it needs through ``call`` (``call(["info"])``
  runs ``<exe> info`` bounded in time and returns a `tui.telemetry.cli_tool.CliResult`), a machine-readable
  form first where the tool has one and its table when that form fails, and never raises;
- ``parse_*(text) -> list[DeviceSample]``: the pure parsers ``read`` uses, which raise `ReaderError` on text
  that is not the tool's (the tests feed them real captures).

Every figure the tool does not print stays None (shown N/A), never 0; what the tool prints is kept as printed
(memory used above total is kept, and said as a problem, never clipped). ``util_kind`` names what the
utilisation counts when it is not a GPU's busy share (Ascend's "AICore"), ``health`` the card's state in the
tool's own words.
"""

from __future__ import annotations

from typing import Callable

from tui.telemetry.cli_tool import CliResult
from tui.telemetry.sample import DeviceSample

Call = Callable[[list[str]], CliResult]
Reading = tuple[list[DeviceSample], list[str]]


class ReaderError(ValueError):
    """The text is not the tool's output this parser knows (garbage, half a table, another tool's)."""


def not_this_build(call: Call, args: list[str]) -> None:
    """Tell the source that the installed build does not answer ``args`` (it answered, but not in that form: an older
    build printing its usage or table), so that the form is not asked again for a while; a plain `call` (a test's)
    has no such memory and this does nothing."""
    mark = getattr(call, "unsupported", None)
    if mark is not None:
        mark(args)
