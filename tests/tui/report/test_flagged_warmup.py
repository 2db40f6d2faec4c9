"""Steps a workload flags as warm-up stay out of the "median after warm-up" wherever they fall (issue 22.5): a
soak's summary row said 0.90 images/s, "first 1 left out as warm-up", though 12 of its 15 steps were warm-up and
its interval table said 15.69."""
from pathlib import Path

from tui.report.summary import throughput_stats
from tui.store import RunRecord
from workloads import protocol


def test_flagged_warmup_steps_are_left_out_wherever_they_fall():
    events: list[protocol.Event] = [protocol.Start(t=0.0, workload="soak", device="cpu")]
    rates = []
    for run in range(3):   # three inner runs: four slow warm-up steps, then one timed step each
        for i in range(4):
            events.append(protocol.Step(t=len(events), step=len(rates) + 1, throughput=0.9, unit="images/s",
                                        extra={"warmup": True}))
            rates.append(0.9)
        events.append(protocol.Step(t=len(events), step=len(rates) + 1, throughput=15.69 + run, unit="images/s"))
        rates.append(15.69 + run)
    record = RunRecord(path=Path("runs/x"), config={"workload": "soak"}, events=events)
    stats = throughput_stats(record)
    assert (stats.n, stats.skipped) == (3, 12) and abs(stats.median - 16.69) < 1e-9
    # a live run, cut after its first inner run: the same rule, not the count rule over all its steps
    live = RunRecord(path=Path("runs/y"), config={"workload": "soak"}, events=events[:6])
    assert throughput_stats(live).median == 15.69
