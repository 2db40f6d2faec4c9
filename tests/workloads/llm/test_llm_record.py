"""Every figure an llm run gives is declared by its typed record (`workloads.llm.result_record.LlmResult`), so its
RESULT line says each by its label and unit: --fit-only and one cell with llama-bench's pp/tg (the CPU suite's
sweep is tests/workloads/llm/test_llm_workload.py, and --prompt's text tests/workloads/llm/test_llm_prompt.py,
both run under the suite's strict results)."""

import io
import json
import re

import pytest

from tui.figures import result_text
from workloads.facts.formatting import format_bytes
from workloads.llm import fit_table
from workloads.llm.cli import main
from workloads.llm.result_record import LlmResult
from workloads.child import bandwidth
from workloads.child.harness import Emitter
from workloads.models.llama import presets
from workloads.result_record import STRICT_ENV

# a preset small enough that the run is its bookkeeping, not its matrix products (tiny is 19.7M parameters)
SMALL = presets.LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=48, num_hidden_layers=1,
                            num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=512)


def _result(monkeypatch, *argv):
    # not strict: a new undeclared key is kept and listed, so the test names every one at once
    monkeypatch.delenv(STRICT_ENV, raising=False)
    monkeypatch.setenv("THP_MEM_ALLOC_ENABLE", "1")  # main sets it for its child process; keep ours as it was
    monkeypatch.setitem(presets.PRESETS, "small", SMALL)
    # the bound's figures without reading 256 MiB ten times (the sweep's test measures it)
    monkeypatch.setattr(bandwidth, "measure_read_bandwidth", lambda device, *a, **k: bandwidth.ReadBandwidth(
        best_gbps=10.0, median_gbps=10.0, nbytes=2**20, repeats=1, method="fake", rates=(10.0,), round_bests=(10.0,)))
    out = io.StringIO()
    assert main(Emitter(out), ["--device", "cpu", "--model", "small", *argv]) == 0
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    return next(e for e in events if e["event"] == "result")["metrics"]


def _says_every_figure_by_its_label(metrics):
    assert LlmResult.of(metrics).undeclared() == []
    line = result_text("llm", metrics)
    raw = [key for key in metrics if "_" in key and key in line]
    assert raw == [], line   # a figure said by its key is one no label reached


def test_a_fit_only_run_declares_every_figure(monkeypatch):
    m = _result(monkeypatch, "--fit-only")
    assert {"fit", "free_bytes", "largest_batch", "largest_context", "input_len"} <= m.keys()
    _says_every_figure_by_its_label(m)
    assert "longest context that fits at the first cell's batch (positions) 512" in result_text("llm", m)


def test_a_fit_only_run_has_its_fit_as_the_report_s_table_and_in_its_log(monkeypatch, capsys):
    m = _result(monkeypatch, "--fit-only", "--input-len", "100", "--output-len", "28", "--batch-size", "2")
    heading, columns, rows = LlmResult.printer("REPORT_TABLE")(m)
    assert rows[3][0]("zh") == "训练：LoRA r16"
    assert [str(r[0]) for r in rows] == [r["use"] for r in m["fit"]] == [
        "inference", "train AdamW full", "train AdamW full, activation checkpointing", "train LoRA r16",
        "train LoRA r16, activation checkpointing"]
    inference = m["fit"][0]
    assert [str(c) for c in rows[0][1:3]] == [format_bytes(inference["total_bytes"]),
                                              format_bytes(inference["weights_bytes"])]
    assert str(rows[0][-1]) == "fits" and rows[0][-1]("zh") == "容纳"   # a small model against the host's memory
    assert heading("en").startswith("Memory fit of small in fp32 at batch 2 x 128 positions against ")
    assert columns[3]("en") == "KV cache" and columns[3]("zh") == "KV 缓存"
    log = capsys.readouterr().err.splitlines()
    for row in [columns, *rows]:   # the same cells in the log, as aligned columns
        cells = [str(c) for c in row]
        assert any(re.search(r"\s+".join(map(re.escape, cells)) + r"$", line) for line in log), (cells, log)


def test_a_use_that_does_not_fit_says_the_cards_it_needs():
    row = {"use": "train AdamW full", "total_bytes": 3 * 2**30, "fits": False, "cards": 3}
    assert str(fit_table.cell(row, "fits")) == "does not fit (3 cards)"
    assert fit_table.cell(row, "total_bytes") == "3.0 GiB" and fit_table.cell(row, "weights_bytes") == "N/A"
    assert str(fit_table.cell({"use": "inference", "fits": None}, "fits")) == "N/A"   # no free memory figure


def test_one_cell_with_pp_and_tg_declares_every_figure_and_its_families(monkeypatch):
    m = _result(monkeypatch, "--input-len", "8", "--output-len", "4", "--repeat", "1", "--pp", "8", "--tg", "4",
                "--repetitions", "2")
    # the one cell's own figures are the run's, and llama-bench's are named by their lengths
    assert {"tpot_p90_s", "prefill_tflops", "decode_bytes_per_step", "status", "estimate_bytes",
            "decode_bound_tokens_per_s"} <= m.keys()
    assert {"pp8_tokens_per_s", "pp8_stddev_tokens_per_s", "tg4_runs_tokens_per_s"} <= m.keys()
    _says_every_figure_by_its_label(m)
    line = result_text("llm", m)
    assert "tokens/s tg: decode at batch 1 (llama-bench, mean of repetitions)" in line   # the headline, by its label
    assert "tokens/s tg4: sample standard deviation of the repetitions" in line
    assert LlmResult.figure("pp8_runs_tokens_per_s").label("zh") == "token/秒 `pp8`：每次重复"


@pytest.mark.parametrize("key", ["tg128_tokens_per_s", "pp512_stddev_tokens_per_s", "tg32_runs_tokens_per_s",
                                 "tg128_stddev", "pp512_runs"])   # the last two: a run recorded before the units
def test_llama_bench_s_figures_are_rates_in_tokens_a_second(key):
    assert LlmResult.figure(key).unit == "tokens/s" and LlmResult.figure(key).kind == "rate"
    assert LlmResult.figure("tg_stddev_tokens_per_s") is None   # a test without its length names no figure
