"""The CPU standard suite's llm sweep through `cardbench run` and into the report bundle: every cell's figures and
bounds, pp/tg with their spread, the fit estimate within 10 % of the measured peak; a cell over memory as a row."""

import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from paths import REPO

import torch
from tui.headless.plan import suite_jobs
from tui.report import png
from tui.report.export import ExportInputs, export_bundle
from tui.store import RunStore
from workloads.facts.formatting import format_bytes
from workloads.llm import cells
from workloads.models.llama import fit
from workloads.models.llama.model import Llama
from workloads.llm.plan import Cell
from workloads.models.llama.presets import PRESETS, LlamaConfig
from workloads.llm.spec import SPEC


@pytest.fixture(scope="module")
def sweep_result(tmp_path_factory):
    """The CPU standard suite's llm job, through `cardbench run` as the suite starts it, and its report bundle."""
    jobs, _ = suite_jobs("standard", ["llm"], accelerator=False, device=None)
    (job,) = jobs
    assert job.workload == "llm" and list(job.args) == list(SPEC.suite.cpu_standard)
    tmp = tmp_path_factory.mktemp("llm_suite")
    cardbench = "import sys; from tui.cli import console_main; sys.exit(console_main())"
    out = subprocess.run([sys.executable, "-c", cardbench, "run", "llm", *job.args, "--device", "cpu", "--runs-dir",
                          str(tmp / "runs")], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300,
                         cwd=REPO)
    assert out.returncode == 0, out.stderr[-2000:]
    [run_dir] = RunStore(tmp / "runs").list()
    events = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
    bundle = export_bundle(ExportInputs([run_dir], tmp / "out",
                                        screenshot_svg=png.terminal_svg("cardbench", "cardbench"),
                                        doctor_checks=[]))
    with zipfile.ZipFile(bundle) as zf:
        report = next(zf.read(n).decode() for n in zf.namelist() if n.endswith("report.md"))
    return events, (run_dir / "run.log").read_text(), report, out.stdout


def test_sweep_gives_every_cell_its_figures_and_bounds(sweep_result):
    events, log, _, _ = sweep_result
    steps = [e for e in events if e["event"] == "step"]
    result = next(e for e in events if e["event"] == "result")["metrics"]
    assert [s.get("cell") for s in steps] == ["32 in x 16 out x batch 1", "128 in x 16 out x batch 1",
                                              "32 in x 16 out x batch 4", "128 in x 16 out x batch 4", None, None]
    # then llama-bench's tests, each a step of progress without a rate (the launcher's ETA spans them)
    assert [(s["label"], s.get("throughput")) for s in steps[4:]] == [("pp64", None), ("tg16", None)]
    assert {s["total_steps"] for s in steps} == {6}
    assert result["sweep"] == "32,128 x 16 x 1,4" and result["model_size"] == "tiny"
    for row in result["cells"]:
        assert row["status"] == "ok"
        assert 0 < row["tpot_p50_s"] <= row["tpot_p90_s"] <= row["tpot_p99_s"]
        assert row["decode_tokens_per_s"] == pytest.approx(1 / row["tpot_p50_s"])
        assert row["decode_tokens_per_s_all"] == pytest.approx(row["batch"] / row["tpot_p50_s"])
        assert row["prefill_tokens_per_s"] == pytest.approx(row["batch"] * row["input_len"] / row["ttft_s"])
        assert row["end_to_end_s"] > row["ttft_s"] and row["peak_memory_bytes"] > 0
        assert row["decode_bound_tokens_per_s"] == pytest.approx(
            result["device_read_gbps"] * 1e9 / row["decode_bytes_per_step"])
        assert row["prefill_peak_fraction"] is None  # no rated peak on the CPU
    # llama-bench's pp/tg: mean and sample standard deviation of the repetitions
    runs = result["pp64_runs_tokens_per_s"]
    assert len(runs) == 2 and result["pp_tokens_per_s"] == pytest.approx(sum(runs) / 2)
    assert result["tg_tokens_per_s"] == result["tg16_tokens_per_s"] and result["tg16_stddev_tokens_per_s"] >= 0
    assert "tg16: " in log and "tokens/s (llama-bench's test, mean +- stddev)" in log
    # the report's table: one row a cell, in English and Chinese
    heading, columns, rows = SPEC.report_table(result)
    assert len(rows) == 4 and rows[0][:3] == ["32", "16", "1"] and columns[3]("zh") == "首 token 毫秒"
    assert "time and speed" in heading("en") and "时间与速度" in heading("zh")
    from workloads.llm import cell_tables
    decode, memory = cell_tables.decode_table(result)[0], cell_tables.memory_table(result)[0]
    assert "measured read bandwidth" in decode("en") and "实测读带宽" in decode("zh") and "进程峰值 RSS" in memory("zh")


def test_the_suite_sweep_reaches_the_report_bundle(sweep_result):
    _, _, report, _ = sweep_result
    cells = [line.split("|")[1:4] for line in report.splitlines() if re.match(r"\| (32|128) \| 16 \| [14] \|", line)]
    # each cell a row in each of the cells' four tables (time and speed, decode, rated figures, memory)
    assert [[c.strip() for c in row] for row in cells] == 4 * [["32", "16", "1"], ["128", "16", "1"],
                                                              ["32", "16", "4"], ["128", "16", "4"]]
    assert "Readiness cells (input x output tokens x batch)" in report


