"""The soak's parts, torch-free and without a child: intervals, verdict, table, kernel log."""

from __future__ import annotations

import csv
import os
import stat
import sys
from pathlib import Path

import pytest
from paths import FIXTURES

from workloads import registry
from workloads.child.harness import WorkloadError
from workloads.soak import table
from workloads.soak.intervals import IntervalBook
from workloads.soak.kernel import KernelLog
from workloads.soak.spec import SPEC
from workloads.soak.verdict import judge

T0 = 1_800_000_000.0


def gpu(index=0, **fields):
    base = {"index": index, "sm_clock_mhz": 1980, "temperature_c": 60, "power_w": 500, "throttle_reasons": [],
            "ecc_corrected": 3, "ecc_uncorrected": 0, "remapped_rows": 0, "pcie_replays": 0}
    base.update(fields)
    return base


def feed(book, seconds, devices_at, rate_at=lambda t: 100.0):
    for s in range(seconds):
        t = T0 + s
        book.add_sample({"t": t, "devices": devices_at(t)})
        book.add_step(t + 0.5, "resnet50", rate_at(t), "images/s")


def test_a_healthy_soak_passes_with_one_row_per_interval():
    book = IntervalBook(T0, 60, T0 + 180)
    feed(book, 180, lambda t: [gpu(0), gpu(1)])
    rows = book.close_all(T0 + 180)
    assert [r["interval"] for r in rows] == [1, 2, 3]
    assert all(r["samples"] == 60 and r["rates"]["resnet50"]["drift_pct"] == 0 for r in rows)
    verdict, findings = judge(rows)
    assert (verdict, findings) == ("PASS", [])


def test_each_injected_fault_is_found_in_the_interval_it_happened_in():
    # interval 2 (60-120 s): an uncorrectable ECC error at 70 s, thermal throttling 80-110 s on GPU1,
    # a remapped row at 100 s; interval 3: throughput 10 % down
    def devices(t):
        s = t - T0
        return [gpu(0, ecc_uncorrected=1 if s >= 70 else 0, remapped_rows=1 if s >= 100 else 0),
                gpu(1, throttle_reasons=["sw thermal", "power cap"] if 80 <= s < 110 else ["power cap"])]

    book = IntervalBook(T0, 60, T0 + 180)
    feed(book, 180, devices, rate_at=lambda t: 90.0 if t - T0 >= 120 else 100.0)
    book.add_xid(T0 + 95, 79, "PCI:0000:19:00", "NVRM: Xid (PCI:0000:19:00): 79, GPU has fallen off the bus.")
    rows = book.close_all(T0 + 180)
    verdict, findings = judge(rows)
    assert verdict == "FAIL"
    said = {(f.level, f.rule): f.text for f in findings}
    assert "interval 2" in said[("FAIL", "xid")] and "Xid 79" in said[("FAIL", "xid")]
    assert said[("FAIL", "ecc")].startswith("GPU0: 1 uncorrectable ECC error(s) in interval 2")
    assert said[("WARN", "thermal")].startswith("GPU1: thermal throttling 50% of interval 2")
    assert said[("WARN", "remapped_rows")].startswith("GPU0: 1 more remapped rows in interval 2")
    assert "interval 3" in said[("FAIL", "drift")] and "10.0 % below" in said[("FAIL", "drift")]
    assert [f.level for f in findings] == sorted([f.level for f in findings], key=lambda x: x != "FAIL")
    # interval 1's counters are the baseline: no finding there, and the delta is not counted twice
    assert rows[0]["devices"]["GPU0"]["deltas"]["ecc_uncorrected"] == 0
    assert rows[2]["devices"]["GPU0"]["deltas"]["ecc_uncorrected"] == 0
    cells = table.flat(rows[1])
    assert cells["ecc_uncorrected"] == "1 (GPU0 +1)" and cells["xid"].startswith("79 at ")
    assert cells["throttle"] == "GPU1 power cap 60 s, sw thermal 30 s"
    assert cells["thermal_throttle_pct"] == "50"


def test_an_interval_closes_only_after_its_end_and_a_grace_and_holds_no_raw_values_after():
    book = IntervalBook(T0, 60, T0 + 600, grace_s=3)
    feed(book, 61, lambda t: [gpu(0)])
    assert book.close_due(T0 + 62) == []          # the sampler may still write a sample of second 59
    rows = book.close_due(T0 + 63)
    assert [r["interval"] for r in rows] == [1]
    assert list(book._open) == [1]                # only the interval in progress holds samples


