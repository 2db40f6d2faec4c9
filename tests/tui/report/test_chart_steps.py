"""The report's step charts (issue 22.12): whole step numbers on the x axis, and the warm-up steps the median leaves
out drawn apart, in grey, and named so ("warm-up, not in the median")."""

import re
from pathlib import Path

from tui.report.charts import WARMUP_GREY, WARMUP_LABEL, charts_for, throughput_series
from tui.report.summary import throughput_stats
from tui.store import RunRecord
from workloads import protocol


def _run(steps: int, warmup_steps: int | None = None, flagged: tuple[int, ...] = ()) -> RunRecord:
    events: list[protocol.Event] = [protocol.Start(t=0.0, workload="resnet50", device="cpu")]
    for i in range(1, steps + 1):
        events.append(protocol.Step(t=float(i), step=i, loss=5.0 - i * 0.1, throughput=10.0 if i <= 2 else 30.0 + i,
                                    unit="images/s", extra={"warmup": True} if i in flagged else {}))
    if warmup_steps is not None:
        events.append(protocol.Result(t=steps + 1.0, metrics={"images_per_s": 33.0, "warmup_steps": warmup_steps}))
    return RunRecord(path=Path("runs/20260101-000000-resnet50-0001"), config={"workload": "resnet50"}, events=events)


def _x_labels(svg: str) -> list[str]:
    # the x axis' labels sit under the plot, centred on their grid line
    return re.findall(r'text-anchor="middle" fill="#444">([^<]*)</text>', svg)


def test_a_short_run_s_step_axis_has_whole_steps_only():
    for steps in (2, 3, 5, 7):
        for chart in charts_for(_run(steps, warmup_steps=1)):
            if chart.title in ("loss", "throughput"):
                labels = _x_labels(chart.svg)
                assert labels and all(re.fullmatch(r"\d+", label) for label in labels), (steps, labels)


def test_the_warm_up_steps_are_drawn_grey_apart_from_the_median_s_steps():
    record = _run(10, warmup_steps=2)
    median_steps, warmup = throughput_series(record, "images/s")
    assert warmup.label == WARMUP_LABEL and warmup.color == WARMUP_GREY
    assert [y for y in warmup.ys if y is not None] == [10.0, 10.0]
    assert median_steps.ys[:2] == [None, None] and None not in median_steps.ys[2:]
    # the same steps as the summary's median leaves out
    assert throughput_stats(record).skipped == 2
    svg = next(c.svg for c in charts_for(record) if c.title == "throughput")
    assert WARMUP_LABEL in svg and f'stroke="{WARMUP_GREY}"' in svg


def test_flagged_warm_up_steps_wherever_they_fall_are_grey_and_a_run_without_any_has_no_grey_line():
    _counted, warmup = throughput_series(_run(8, flagged=(1, 5)), "images/s")
    assert [i for i, y in enumerate(warmup.ys) if y is not None] == [0, 4]
    assert len(throughput_series(_run(2), "images/s")) == 1   # two steps: no warm-up by the rule, no grey line


def test_a_generation_s_chart_counts_timed_tokens_as_the_screen_does():
    events: list[protocol.Event] = [protocol.Start(t=0.0, workload="generate", device="cpu")]
    events += [protocol.Step(t=float(i), step=16 * i, throughput=3.0, unit="tokens/s", counts="tokens")
               for i in range(1, 6)]
    record = RunRecord(path=Path("runs/20260101-000000-generate-0001"), config={"workload": "generate"},
                       events=events)
    svg = next(c.svg for c in charts_for(record) if c.title == "throughput")
    assert "generate: throughput per timed token" in svg and ">timed token</text>" in svg
    assert "per step" not in svg
