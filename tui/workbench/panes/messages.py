"""Small messages from workers and the sampler thread to the app."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from tui.workbench.view.snapshot import LiveSnapshot


class LiveDataArrived(Message):
    """Live data waits in the poller's inbox (an event, a sample): poll now. A queue of these collapses to one."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, LiveDataArrived)


class SnapshotReady(Message):
    """One poll's `tui.workbench.view.snapshot.LiveSnapshot`: the panes render it. A newer one replaces a queued
    older one (each is whole)."""

    def __init__(self, snapshot: LiveSnapshot) -> None:
        super().__init__()
        self.snapshot = snapshot

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, SnapshotReady)


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
