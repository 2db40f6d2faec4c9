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
from workloads.models.llama import fit_table
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


def test_a_fit_only_run_s_result_line_is_its_plan_and_a_timed_run_s_says_every_figure(monkeypatch):
    """The RESULT line before the fit table was a thousand characters of the table's own figures: a plan says its
    shape and leaves the rest to the table printed with it; a run that timed something still says them all."""
    m = _result(monkeypatch, "--fit-only")
    line = result_text("llm", m)
    assert line.startswith("RESULT: model small; weights' dtype fp32; batch size 1")
    assert line.endswith("a plan, nothing timed: its table is printed with this line") and len(line) < 400
    assert "memory fit" not in line and "accelerate" not in line
    timed = result_text("llm", {**m, "tg_tokens_per_s": 40.0})
    assert "memory fit" in timed and "a plan" not in timed


def test_a_fit_only_run_has_its_fit_as_the_report_s_tables_and_in_its_log(monkeypatch, capsys):
    m = _result(monkeypatch, "--fit-only", "--input-len", "100", "--output-len", "28", "--batch-size", "2")
    # the estimate (REPORT_TABLE's), then the verdicts and the runtime's lines (MORE_TABLES'), llama-bench's empty
    estimate, verdicts, runtime, *cells_and_bench = [printer(m) for printer in LlmResult.table_printers()]
    assert [t[2] for t in cells_and_bench] == [[]] * 5   # no cell, no llama-bench test: their tables stay empty
    heading, columns, rows = estimate
    assert [str(r[0]) for r in rows] == ["inference", "LoRA r16", "LoRA r16, checkpointing", "AdamW full",
                                         "AdamW full, checkpointing"]
    assert [r["use"] for r in m["fit"]][1] == "train LoRA r16"   # the result keeps its English; the table its label
    assert rows[1][0]("zh") == "训练：LoRA r16"
    inference = m["fit"][0]
    assert [str(c) for c in rows[0][1:3]] == [format_bytes(inference["total_bytes"]),
                                              format_bytes(inference["weights_bytes"])]
    # a small model against this host's free memory: one verdict column, said as the free memory now
    assert str(verdicts[2][0][-1]) == f"fits, batch <= {m['largest_batch']:,}" and verdicts[2][0][-1]("zh").startswith(
        "容纳")
    assert heading("en").startswith("Fit of small in fp32 at batch 2 x 128 positions (100 prompt tokens")
    assert "this device's free memory now" in verdicts[0]("en") and m["free_bytes"] > 0
    assert str(verdicts[1][1]).startswith("free now ")
    assert columns[3]("en") == "KV cache" and columns[3]("zh") == "KV 缓存"
    assert [str(r[1]) for r in runtime[2]] == [format_bytes(m[k]) for k in fit_table.RUNTIME_LINES]
    log = capsys.readouterr().err.splitlines()
    for table in (estimate, verdicts, runtime):   # the same cells in the log, as aligned columns
        assert table[0]("en") in log
        for row in [table[1], *table[2]]:
            cells = [str(c) for c in row]
            assert any(re.search(r"\s+".join(map(re.escape, cells)) + r"$", line) for line in log), (cells, log)


def test_a_fit_only_run_for_named_cards_reads_their_memory_not_this_host_s(monkeypatch):
    m = _result(monkeypatch, "--fit-only", "--card", "Ascend 910B3", "--memory", "1MiB", "--price-per-hour", "3")
    assert m["free_bytes"] is None and m["dtype"] == "bf16"   # auto plans a card in bf16, not the CPU's fp32
    assert [t["name"] for t in m["fit_targets"]] == ["Huawei Ascend 910B3", "1 MiB"]
    assert m["fit_targets"][0]["memory_bytes"] == 64 * 2**30
    inference = m["fit"][0]["targets"]
    assert inference[0]["fits"] and not inference[1]["fits"]   # 64 GiB holds the small model; 1 MiB does not
    _says_every_figure_by_its_label(m)
    heading, columns, rows = fit_table.verdict_table(m)
    assert [str(c) for c in columns[-2:]] == ["Ascend 910B3 64 GiB", "1 MiB card"]
    assert heading("en").endswith(": Huawei Ascend 910B3, 64.0 GiB rated; a card of 1 MiB")
    said = {str(r[0]): r for r in rows}
    assert str(said["rated memory bandwidth"][-2]) == "1,600 GB/s" and said["rated memory bandwidth"][-1] == ""
    decode = said["decode at batch 1 <= bandwidth / bytes a step reads"]
    assert str(decode[-2]).endswith(" tokens/s") and decode[-1] == ""
    cost = said["cost per million tokens at the decode bound, 3 USD/h"]
    assert float(str(cost[-2])) == pytest.approx(3 / 3600 / m["fit_targets"][0]["decode_bound_tokens_per_s"] * 1e6,
                                                 rel=1e-2)


def test_a_use_that_does_not_fit_says_the_cards_it_needs_and_an_old_run_reads():
    row = {"use": "train AdamW full", "total_bytes": 3 * 2**30, "fits": False, "cards": 3}
    old = {"fit": [row, {"use": "inference", "fits": True}], "free_bytes": 2**30}   # before the plan had targets
    heading, columns, rows = fit_table.estimate_table(old)
    assert rows[0][1] == "3.0 GiB" and rows[0][2] == "N/A"
    heading, columns, rows = fit_table.verdict_table(old)
    assert str(rows[0][-1]) == "needs 3 cards" and rows[0][-1]("zh") == "需 3 张卡"
    assert str(rows[1][-1]) == "fits, batch <= N/A"
    assert str(columns[-1]) == "free now 1 GiB" and heading("en").endswith("this device's free memory now, 1.0 GiB")
    assert [str(c) for c in fit_table.verdict_table({"fit": [row], "fit_targets": []})[2][0]] == ["AdamW full"]


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


def test_a_plan_from_weights_reads_config_json_alone(monkeypatch, tmp_path):
    """`cardbench fit --weights DIR`: the checkpoint's config.json is all the plan reads (no weight file here)."""
    (tmp_path / "config.json").write_text(json.dumps({
        "model_type": "qwen2", "vocab_size": 152064, "hidden_size": 3584, "intermediate_size": 18944,
        "num_hidden_layers": 28, "num_attention_heads": 28, "num_key_value_heads": 4,
        "max_position_embeddings": 32768, "rope_theta": 1000000.0, "rms_norm_eps": 1e-06}))
    m = _result(monkeypatch, "--fit-only", "--weights", str(tmp_path), "--memory", "32GB")
    assert m["model_size"] == "Qwen2.5-7B" and m["fit_accelerate_bytes"] == 7_615_616_512 * 2
    assert m["fit"][0]["targets"][0]["fits"] and m["fit"][1]["targets"][0]["largest_batch"] == 11   # LoRA at 256
