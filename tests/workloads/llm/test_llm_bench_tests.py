"""Issue 40 item 3: llama-bench's tests (--pp N,N --tg N,N --depth D,D, -r), their rows in the result with each
beside its bounds, printed as llama-bench's markdown and written as CSV, JSON and JSONL (--output); and item 1's
decoder choice (compiled by default on a GPU, eager on the CPU unless asked; a compile that fails falls back to
eager once). Runs a one-layer model on the CPU: seconds."""

import argparse
import csv
import io
import json

import pytest
import torch

from workloads.child import bandwidth
from workloads.child.harness import Emitter, WorkloadError
from workloads.llm import bench_bounds, bench_output, bench_table, cells, output_option, run
from workloads.llm import bench_tests
from workloads.llm.bench_tests import BenchTest, depths, lengths, past_context
from workloads.llm.cli import main
from workloads.llm.result_record import LlmResult
from workloads.models.decoding import CompiledDecoder, EagerDecoder
from workloads.models.llama import presets
from workloads.models.llama.model import Llama, weight_bytes_per_step

SMALL = presets.LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=48, num_hidden_layers=1,
                            num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=512)


def test_lengths_and_depths_parse_as_llama_bench_s_lists():
    assert lengths("512,2048") == (512, 2048) and lengths("0") == () and lengths("64,64") == (64,)
    assert depths("0,4096") == (0, 4096)
    for bad in ("-1", "128,0", "", "x"):
        with pytest.raises(argparse.ArgumentTypeError):
            lengths(bad)
    with pytest.raises(argparse.ArgumentTypeError):
        depths("-4")


def test_tests_are_named_as_llama_bench_names_them_depth_by_depth():
    planned = bench_tests.tests((512,), (128, 256), (0, 4096))
    assert [t.name for t in planned] == ["pp512", "tg128", "tg256", "pp512 @ d4096", "tg128 @ d4096",
                                         "tg256 @ d4096"]
    # a tg test decodes after its depth (one prompt token at depth 0): positions are what the cache must hold
    assert BenchTest("tg", 128, 0).positions == 129 and BenchTest("tg", 128, 4096).positions == 4224
    assert BenchTest("pp", 512, 4096).positions == 4608
    assert past_context(planned, 4608) is None and past_context(planned, 4607).name == "pp512 @ d4096"
    assert past_context(bench_tests.tests((), (256,), (4096,)), 4351).name == "tg256 @ d4096"


def _rows():
    return [{"model_type": "tiny", "model_size": 78_675_968, "model_n_params": 19_665_408, "backends": "CPU",
             "dtype": "fp32", "decode": None, "n_prompt": 64, "n_gen": 0, "n_depth": 0, "test": "pp64",
             "test_time": "2026-12-06T23:00:00Z", "avg_ns": 2_000_000, "stddev_ns": 100_000, "avg_ts": 32000.0,
             "stddev_ts": 1600.5, "samples_ns": [1_900_000, 2_100_000], "samples_ts": [33684.2, 30476.2]},
            {"model_type": "tiny", "model_size": 78_675_968, "model_n_params": 19_665_408, "backends": "CPU",
             "dtype": "fp32", "decode": "eager", "n_prompt": 0, "n_gen": 16, "n_depth": 512, "test": "tg16 @ d512",
             "test_time": "2026-12-06T23:00:01Z", "avg_ns": 400_000_000, "stddev_ns": None, "avg_ts": 40.0,
             "stddev_ts": None, "samples_ns": [400_000_000], "samples_ts": [40.0], "achieved_gbps": 3.2,
             "read_gbps": 8.0, "read_fraction": 0.4, "rated_gbps": None}]


