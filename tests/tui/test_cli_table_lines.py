"""`cardbench run` prints the table the run made under its RESULT line, the report's cells (issue 36 item 10)."""

from __future__ import annotations

from tui.cli.run import table_lines


def test_the_report_s_table_is_printed_as_aligned_lines_and_safe_to_print():
    figures = [{"part": "gemm", "figure": "fp32 GEMM 4096^3", "measured": 0.2365, "unit": "TFLOP/s", "rated": None},
               {"part": "memory", "figure": "copy \x1b]0;owned\x07", "measured": 12.5, "unit": "GB/s", "rated": 25.0,
                "percent": 50.0}]
    lines = table_lines("microbench", {"figures": figures})
    assert lines[0] == "Microbenchmarks against the device's rated figures"   # the report's heading
    assert any("0.236 TFLOP/s" in line and "fp32 GEMM 4096^3" in line for line in lines), lines
    assert any("12.5 GB/s" in line and "25 GB/s" in line and "50.0 %" in line for line in lines), lines
    assert not any("\x1b" in line or "\x07" in line for line in lines)   # a terminal's escape never reaches it
    # the columns line up: each row's measured figure starts where the header's "measured" does
    header, gemm, memory = lines[1:]
    assert gemm.index("0.236") == memory.index("12.5") == header.index("measured")


def test_a_workload_without_a_table_prints_none():
    assert table_lines("resnet50", {"images_per_s": 35.6}) == []
    assert table_lines("microbench", {"figures": []}) == []


def test_cardbench_run_prints_the_table_under_its_result_line(tmp_path):
    """The stand-in `tally` (tests/children/table_cli.py): tick's child under a record with a report table."""
    import os
    import subprocess
    import sys

    from paths import CHILDREN

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(CHILDREN), os.environ["PYTHONPATH"]])}
    out = subprocess.run([sys.executable, "-m", "table_cli", "run", "tally", "--runs-dir", str(tmp_path / "runs"),
                          "--steps", "2", "--delay", "0.01"], capture_output=True, text=True, env=env, timeout=120,
                         stdin=subprocess.DEVNULL)
    said = (out.stdout + out.stderr).splitlines()
    assert out.returncode == 0, out.stderr[-2000:]
    result = next(i for i, line in enumerate(said) if line.startswith("RESULT:"))
    assert said[result + 1:result + 4] == ["Tally of the ticks", "  what  ticks/s", "  all   10.0"], said


def test_llm_prints_its_cells_then_llama_bench_s_table_then_its_markdown():
    """A record's MORE_TABLES print under REPORT_TABLE's, then its TERMINAL_TEXT as written (issue 40 item 3)."""
    row = {"model_type": "tiny", "model_size": 78_661_632, "model_n_params": 19_665_408, "backends": "CPU",
           "dtype": "fp32", "test": "tg16 @ d64", "n_prompt": 0, "n_gen": 16, "n_depth": 64, "avg_ts": 40.0,
           "stddev_ts": 1.5}
    cell = {"input_len": 16, "output_len": 4, "batch": 1, "status": "ok"}
    lines = table_lines("llm", {"cells": [cell], "bench": [row], "peak_memory_kind": "x"})
    starts = [i for i, line in enumerate(lines) if not line.startswith(("  ", "|"))]   # each table's heading
    # the cells' four tables (time and speed, decode, rated figures, memory), then llama-bench's tg tests (no pp ran)
    headings = ("Readiness cells (input x output tokens x batch), time and speed", "Readiness cells, decode against",
                "Readiness cells against the device's rated figures", "Readiness cells, memory",
                "llama-bench's tg tests: tiny")
    assert len(starts) == len(headings) and all(lines[i].startswith(h) for i, h in zip(starts, headings)), lines
    assert lines[-3:] == ["| model |     size |  params | backend | dtype |       test |          t/s |",
                          "| ----- | -------: | ------: | ------- | ----- | ---------: | -----------: |",
                          "| tiny  | 0.07 GiB | 19.67 M | CPU     | fp32  | tg16 @ d64 | 40.00 ± 1.50 |"]
    csv_lines = table_lines("llm", {"cells": [cell], "bench": [row], "bench_output": "csv"})
    assert csv_lines[-2].startswith('"model_type","model_size"') and '"tg16 @ d64"' in csv_lines[-1]
