"""The standard suite's serve run: a sweep against cardbench's own test server, its table in the report bundle
(issue 27's done-when)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile

from tui.headless.plan import suite_jobs
from tui.report import png
from tui.report.export import ExportInputs, export_bundle
from tui.store import RunStore
from workloads.protocol import CHECK_ARGS_ENV


def test_the_standard_suite_sweeps_the_test_server_and_the_report_shows_the_table(tmp_path):
    jobs, _ = suite_jobs("standard", ["serve"], accelerator=False, device=None)
    (job,) = jobs
    assert job.workload == "serve" and job.args[0] == "--test-server"
    runs = tmp_path / "runs"
    cardbench = "import sys; from tui.cli import console_main; sys.exit(console_main())"
    out = subprocess.run([sys.executable, "-c", cardbench, "run", "serve", *job.args, "--runs-dir", str(runs)],
                         capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert out.returncode == 0, out.stderr
    [run_dir] = RunStore(runs).list()
    bundle = export_bundle(ExportInputs([run_dir], tmp_path / "out",
                                        screenshot_svg=png.terminal_svg("cardbench", "cardbench"),
                                        doctor_checks=[]))
    with zipfile.ZipFile(bundle) as zf:
        md = next(zf.read(n).decode() for n in zf.namelist() if n.endswith("report.md"))
        # every request a row in the bundle (the spec's run_files), beside the events
        requests_csv = next(zf.read(n).decode() for n in zf.namelist() if n.endswith("/requests.csv"))
    assert len(requests_csv.splitlines()) == 1 + 3 * 48
    rows = [line for line in md.splitlines() if re.match(r"\| concurrency \d+ \| 48 \| 0 \|", line)]
    assert [r.split("|")[1].strip() for r in rows] == ["concurrency 1", "concurrency 4", "concurrency 16"]
    # the test server has set delays (ITL 0.5 ms): TPOT is a figure, not the "0 ms" of a burst read in one block
    speed = [line for line in md.splitlines() if re.match(r"\| concurrency \d+ \|", line)][:3]   # the first table's
    assert all(float(r.split("|")[6]) >= 0.4 for r in speed), speed   # TPOT p50 ms
    # the summary reads the last level against the first, not the median of the levels (issue 27's review)
    (summary_row,) = [line for line in md.splitlines() if line.startswith("| Serve ")]
    assert "x the output tokens/s at concurrency 1 (" in summary_row and "bound 16x" in summary_row
    assert "median of" not in summary_row
    # said where the table is, not only in the metric dump: these are not a card's figures
    assert ("#### Against cardbench's own test server on this host (no model; its set delays are in the result): these are the client's and "
            "the host's figures, not a card's. Serving sweep, speed and latency:") in md


def test_the_test_server_is_not_given_with_a_server_of_yours():
    for extra in (["--url", "http://127.0.0.1:9/v1"], ["--launch", "vllm serve m"]):
        out = subprocess.run([sys.executable, "-m", "workloads.serve", "--test-server", *extra], capture_output=True,
                             text=True, stdin=subprocess.DEVNULL, timeout=60,
                             env={**os.environ, CHECK_ARGS_ENV: "cardbench run serve"})
        assert out.returncode == 2 and "--test-server loads cardbench's own test server" in out.stderr, out.stderr
        assert "Traceback" not in out.stderr