def test_markdown_has_llama_bench_s_columns_and_mean_plus_minus_sd():
    lines = bench_output.markdown(_rows())
    assert [c.strip() for c in lines[0].strip("|").split("|")] == ["model", "size", "params", "backend", "dtype",
                                                                    "test", "t/s"]
    assert set(lines[1]) <= set("|-: ") and lines[1].count(":") == 4   # size, params, test and t/s right-aligned
    first = [c.strip() for c in lines[2].strip("|").split("|")]
    assert first == ["tiny", "0.07 GiB", "19.67 M", "CPU", "fp32", "pp64", "32000.00 ± 1600.50"]
    assert lines[3].split("|")[-2].strip() == "40.00"   # one repetition: no sd to say
    assert len({len(line) for line in lines}) == 1      # aligned, as llama-bench prints it


def test_csv_json_and_jsonl_carry_llama_bench_s_fields():
    rows = _rows()
    table = list(csv.DictReader(io.StringIO(bench_output.render(rows, "csv"))))
    assert list(table[0]) == list(bench_output.FIELDS)
    assert table[0]["test"] == "pp64" and float(table[0]["avg_ts"]) == 32000.0 and table[1]["stddev_ts"] == ""
    assert table[0]["samples_ts"] == "33684.2 30476.2" and table[1]["n_depth"] == "512"
    as_json = json.loads(bench_output.render(rows, "json"))
    assert [r["test"] for r in as_json] == ["pp64", "tg16 @ d512"] and as_json[1]["samples_ns"] == [400_000_000]
    assert as_json[0]["model_n_params"] == 19_665_408 and as_json[1]["read_fraction"] == 0.4
    lines = bench_output.render(rows, "jsonl").splitlines()
    assert [json.loads(line)["n_gen"] for line in lines] == [0, 16]
    assert bench_output.render([], "csv") == ""


def test_output_names_a_format_or_a_file_it_writes(tmp_path):
    assert output_option.parse(None) == output_option.Output("md")
    assert output_option.parse("jsonl").format == "jsonl" and output_option.parse("jsonl").path is None
    chosen = output_option.parse(str(tmp_path / "bench.csv"))
    assert chosen.format == "md" and chosen.file_format == "csv"
    assert output_option.write(_rows(), chosen) is None
    assert (tmp_path / "bench.csv").read_text().startswith('"model_type","model_size"')
    for bad in ("bench.txt", str(tmp_path), str(tmp_path / "missing" / "b.json")):
        with pytest.raises(WorkloadError):
            output_option.parse(bad)
    # the folder went away while the run ran: one line back, no exception (the result was emitted before)
    gone = output_option.Output("md", tmp_path / "gone" / "b.json", "json")
    assert output_option.write(_rows(), gone).startswith(f"--output {tmp_path / 'gone' / 'b.json'}: ")


def test_the_terminal_prints_the_format_the_run_recorded():
    assert bench_output.terminal_lines({"bench": _rows()})[0].startswith("| model ")
    lines = bench_output.terminal_lines({"bench": _rows(), "bench_output": "jsonl"})
    assert json.loads(lines[1])["test"] == "tg16 @ d512"
    assert bench_output.terminal_lines({"bench": None}) == []


def test_the_report_s_tables_say_each_test_beside_its_bounds():
    heading, columns, rows = bench_table.pp_table({"bench": _rows()})
    assert heading("en").startswith("llama-bench's pp tests: tiny, fp32")
    assert "N/A: no microbench GEMM figure in this run" in heading("en")   # the same for every test: said once
    said = {str(c): i for i, c in enumerate(columns)}
    assert [r[0] for r in rows] == ["pp64"] and rows[0][said["t/s (mean ± sd)"]] == "32,000.00 ± 1,600.50"
    assert rows[0][said["of rated peak FLOP/s"]] == "N/A"
    heading, columns, rows = bench_table.report_table({"bench": _rows()})
    assert heading("en").startswith("llama-bench's tg tests: tiny, 75 MiB of weights, 19,665,408 parameters, CPU, "
                                    "fp32, eager decode")
    assert heading("zh").startswith("llama-bench 的 tg 测试：tiny")
    # the run's bandwidths, the same for every test, in the heading; each test's share of them in its row
    assert "the measured read bandwidth 8 GB/s and the rated memory bandwidth N/A" in heading("en")
    said = {str(c): i for i, c in enumerate(columns)}
    assert [r[0] for r in rows] == ["tg16 @ d512"] and rows[0][said["decode GB/s read"]] == "3.2"
    assert rows[0][said["of measured read bandwidth"]] == "40.0 %"
    assert rows[0][said["of rated memory bandwidth"]] == "N/A"


