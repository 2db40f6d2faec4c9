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
