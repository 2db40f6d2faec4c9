"""The management CLI's own output, as the campaigns ask for ("a screenshot of nvidia-smi").

The first management CLI found on PATH is run (with a timeout) and its output
kept verbatim. Where there is none, or none answers, cardbench's own device
table stands in, with a note saying so: the report never pretends.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from typing import Any, Sequence

from tui.i18n.voice import Voice
from workloads.facts.formatting import code
from tui.telemetry import vendors
from tui.telemetry.cli_tool import run_bounded
from tui.telemetry.once import render

# tool, arguments that print its nvidia-smi-like overview, in the vendor table's order (nvidia-smi first)
TOOLS: tuple[tuple[str, tuple[str, ...]], ...] = tuple((c.exe, c.screen_args) for c in vendors.CLIS)
TIMEOUT_S = 20.0


@dataclass
class SmiOutput:
    tool: str | None          # None: cardbench's own table stands in
    command: str
    text: str
    note: str | None = None   # why the output is not (only) the real CLI's
    tried: tuple[str, ...] = ()
    failures: tuple[tuple[str, str | None], ...] = ()  # (command, its problem; None: it printed nothing)

    @property
    def why(self) -> str:
        """Why cardbench's own table stands in, for one sentence of the report."""
        return self.why_in("en")

    def why_in(self, lang: str) -> str:
        """``why`` in the report's language; what each tool answered is quoted as it was."""
        w = Voice(lang, "report.")
        if self.failures:
            return w.join(w("smi_tool_said", command=code(command),
                            problem=w.quote(problem) if problem else w("smi_no_output"))
                          for command, problem in self.failures)
        if self.tried:   # a bundle's smi record from before failures were kept: its English, quoted in Chinese
            return w.join(w.quote(t) if w.zh else t for t in self.tried)
        return w("smi_none_on_path", tools=w.join((w.quote(t) for t, _a in TOOLS), comma=True))

    def to_dict(self) -> dict[str, Any]:
        return {"tool": self.tool, "command": self.command, "note": self.note, "tried": list(self.tried)}


def run_management_cli(tools: Sequence[tuple[str, Sequence[str]]] = TOOLS, timeout: float = TIMEOUT_S,
                       sample: Any = None) -> SmiOutput:
    tried: list[str] = []
    failures: list[tuple[str, str | None]] = []
    for tool, args in tools:
        path = shutil.which(tool)
        if path is None:
            continue
        command = " ".join([tool, *args])
        done = run_bounded([path, *args], timeout)
        text = done.stdout.rstrip("\n")
        if done.problem is not None or not text.strip():
            tried.append(f"`{command}`: {done.problem or 'no output'}")
            failures.append((command, done.problem))
            continue
        return SmiOutput(tool=tool, command=command, text=text, note=None if not tried else
                         "other tools failed first: " + "; ".join(tried), tried=tuple(tried),
                         failures=tuple(failures))
    note = ("no management CLI (nvidia-smi or a vendor equivalent) answered on this machine"
            + (": " + "; ".join(tried) if tried else " (none found on PATH)")
            + "; this is cardbench's own device table instead")
    return SmiOutput(tool=None, command="cardbench devices", text=device_table(sample), note=note,
                     tried=tuple(tried), failures=tuple(failures))


def device_table(sample: Any = None) -> str:
    """cardbench's own device table: what `cardbench devices` prints, from the export's snapshot."""
    if sample is None:  # the export's one snapshot failed; it says why in its notes
        return "cardbench devices: no device snapshot (device detection failed; see the report's notes)"
    sources = {"read from": ", ".join(sample.sources) or "none answered"}
    return "(no management CLI answered; values from cardbench's own sources)\n\n" + render(sample, sources)