@pytest.fixture
def small():
    torch.manual_seed(0)
    model = Llama(SMALL)
    model.init_random(0)
    return model.eval().requires_grad_(False)


def test_llama_bench_times_every_test_at_its_depth_and_adds_its_bounds(small):
    planned = bench_tests.tests((8,), (4,), (0, 16))
    rows = cells.llama_bench(small, planned, 3, torch.device("cpu"), 0)
    assert [r["test"] for r in rows] == ["pp8", "tg4", "pp8 @ d16", "tg4 @ d16"]
    assert all(len(r["samples_ts"]) == 3 and r["avg_ts"] > 0 and r["stddev_ts"] is not None for r in rows)
    assert [(r["n_prompt"], r["n_gen"], r["n_depth"]) for r in rows] == [(8, 0, 0), (0, 4, 0), (8, 0, 16), (0, 4, 16)]
    bench_bounds.add(rows, small, read_gbps=10.0, rated_gbps=None, rated_tflops=None)
    step = weight_bytes_per_step(small) + (16 + 2) * SMALL.kv_bytes_per_token(4)   # depth + half the tokens
    assert rows[3]["achieved_gbps"] == pytest.approx(rows[3]["avg_ts"] * step / 1e9)
    assert rows[3]["read_fraction"] == pytest.approx(rows[3]["achieved_gbps"] / 10.0)
    assert rows[3]["rated_bandwidth_fraction"] is None and rows[0]["achieved_tflops"] > 0
    assert cells.by_name(rows).keys() == {"pp8_tokens_per_s", "pp8_stddev_tokens_per_s", "pp8_runs_tokens_per_s",
                                          "tg4_tokens_per_s", "tg4_stddev_tokens_per_s", "tg4_runs_tokens_per_s"}


def test_a_run_s_result_holds_the_rows_and_writes_the_file(monkeypatch, tmp_path):
    monkeypatch.setitem(presets.PRESETS, "small", SMALL)
    monkeypatch.setattr(bandwidth, "measure_read_bandwidth", lambda device, *a, **k: bandwidth.ReadBandwidth(
        best_gbps=10.0, median_gbps=10.0, nbytes=2**20, repeats=1, method="fake", rates=(10.0,), round_bests=(10.0,)))
    out = io.StringIO()
    assert main(Emitter(out), ["--device", "cpu", "--model", "small", "--input-len", "8", "--output-len", "4",
                               "--repeat", "1", "--pp", "8,16", "--tg", "4", "--depth", "0,32", "-r", "2",
                               "--output", str(tmp_path / "b.jsonl")]) == 0
    m = next(e for e in map(json.loads, out.getvalue().splitlines()) if e["event"] == "result")["metrics"]
    assert [r["test"] for r in m["bench"]] == ["pp8", "pp16", "tg4", "pp8 @ d32", "pp16 @ d32", "tg4 @ d32"]
    assert m["tg_tokens_per_s"] == m["bench"][2]["avg_ts"] and m["pp16_tokens_per_s"] == m["bench"][1]["avg_ts"]
    assert m["decode"] == "eager" and m["bench"][2]["decode"] == "eager" and m["bench_output"] == "md"
    written = [json.loads(line) for line in (tmp_path / "b.jsonl").read_text().splitlines()]
    assert [r["test"] for r in written] == [r["test"] for r in m["bench"]]
    assert LlmResult.of(m).undeclared() == []
    _each_table_fits_120_columns(m)


