"""metrics/results.csv and summary.json's units: each result figure with the label and unit its record declares."""

from __future__ import annotations

import csv
import json

from report_runs import T0
from test_report import _screenshot, _unzip
from tui.report.export import ExportInputs, export_bundle
from tui.store import RunStore
from workloads import protocol


def test_each_figure_is_a_row_with_its_label_and_unit_and_an_undeclared_one_has_none(tmp_path):
    store = RunStore(tmp_path / "runs")
    run = store.create("generate", [])
    run.append(protocol.Start(t=T0, workload="generate", device="cpu (x86_64, 2 threads)"))
    run.append(protocol.Result(t=T0 + 8, metrics={"tokens_per_s": 49.76, "ttft_s": 0.157, "peak_memory_bytes": 2**30,
                                                  "odd_gbps": float("nan"), "tokens_per_s_runs": [49.7, 49.8]}))
    run.append(protocol.End(t=T0 + 9, status="ok", exit_code=0))
    run.close()
    top = _unzip(export_bundle(ExportInputs([run.path], tmp_path / "out", screenshot_svg=_screenshot())),
                 tmp_path / "b")
    rows = {r["key"]: r for r in csv.DictReader((top / "metrics" / "results.csv").open())}
    assert rows["tokens_per_s"]["unit"] == "tokens/s" and rows["tokens_per_s"]["kind"] == "rate"
    assert rows["tokens_per_s"]["label"].startswith("tokens/s per sequence")
    assert (rows["ttft_s"]["unit"], rows["ttft_s"]["kind"], rows["ttft_s"]["value"]) == ("s", "seconds", "0.157")
    assert rows["tokens_per_s_runs"]["value"] == "[49.7, 49.8]"           # a list in one cell, as JSON
    # a key no record declares: no label, no unit guessed from its spelling, and NaN an empty cell
    assert (rows["odd_gbps"]["label"], rows["odd_gbps"]["unit"], rows["odd_gbps"]["value"]) == ("", "", "")
    units = json.loads((top / "metrics" / "summary.json").read_text())["runs"][0]["units"]
    assert units["peak_memory_bytes"] == "B" and units["odd_gbps"] is None
