"""Live data's one path (issue 35 item 6): the poller takes its inbox in order and posts one immutable snapshot
(devices, series, run state) a poll; the panes render snapshots."""

from __future__ import annotations

import dataclasses

import pytest

from app_fakes import fake_sample
from tui.workbench.app.poller import LivePoller
from tui.workbench.history import History
from tui.workbench.panes.messages import LiveDataArrived, SnapshotReady
from tui.workbench.view.run_state import RunState
from tui.workbench.view.snapshot import PLOTS, build_snapshot
from workloads import protocol


def _step(i: int) -> protocol.Step:
    return protocol.Step(t=float(i), step=i, loss=5.0 / i, throughput=100.0 + i, unit="images/s")


def test_a_snapshot_does_not_change_after_it_is_built():
    history, state = History(), RunState(workload="resnet50", run_id="r1", status="running")
    for i in range(1, 6):
        history.add_step("r1", _step(i))
        state.see_step(_step(i))
    history.add_sample(fake_sample(0))
    snapshot = build_snapshot(history, state, fake_sample(0))
    loss = snapshot.lines[0][0].series
    with pytest.raises(dataclasses.FrozenInstanceError):
        snapshot.state = RunState()   # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        snapshot.lines[0][0].series = loss   # type: ignore[misc]
    with pytest.raises(TypeError):
        loss.append(6, 1.0)
    # what the app goes on doing to its history and its state reaches no snapshot already built
    for i in range(6, 50):
        history.add_step("r1", _step(i))
        state.see_step(_step(i))
    history.add_sample(fake_sample(1))
    assert len(loss) == 5 and list(loss.xs) == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert snapshot.state.step == 5 and state.step == 49
    assert [len(line.series) for line in snapshot.lines[2]] == [1] * len(snapshot.lines[2])
    # a series that did not move is not copied again; one that moved is
    again = build_snapshot(history, state, None)
    assert again.lines[0][0].series is not loss and len(again.lines[0][0].series) == 49


class _Host:
    """What the poller reaches of the app (`PollerHost`), recorded."""

    def __init__(self) -> None:
        self.history, self.state, self.latest_sample = History(), RunState(run_id="r1", status="running"), None
        self.posted: list = []
        self.taken: list = []

    def take_event(self, run_id, event):
        self.taken.append(event)
        self.history.add_step(run_id, event)
        self.state.see_step(event)

    def take_sample(self, sample):
        self.taken.append(sample)
        self.latest_sample = sample
        self.history.add_sample(sample)

    def wanted_plots(self):
        return range(len(PLOTS)), False

    def post_message(self, message):
        self.posted.append(message)
        return True

    def set_interval(self, interval, callback):
        return None


def test_one_poll_takes_the_inbox_in_order_and_posts_one_snapshot():
    host = _Host()
    poller = LivePoller(host)
    poller.tick()
    assert host.posted == []   # nothing arrived: a timer's tick posts nothing
    samples = [fake_sample(i) for i in range(3)]
    for i in range(1, 4):
        poller.put_event("r1", _step(i), wake=False)   # a step waits for the timer
    assert host.posted == []
    poller.put_sample(samples[0])
    poller.put_event("r1", _step(4), wake=False)
    poller.put_sample(samples[1])
    poller.put_sample(samples[2])
    assert all(isinstance(m, LiveDataArrived) for m in host.posted) and len(host.posted) == 3
    host.posted.clear()
    poller.poll()
    assert len(host.posted) == 1 and isinstance(host.posted[0], SnapshotReady)
    assert host.taken == [_step(1), _step(2), _step(3), samples[0], _step(4), samples[1], samples[2]]
    assert not poller.inbox and poller.polls == 1
    snapshot = host.posted[0].snapshot
    assert snapshot.sample is samples[2] and snapshot.state.step == 4
    assert [len(line.series) for line in snapshot.lines[1]] == [3, 1]   # the median's steps; the warm-up's
    poller.tick()
    assert len(host.posted) == 1   # nothing new since: no second snapshot


def _finite_points(xs, ys) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in zip(xs, ys) if y is not None]