def _each_table_fits_120_columns(m):
    """Every llm table a user pastes (the cells' and llama-bench's, as `cardbench run` prints them), within 120
    columns, its header and rows: a log pane wraps a wider line into fragments. A cell that did not fit (its status a
    sentence) and a card's rated figures (columns the CPU leaves N/A) are added, as a GPU's sweep has them."""
    from workloads.facts.text_table import text_lines

    cell = m["cells"][0]
    gpu = {**cell, "input_len": 32768, "output_len": 16384, "batch": 256, "ttft_s": 125.5629, "tpot_p50_s": 0.0362,
           "decode_bandwidth_fraction": 0.8812, "decode_rated_bandwidth_fraction": 0.7731, "decode_gbps": 2950.1,
           "prefill_tokens_per_s": 1211780.9, "prefill_peak_fraction": 0.4691, "end_to_end_s": 1842.6}
    no_fit = {"input_len": 32768, "output_len": 16384, "batch": 512, "estimate_bytes": 141.1 * 2**30,
              "status": "does not fit: needs about 141.1 GiB, 79.2 GiB free"}
    bench = [{**r, "rated_bandwidth_fraction": 0.7, "rated_fraction": 0.47, "test": r["test"].replace("@ d32",
                                                                                                        "@ d16384")}
             for r in m["bench"]]
    m = {**m, "cells": [cell, gpu, no_fit], "bench": bench}
    shown = 0
    for printer in LlmResult.table_printers():
        heading, columns, rows = printer(m)
        lines = text_lines(heading, columns, rows)[1:]   # the heading is a sentence, which wraps between words
        assert all(len(line) <= 120 for line in lines), "\n".join(lines)
        shown += len(rows)
    assert shown == 4 * 3 + len(bench)   # the cells in each of their four tables, every test in one of two


class _Fallbacks:
    def __init__(self):
        self.said = []

    def fallback(self, error, action, op=None, **_):
        self.said.append((op, error, action))


def _args(**flags):
    return argparse.Namespace(**{"eager": False, "compile": False, "cuda_graphs": False, **flags})


def test_the_decoder_is_compiled_by_default_on_a_gpu_and_eager_on_the_cpu():
    cuda, cpu = torch.device("cuda"), torch.device("cpu")
    assert run.decode_mode(_args(), cuda) == "compiled" and run.decode_mode(_args(), cpu) == "eager"
    assert run.decode_mode(_args(compile=True), cpu) == "compiled"
    assert run.decode_mode(_args(eager=True), cuda) == "eager"
    assert run.decode_mode(_args(cuda_graphs=True), cuda) == "cuda-graph"


def test_a_compile_that_fails_falls_back_to_eager_and_says_so_once(small, monkeypatch):
    tries = []

    def broken(*args):
        tries.append(args)
        raise RuntimeError("InductorError: no C++ compiler\nmore")

    monkeypatch.setattr(run, "CompiledDecoder", broken)
    said = _Fallbacks()
    make = run.decoder_maker(_args(compile=True), torch.device("cpu"), said)
    decoders = [make(small, small.new_cache(1, 8)) for _ in range(3)]
    assert all(isinstance(d, EagerDecoder) for d in decoders)
    assert said.said == [("compiled", "RuntimeError: InductorError: no C++ compiler", "eager decode")]
    assert len(tries) == 1   # not tried again for the next cache: it failed on this stack
    assert run._decode_ran(_args(compile=True), torch.device("cpu"), make) == "eager"


def test_the_compiled_step_fails_in_its_constructor_not_in_a_timed_step(small, monkeypatch):
    """torch.compile is lazy: the constructor runs one step, so a failing stack raises where make() catches it."""
    def failing(module, **_):
        def step(*a):
            raise RuntimeError("compile failed")
        return step

    monkeypatch.setattr(torch, "compile", failing)
    with pytest.raises(RuntimeError, match="compile failed"):
        CompiledDecoder(small, small.new_cache(1, 8), torch.device("cpu"))


