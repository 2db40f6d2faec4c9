"""Steps that are other work each (serve's load levels, llm's cells) have no median that means anything: a serve run
of two levels at 688 and 2,282 tokens/s showed "per-step throughput | median 1,485" in its report."""
from pathlib import Path

import pytest

from types import SimpleNamespace

from tui.report.contents import Table, _workloads
from tui.report.i18n import Words
from tui.report.summary import summarize
from tui.store import RunRecord
from workloads import protocol


def _serve(result: dict | None) -> RunRecord:
    events: list[protocol.Event] = [protocol.Start(t=0.0, workload="serve", device="cpu")]
    for i, rate in enumerate((688.0, 2282.0, 1485.0, 900.0)):
        events.append(protocol.Step(t=1.0 + i, step=i + 1, throughput=rate, unit="tokens/s"))
    if result is not None:
        events.append(protocol.Result(t=9.0, metrics=result))
    events.append(protocol.End(t=10.0, status="ok"))
    return RunRecord(path=Path("runs/s"), config={"workload": "serve"}, events=events)


@pytest.mark.parametrize("result", [{"output_tokens_per_s": 2282.0}, None], ids=["measured", "no result"])
def test_a_serve_run_s_levels_give_no_step_median(result):
    s = summarize(_serve(result))
    assert s.throughput.median is not None            # the levels' rates are still read (the live plot draws them)
    assert s.headline == (result or {}).get("output_tokens_per_s")   # never the median of the levels
    assert not s.too_few_steps


def _row_labels(record: RunRecord) -> list[str]:
    blocks = _workloads(SimpleNamespace(summaries=[summarize(record)], charts={}), Words("en"))
    return [str(row[0]) for b in blocks if isinstance(b, Table) for row in b.rows]


def test_the_report_shows_no_step_median_for_levels_and_keeps_it_for_repeated_steps():
    assert "per-step throughput" not in _row_labels(_serve({"output_tokens_per_s": 2282.0}))
    repeated = _serve({"output_tokens_per_s": 2282.0})
    repeated = RunRecord(path=Path("runs/r"), config={"workload": "resnet50"},
                         events=[protocol.Start(t=0.0, workload="resnet50", device="cpu"),
                                 *repeated.events[1:5], protocol.End(t=10.0, status="ok")])
    assert "per-step throughput" in _row_labels(repeated)