@pytest.mark.parametrize("flagged", [(), (1, 2, 40, 41)])
def test_the_screen_and_the_report_draw_the_same_series_for_the_same_steps(flagged):
    from pathlib import Path

    from tui.report.charts import WARMUP_GREY, throughput_series
    from tui.store import RunRecord
    from tui.workbench.plot_lines import loss_lines, throughput_lines

    events: list[protocol.Event] = [protocol.Start(t=0.0, workload="resnet50", device="cuda:0")]
    events += [protocol.Step(t=float(i), step=i, loss=5.0 / i, throughput=50.0 if i < 4 else 100.0 + i % 7,
                             unit="images/s", extra={"warmup": True} if i in flagged else {})
               for i in range(1, 151)]
    record = RunRecord(path=Path("runs/20260101-000000-resnet50-0001"), config={}, events=events)
    counted, warmup = throughput_series(record, "images/s")
    assert warmup.color == WARMUP_GREY
    live, read = History(), History()
    live.run(record.id, label="resnet50", unit="images/s", emits_warmup=True)
    for step in record.steps:   # as the poller gives the history a run's steps, one by one
        live.add_step(record.id, step)
    read.add_record(record)     # as a run reopened from disk (the report's screenshot)
    for history in (live, read):
        snapshot = build_snapshot(history, RunState(), None)
        (median, grey), (loss,) = snapshot.lines[1], snapshot.lines[0]
        assert grey.warmup and not median.warmup
        assert list(zip(median.series.xs, median.series.ys)) == _finite_points(counted.xs, counted.ys)
        assert list(zip(grey.series.xs, grey.series.ys)) == _finite_points(warmup.xs, warmup.ys)
        assert len(grey.series) == (len(flagged) or 10)
        assert [line.label for line in throughput_lines(history)] == [median.label, grey.label]
        assert list(loss.series.ys) == [s.loss for s in record.steps] == list(loss_lines(history)[0].series.ys)


def _utilisation_drawn(record) -> tuple[dict, dict]:
    """Per device index, the (x, y) points of its utilisation and memory lines: the screen's plot (the run reopened,
    as the report's screenshot draws it) and the report's chart."""
    from tui.report.charts import utilisation_series
    from tui.workbench.plot_lines import util_lines
    from workloads.facts.formatting import device_tag

    history = History()
    history.add_record(record)
    screen = {line.label: list(zip(line.series.xs, line.series.ys)) for line in util_lines(history)}
    _, unit, lines = utilisation_series(record, "resnet50")
    assert unit == "seconds"
    report = {line.label: _finite_points(line.xs, line.ys) for line in lines}
    tags = {k: device_tag(k) for k in (0, 1)}
    return ({k: (screen[f"{tag} util %"], screen[f"{tag} mem %"]) for k, tag in tags.items()},
            {k: (report[f"util % {tag}"], report[f"memory % {tag}"]) for k, tag in tags.items()})


def test_the_screen_and_the_report_draw_the_same_utilisation_for_the_same_samples(monkeypatch):
    """Both build a device's telemetry series with `tui.store.series` (issue 35 item 6): the same points for the same
    samples, and a change to how a series is read shows on both (it would not on one that built its own)."""
    from pathlib import Path

    from tui.store import RunRecord
    from tui.store import series as store_series
    from workloads.rundir.sample_fields import (BUS_ID, CPU_PCT, DEVICES, HOST, INDEX, MEM_TOTAL_BYTES,
                                                MEM_USED_BYTES, NAME, T, UTIL_GPU_PCT)

    samples = [{T: 500.0 + i, HOST: {CPU_PCT: 5.0},
                DEVICES: [{INDEX: k, BUS_ID: f"0000:0{k}:00.0", NAME: "Card", UTIL_GPU_PCT: float(i * (k + 3) % 101),
                           MEM_USED_BYTES: 1000 * i + k, MEM_TOTAL_BYTES: 10 ** 5} for k in (0, 1)]}
               for i in range(60)]
    record = RunRecord(path=Path("runs/20260101-000000-resnet50-0001"), config={}, telemetry=samples,
                       events=[protocol.Start(t=500.0, workload="resnet50", device="cuda:0")])
    screen, report = _utilisation_drawn(record)
    assert screen == report
    assert screen[1][0] == [(float(i), float(i * 4 % 101)) for i in range(60)]
    assert screen[1][1][:2] == [(0.0, 0.001), (1.0, 1.001)]

    # a utilisation read another way (here: 1000 + the reading's place) is drawn that way by both
    monkeypatch.setitem(store_series.DEVICE_READINGS, "util",
                        lambda cols, n: [1000.0 + at for at in range(len(cols) if n is None else n)])
    screen, report = _utilisation_drawn(record)
    assert screen == report
    assert screen[0][0] == [(float(i), 1000.0 + i) for i in range(60)]


async def test_the_panes_render_a_posted_snapshot_and_nothing_else(tmp_path):
    from app_fakes import frozen_clock
    from tui.workbench.app import build_app

    history = History()
    for i in range(1, 31):
        history.add_step("r9", _step(i))
    history.add_sample(fake_sample(3))
    state = RunState(workload="resnet50", run_id="r9", status="running", step=30, total_steps=60)
    snapshot = build_snapshot(history, state, fake_sample(3))
    app = build_app(tmp_path / "runs", start_sampler=False, clock=frozen_clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await app.panes_built.wait()
        app.post_message(SnapshotReady(snapshot))   # as the poller posts it: the app's own history is not read
        await pilot.pause()
        assert app.devices.sample is snapshot.sample
        assert app.launcher.state == snapshot.state and app.state.status == "idle"
        assert [plot.lines for plot in app.plots.plots] == list(snapshot.lines)
        assert "stop (s)" in str(app.launcher.query_one("#start-stop").label)   # a running state: stop offered
        assert not app.history.runs