def test_each_cell_says_its_gb_s_beside_the_measured_and_the_rated_bandwidth():
    row = {"status": "ok", "decode_tokens_per_s": 100.0, "decode_bytes_per_step": 2 * 10**9, "prefill_tflops": None}
    cells.add_bounds(row, read_gbps=400.0, rated_tflops=None, rated_gbps=3350.0)
    assert row["decode_gbps"] == 200.0 and row["decode_bandwidth_fraction"] == 0.5
    assert row["decode_rated_bandwidth_fraction"] == pytest.approx(200 / 3350)
    cells.add_bounds(row := {**row}, read_gbps=None, rated_tflops=None)   # the CPU: no rated figure
    assert row["rated_gbps"] is None and row["decode_rated_bandwidth_fraction"] is None


def test_a_share_past_a_rated_bound_is_a_warning_not_a_result():
    rows = [{"test": "tg128", "rated_bandwidth_fraction": 1.08}, {"test": "pp512", "rated_fraction": 0.7},
            {"input_len": 128, "output_len": 128, "batch": 1, "prefill_peak_fraction": 1.5},
            {"test": "tg16", "read_fraction": 1.061}]
    assert bench_bounds.past_bounds(rows) == [
        ("past_rated_bound", "tg128: 108.0 % of the rated memory bandwidth, past the physical bound: not a result"),
        ("past_rated_bound", "cell 128 in x 128 out x batch 1: 150.0 % of the rated peak FLOP/s, past the physical "
                             "bound: not a result"),
        ("past_measured_bound", "tg16: 106.1 % of the measured read bandwidth (this run's): the bound was measured "
                                "low, the share is unreliable")]


def test_the_compiled_cpu_step_decodes_eager_s_tokens_with_its_products_on_every_thread(small, monkeypatch):
    """The decode step compiled whole on the CPU (what --compile runs): the same logits as eager; its products traced
    as the call that runs them on torch's threads, the rest of the step on one (`CompiledDecoder`'s docstring)."""
    from workloads.models import matvec

    seen = []
    real = matvec._product

    def product(*args):
        seen.append(torch.get_num_threads())
        return real(*args)

    monkeypatch.setattr(matvec, "_product", product)
    threads = torch.get_num_threads()
    cache, eager_cache = small.new_cache(1, 16), small.new_cache(1, 16)
    compiled = CompiledDecoder(small, cache, torch.device("cpu"))
    prompt = torch.tensor([[3, 1, 4, 1, 5]])
    with torch.inference_mode():
        small(prompt, cache, 0)
        small(prompt, eager_cache, 0)
        token = torch.tensor([[9]])
        seen.clear()
        got = compiled(token, 5)
        want = EagerDecoder(small, eager_cache)(token, 5)
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)
    assert torch.get_num_threads() == threads   # set back after the step
    # five products a step (qkv, o, gate-up, down, the head): the compiled step's called at run time, not inlined
    assert len(seen) == 10 and set(seen) == {threads}


def test_a_run_without_pp_and_tg_leads_its_result_line_with_what_it_measured(monkeypatch):
    """--pp 0 --tg 0 asked for no llama-bench test: the RESULT line began 'tokens/s tg: ... N/A; tokens/s pp: ... N/A'."""
    from tui.figures import result_text

    monkeypatch.setitem(presets.PRESETS, "small", SMALL)
    out = io.StringIO()
    assert main(Emitter(out), ["--device", "cpu", "--model", "small", "--input-len", "8", "--output-len", "4",
                               "--repeat", "1", "--pp", "0", "--tg", "0"]) == 0
    m = next(e for e in map(json.loads, out.getvalue().splitlines()) if e["event"] == "result")["metrics"]
    assert "tg_tokens_per_s" not in m and "pp_tokens_per_s" not in m
    line = result_text("llm", m)
    assert line.startswith("RESULT: ") and "tokens/s decode per sequence" in line.split(";")[0]
    assert "tokens/s tg:" not in line and "tokens/s pp:" not in line
