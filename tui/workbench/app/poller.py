"""The one poller of live data: what arrives (a run's events, from this workbench's child or from a run followed on
disk; telemetry samples, from the sampler's thread) waits in its inbox; each poll takes it in order into the
`History` and the run's state and posts one `tui.workbench.view.snapshot.LiveSnapshot` (devices, series, run state)
as one `SnapshotReady` message, which the panes render.

Polls run on the UI thread, woken by a timer (steps, however fast they come, are drawn at most every
``POLL_S``) or at once by `LiveDataArrived` (an event other than a step, a sample, a change the app asks to show),
so they never overlap. `LivePoller` is a controller the `tui.workbench.app.Workbench` owns; it reaches the app only
through `PollerHost`.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any, Callable, Protocol, Sequence

from tui.workbench.panes.messages import LiveDataArrived, SnapshotReady

if TYPE_CHECKING:
    from textual.message import Message

    from tui.workbench.history import History
    from tui.workbench.view.run_state import RunState
    from tui.workbench.view.snapshot import SeriesCopies
    from workloads import protocol

POLL_S = 0.5   # plots repaint at most this often, however fast steps arrive


class PollerHost(Protocol):
    """What `LivePoller` needs of the app."""

    history: History
    state: RunState
    latest_sample: Any

    def take_event(self, run_id: str, event: protocol.Event) -> None: ...
    def take_sample(self, sample: Any) -> None: ...
    def wanted_plots(self) -> tuple[Sequence[int], bool]: ...
    def post_message(self, message: Message) -> bool: ...
    def set_interval(self, interval: float, callback: Callable[[], Any]) -> Any: ...


class LivePoller:
    """One inbox, one poll at a time, one snapshot a poll."""

    def __init__(self, host: PollerHost) -> None:
        self.host = host
        # ("event", run_id, event) | ("sample", Sample) | ("line", telemetry.jsonl dict): deque appends and pops
        # are atomic, so the sampler's thread adds to it while a poll takes from it
        self.inbox: deque[tuple[Any, ...]] = deque()
        self.polls = 0
        self._dirty = False   # something to show that is not in the inbox (the app changed the run's state)
        self._copies: SeriesCopies | None = None

    def start(self) -> None:
        """Poll on a timer from now on (after the first frame: the history and the plots exist)."""
        self.host.set_interval(POLL_S, self.tick)

    # what arrives ------------------------------------------------------------------------------
    def put_event(self, run_id: str, event: protocol.Event, *, wake: bool) -> None:
        """A run's event; ``wake``: poll now (any event but a step: a step waits for the timer, so a fast run's
        steps are drawn at most every ``POLL_S``)."""
        self.inbox.append(("event", run_id, event))
        if wake:
            self.request()

    def put_sample(self, sample: Any) -> None:
        """A telemetry `Sample`; safe from any thread."""
        self.inbox.append(("sample", sample))
        self.request()

    def put_sample_line(self, line: dict) -> None:
        """A telemetry.jsonl line of a run followed on disk."""
        self.inbox.append(("line", line))

    def request(self) -> None:
        """Show what changed at the next message: safe from any thread (`post_message` is)."""
        self._dirty = True
        self.host.post_message(LiveDataArrived())

    # polling -----------------------------------------------------------------------------------
    def tick(self) -> None:
        """The timer's: a poll when something arrived since the last."""
        if self.inbox or self._dirty:
            self.poll()

    def poll(self) -> None:
        """Take the inbox in order, then post one snapshot."""
        # loaded at the first poll, after the first frame: the history and the plots' lines are not needed before
        from tui.workbench.view.snapshot import SeriesCopies, build_snapshot

        self._dirty = False
        self._drain()
        host = self.host
        if self._copies is None:
            self._copies = SeriesCopies()
        wanted, first_with_data = host.wanted_plots()
        snapshot = build_snapshot(host.history, host.state, host.latest_sample, wanted=wanted,
                                  first_with_data=first_with_data, copies=self._copies)
        self.polls += 1
        host.post_message(SnapshotReady(snapshot))

    def _drain(self) -> None:
        host, inbox = self.host, self.inbox
        while inbox:
            item = inbox.popleft()
            if item[0] == "event":
                host.take_event(item[1], item[2])
            elif item[0] == "sample":
                host.take_sample(item[1])
            else:
                host.history.add_sample_line(item[1])