def test_a_stopped_soak_closes_its_last_interval_short():
    book = IntervalBook(T0, 60, T0 + 3600)
    feed(book, 90, lambda t: [gpu(0)])
    rows = book.close_all(T0 + 90)
    assert [round(r["duration_s"]) for r in rows] == [60, 30]


def test_nothing_watched_is_a_warning_not_a_pass():
    book = IntervalBook(T0, 60, T0 + 60)
    book.add_sample({"t": T0 + 1, "devices": []})
    verdict, findings = judge(book.close_all(T0 + 60), unwatched=["kernel log not read (x)"])
    assert verdict == "WARN"
    assert [f.text for f in findings] == ["no device readings: clocks, temperature, ECC and throttling were not "
                                          "checked", "no throughput reported: drift was not measured",
                                          "kernel log not read (x)"]


def test_intervals_csv_and_the_report_table_carry_the_same_cells(tmp_path):
    book = IntervalBook(T0, 60, T0 + 120)
    feed(book, 120, lambda t: [gpu(0)])
    flat = [table.flat(r) for r in book.close_all(T0 + 120)]
    table.write_csv(tmp_path / "intervals.csv", flat)
    with open(tmp_path / "intervals.csv", newline="") as f:
        assert list(csv.DictReader(f)) == flat
    heading, columns, rows = table.report_table({"verdict": "PASS", "findings_count": 0, "intervals": flat})
    assert heading.en == "Soak per interval (verdict PASS, 0 finding(s); the rules and findings are in verdict.txt " \
                         "and below)"
    assert heading("zh").startswith("长时间测试各时段（结论 `PASS`") and columns[0]("zh") == "时段"
    assert rows[0][:5] == ["1", "08:00:00", "1.0", "resnet50 100 images/s", "+0.0"]
    assert len(rows[0]) == len(columns)


