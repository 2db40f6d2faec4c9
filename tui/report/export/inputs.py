"""What one export is asked for (`ExportInputs`): the runs, where the zip goes, and every choice the caller makes.

One frozen record, built once by the caller (the workbench's `e` key, `cardbench export --run`, the headless
suite) and read by every stage of the pipeline (``tui.report.export``); no stage changes it.
"""

from __future__ import annotations

import os
from dataclasses import KW_ONLY, dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

# (records, sample) -> (svg, None), or (None, why it could not be drawn); tui.workbench.screenshot.app_screenshot is one
Screenshot = Callable[[Sequence[Any], Any], tuple[str | None, str | None]]


@dataclass(frozen=True)
class ExportInputs:
    """The runs to export and into which directory; then (by keyword) the caller's choices.

    The screen: ``screenshot_svg`` when given (the live workbench's), else what
    ``screenshot(records, sample)`` draws, else (and when it draws nothing) a plain text
    screen, which the report says (``screenshot_note`` words it instead of the default).
    ``progress(message)`` is told each stage. ``doctor_checks`` (DoctorCheck objects or
    dicts): when None the doctor runs during the export. ``notes``: export-level facts the
    report must state (a scaled-down suite, a skipped workload...). ``sample``: the device
    snapshot; when None one is taken. ``environ``: the environment the redactor and env.json
    read (None: this process's).
    """

    run_dirs: tuple[Path, ...]
    output_dir: Path
    _: KW_ONLY
    screenshot_svg: str | None = None
    screenshot: Screenshot | None = None
    progress: Callable[[str], Any] | None = None
    price_per_hour: float | None = None
    currency: str = "USD"
    lang: str = "en"
    price_from: str | None = "option"     # tui.trial.config.PRICE_GIVEN or PRICE_KEPT
    doctor_checks: Sequence[Any] | None = None
    doctor_note: str | None = None
    notes: tuple[str, ...] = ()
    sample: Any = None
    environ: Mapping[str, str] | None = None
    screenshot_note: str | None = None
    # the caller's own section of the report, in ``lang``, after the summary: `cardbench ready`'s readiness table
    sections: tuple[Any, ...] = ()
    # the caller's own text files at the bundle's top (name -> text), redacted as every text: the same table in
    # each language
    files: Mapping[str, str] | None = None

    def __post_init__(self) -> None:
        # a caller's list or str paths become the record's own tuple and Paths (frozen: set through object)
        object.__setattr__(self, "run_dirs", tuple(Path(p) for p in self.run_dirs))
        object.__setattr__(self, "output_dir", Path(os.fspath(self.output_dir)))
        object.__setattr__(self, "notes", tuple(self.notes))
        object.__setattr__(self, "sections", tuple(self.sections))

    def say(self, message: str) -> None:
        """Tell the caller's progress display which stage starts."""
        if self.progress is None:
            return
        try:
            self.progress(message)
        except Exception:  # noqa: BLE001 - a broken progress display must not cost the report
            pass