def _row_in(row, lines):
    """The line that holds the row's cells in order, each set apart by spaces (an aligned table's row)."""
    pattern = re.compile(r"(^|\s)" + r"\s+".join(re.escape(str(c)) for c in row) + r"(\s|$)")
    return next((line for line in lines if pattern.search(line)), None)


def test_the_terminal_names_each_step_s_cell_and_run_log_ends_with_the_report_s_table(sweep_result):
    events, log, _, terminal = sweep_result
    result = next(e for e in events if e["event"] == "result")["metrics"]
    steps = [line for line in terminal.splitlines() if line.startswith("step ")]
    assert [s.split(" | ")[:2] for s in steps] == [["step 1/6", "32 in x 16 out x batch 1"],
                                                  ["step 2/6", "128 in x 16 out x batch 1"],
                                                  ["step 3/6", "32 in x 16 out x batch 4"],
                                                  ["step 4/6", "128 in x 16 out x batch 4"],
                                                  ["step 5/6", "pp64"], ["step 6/6", "tg16"]]
    heading, columns, rows = SPEC.report_table(result)
    lines = log.splitlines()
    tail = lines[next(i for i, line in enumerate(lines) if "read bandwidth " in line):]   # the run's closing lines
    assert any(heading("en") in line for line in tail)
    assert _row_in([c("en") for c in columns], tail), tail   # each column's label, its unit in it: "TTFT ms"
    for row in rows:
        assert _row_in(row, tail), (row, tail)


def test_fit_estimate_is_within_ten_percent_of_the_measured_peak(sweep_result):
    events, _, _, _ = sweep_result
    result = next(e for e in events if e["event"] == "result")["metrics"]
    assert result["peak_memory_kind"] == ("process peak RSS (VmHWM, reset before each cell) less the RSS before the "
                                          "model was built")
    assert abs(result["fit_estimate_error"]) < 0.10, result["fit_estimate_error"]
    assert [row["use"] for row in result["fit"]] == [
        "inference", "train LoRA r16", "train LoRA r16, activation checkpointing", "train AdamW full",
        "train AdamW full, activation checkpointing"]


_PEAK_AFTER_RESET = """
import psutil, torch
from workloads.llm import cells
big = torch.ones(64 * 2**20)  # 256 MiB touched, then freed: ru_maxrss would keep it for good
del big
memory = cells.Memory(torch.device("cpu"), psutil.Process().memory_info().rss)
memory.reset()
small = torch.ones(25 * 2**20)  # 100 MiB: above glibc's largest mmap threshold, so new pages whatever the heap holds
print(memory.peak())
"""


def test_the_cpu_peak_is_reset_before_a_cell_so_an_earlier_peak_is_not_counted():
    # in a fresh interpreter: a pytest worker's heap, allocator settings and environment (an in-process llm run sets
    # THP_MEM_ALLOC_ENABLE) are earlier tests', and once served the 100 MiB from pages already resident
    out = subprocess.run([sys.executable, "-c", _PEAK_AFTER_RESET], capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).resolve().parents[3], env={k: v for k, v in os.environ.items() if k != "THP_MEM_ALLOC_ENABLE"})
    assert out.returncode == 0, out.stderr
    assert 90 * 2**20 < int(out.stdout.split()[-1]) < 200 * 2**20


def test_a_cell_over_the_free_memory_is_a_row_saying_so():
    config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=48, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=64)
    model = Llama(config).eval()
    model.init_random(0)
    memory = cells.Memory(torch.device("cpu"), 0)
    row = cells.run_cell(model, Cell(8, 4, 2), 1, torch.device("cpu"), 0, cells.EagerDecoder, memory,
                         free=1000, element_size=4)
    need = fit.inference(config, 2, 12, 8, 4).total
    assert row == {"input_len": 8, "output_len": 4, "batch": 2, "estimate_bytes": need,
                   "status": f"does not fit: needs about {format_bytes(need)}, {format_bytes(1000)} free"}


def test_fit_says_the_largest_batch_and_context_and_the_cards():
    eight_b = PRESETS["Llama-3.1-8B"]
    weights = eight_b.parameter_count() * 2
    assert fit.inference(eight_b, 1, 4096, 4096, 2).weights == weights  # 16.1 GB of bf16 weights
    gb32 = 32 * 10**9
    batch = fit.largest_batch(eight_b, 2048, 2048, 2, gb32)
    assert fit.inference(eight_b, batch, 2048, 2048, 2).total <= gb32 < fit.inference(eight_b, batch + 1, 2048, 2048, 2).total
    context = fit.largest_context(eight_b, 1, 2, gb32)
    assert fit.inference(eight_b, 1, context, context, 2).total <= gb32
    full = fit.training(eight_b, 1, 2048, 2, "full")
    assert full.optimizer == eight_b.parameter_count() * 8 and fit.cards_needed(full.total, gb32) >= 5
    lora = fit.training(eight_b, 1, 2048, 2, "lora", checkpointing=True)
    # finetune's step: the adapters' gradients are fp32, as their master weights (one estimate, issue 40)
    assert lora.total < gb32 and lora.gradients == fit.lora_parameters(eight_b) * 4