def _fake_dmesg(bin_dir: Path, log: Path, iso: bool) -> None:
    script = bin_dir / "dmesg"
    refuse = "" if iso else 'if len(sys.argv) > 1 and sys.argv[1] == "--time-format=iso": sys.exit(1)\n'
    script.write_text(f"#!{sys.executable}\nimport sys\n{refuse}sys.stdout.write(open({str(log)!r}).read())\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)


def test_the_kernel_log_gives_only_xid_lines_logged_since_the_start_with_their_time(tmp_path, monkeypatch):
    lines = (FIXTURES / "dmesg-xid" / "dmesg-ctime-xid13-xid109-2024-08-30.txt").read_text().splitlines()
    log = tmp_path / "kern.log"
    log.write_text("\n".join(lines[:3]) + "\n")    # a peermem line and two Xid 13 lines, before the soak
    _fake_dmesg(tmp_path, log, iso=False)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    kernel = KernelLog()
    kernel.start()
    assert kernel.new() == []
    log.write_text("\n".join(lines) + "\n")
    new = kernel.new()
    assert [(x.code, x.where) for x in new] == [(13, "PCI:0000:cb:00"), (109, "PCI:0000:cb:00")]
    assert new[1].t == 1725018194.0                # [Fri Aug 30 11:43:14 2024], read in UTC
    assert kernel.new() == [] and kernel.problem is None


def test_a_kernel_log_that_cannot_be_read_is_said(tmp_path, monkeypatch):
    script = tmp_path / "dmesg"
    script.write_text("#!/bin/sh\necho 'dmesg: read kernel buffer failed: Operation not permitted' >&2\nexit 1\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    kernel = KernelLog()
    kernel.start()
    assert kernel.problem.startswith("dmesg could not be read")


def _plan(*argv):
    """The plan as `cardbench soak` reads it, through the soak's spec (the soak's own main plans the same)."""
    return SPEC.inner_runs(argv, registry.names())


def test_an_alternation_gives_each_workload_the_common_arguments_and_its_own():
    assert _plan("--hours", "1", "--workload", "resnet50,generate", "--args", "--device cpu",
                 "--args", "resnet50=--steps 20 --amp bf16", "--args=generate=--tokens 64") == [
        ("resnet50", ["--device", "cpu", "--steps", "20", "--amp", "bf16"]),
        ("generate", ["--device", "cpu", "--tokens", "64"])]


def test_your_own_command_runs_through_the_command_workload():
    assert _plan("--hours", "1", "--", "python", "train.py", "--lr", "3e-4") == [
        ("command", ["--", "python", "train.py", "--lr", "3e-4"])]
    assert _plan("--hours", "1", "--device", "cuda:1", "--", "python", "train.py", "--device", "cuda:0") == [
        ("command", ["--device", "cuda:1", "--", "python", "train.py", "--device", "cuda:0"])]   # the job's own


def test_the_device_goes_to_each_inner_workload_that_does_not_choose_one():
    assert _plan("--hours", "1", "--device", "cpu", "--workload", "resnet50,generate",
                 "--args", "generate=--device=cuda:0") == [
        ("resnet50", ["--device", "cpu"]), ("generate", ["--device=cuda:0"])]


def test_a_workload_and_a_command_together_are_refused():
    with pytest.raises(WorkloadError, match="give --workload or -- CMD, not both"):
        _plan("--hours", "1", "--workload", "resnet50", "--", "python", "train.py")
    with pytest.raises(WorkloadError, match="unknown workload soak"):
        _plan("--hours", "1", "--workload", "soak")       # not itself
    with pytest.raises(WorkloadError, match="unknown workload resnet5$") as refused:
        _plan("--hours", "1", "--workload", "resnet50,resnet5")
    assert "resnet50" in refused.value.hint and "soak" not in refused.value.hint


def test_the_result_s_worst_drifts_come_from_the_rows_figures_not_the_cells_text():
    # figures the table rounds to one decimal: the result keeps them whole (a parse of '-12.3' would lose 0.0456)
    rows = [{"rates": {"a": {"drift_pct": 0.0}}, "latency": {"s": {"tpot_ms_p50_drift_pct": 0.0}}},
            {"rates": {"a": {"drift_pct": -12.3456}, "b": {"drift_pct": 30.0}},
             "latency": {"s": {"ttft_ms_p50_drift_pct": -40.01, "tpot_ms_p99_drift_pct": 25.5}}},
            {"rates": {"a": {"drift_pct": 4.0}}, "latency": {}}]
    worsts = table.Worsts()
    worsts.see(rows[0])
    assert worsts.drift() == 0.0 and worsts.latency_change() is None   # one interval with latency: no change yet
    for row in rows[1:]:
        worsts.see(row)
    assert worsts.drift() == -12.3456          # the largest fall before any rise
    assert worsts.latency_change() == -40.01   # the largest change either way
    assert table.worst_drift([3.0, 5.0]) == 5.0 and table.worst_drift([]) is None


def test_a_latency_finding_names_each_figure_of_the_intervals_latency():
    from workloads.soak.intervals import LATENCY
    from workloads.soak.verdict import findings_of

    row = {"interval": 2, "start": T0, "end": T0 + 60, "errors": [], "xids": [], "restarts": 0, "runs": 1,
           "rates": {}, "devices": {},
           "latency": {"serve": {**{k: 50.0 for k in LATENCY}, **{f"{k}_drift_pct": 80.0 for k in LATENCY}}}}
    said = [f.text for f in findings_of(row) if f.rule == "latency"]
    assert [t.split(" 50 ms")[0] for t in said] == ["serve TTFT p50", "serve TTFT p99", "serve TPOT p50",
                                                    "serve TPOT p99"]


def test_a_card_its_own_tool_calls_unwell_is_found_with_the_tools_word_and_how_long():
    # an Ascend card: npu-smi says Warning on NPU 1 for 20 s of interval 1, Alarm on NPU 0 in interval 2;
    # a Moore Threads reading of more memory used than the card has is a warning too
    def devices(t):
        s = t - T0
        return [gpu(0, health="Alarm" if 70 <= s < 75 else "OK"),
                gpu(1, health="Warning" if 10 <= s < 30 else "OK"),
                gpu(2, mem_used_bytes=44302 * 2 ** 20 if s >= 100 else 0, mem_total_bytes=32768 * 2 ** 20)]

    book = IntervalBook(T0, 60, T0 + 120)
    feed(book, 120, devices)
    rows = book.close_all(T0 + 120)
    assert rows[0]["devices"]["GPU1"]["unwell_s"] == {"Warning": 20.0}
    assert rows[0]["devices"]["GPU0"]["unwell_s"] == {}
    verdict, findings = judge(rows)
    assert verdict == "FAIL"
    said = [(f.level, f.text.split(" in interval")[0]) for f in findings if f.rule == "health"]
    assert said == [("FAIL", "GPU0: its tool said 'Alarm' for 5 s"), ("WARN", "GPU1: its tool said 'Warning' for 20 s"),
                    ("WARN", "GPU2: its tool read more memory in use than the card has for 20 s")]
