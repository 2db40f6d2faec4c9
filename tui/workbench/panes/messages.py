"""Small messages from workers and the sampler thread to the app."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from workloads import protocol


class TelemetryArrived(Message):
    """A new telemetry `Sample` (posted from the sampler thread)."""

    def __init__(self, sample) -> None:
        super().__init__()
        self.sample = sample


class WorkloadEvent(Message):
    """One protocol event of the active run, other than a step."""

    def __init__(self, run_id: str, event: protocol.Event) -> None:
        super().__init__()
        self.run_id = run_id
        self.event = event


class StepsArrived(Message):
    """New steps are in the history: panes refresh. A queue of these collapses to the newest."""

    def __init__(self, run_id: str, step: protocol.Step) -> None:
        super().__init__()
        self.run_id = run_id
        self.step = step

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, StepsArrived) and message.run_id == self.run_id


class WorkloadLog(Message):
    """A line the workload wrote on stderr."""

    def __init__(self, run_id: str, line: str) -> None:
        super().__init__()
        self.run_id = run_id
        self.line = line


class DoctorFinished(Message):
    """The doctor's checks are in (posted to the app by the doctor screen): the log records their outcome."""

    def __init__(self, checks: list) -> None:
        super().__init__()
        self.checks = checks
