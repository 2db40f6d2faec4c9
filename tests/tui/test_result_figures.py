"""A result reads in words wherever it is printed (issue 22.11): the log pane, `cardbench run`, never `ttft_s=0.157`."""

from __future__ import annotations

from tui.figures import event_line, glance_text, metric_text, result_text
from tui.workbench.panes.log import event_text
from workloads import protocol
from workloads.spec import Metric, Text

GENERATE = {"tokens_per_s": 15.43, "ttft_s": 0.157, "bandwidth_fraction": 0.329, "tokens": 48,
            "model_size": "124M", "peak_memory_bytes": 3 * 2**30, "achieved_tflops": 0.0004, "odd": 10**400}


def test_a_generate_result_reads_as_the_report_labels_it():
    line = result_text("generate", GENERATE)
    assert line.startswith("RESULT: 15.43 tokens/s per sequence (decode, median after warm-up); ")
    assert "time to first token 157 ms" in line and "share of read bandwidth achieved 32.9 %" in line
    assert "new tokens per run 48" in line and "model 124M" in line
    # unlabelled keys: named without their unit suffix, formatted by it; a tiny figure keeps its digits
    assert "peak memory 3.0 GiB" in line and "achieved 0.0004 TFLOP/s" in line
    assert "odd (out of range)" in line
    # the two bandwidths the share divides: value first, as a label that starts with its unit reads
    both = result_text("generate", {"bandwidth_gbps": 0.3896, "device_read_gbps": 36.93})
    assert both == ("RESULT: 0.3896 GB/s read by decoding (bytes read a step × steps/s); "
                    "36.93 GB/s device read bandwidth (measured: fastest sum of a tensor)")
    assert result_text("plugin", {"frames_per_s": 12.5, "wait_s": 2.5}) == "RESULT: 12.5 frames/s; wait 2.5 s"
    # a list of figures: each in the key's unit (they read '36.93, 36.51' with no unit)
    assert result_text("plugin", {"device_read_rounds_gbps": [36.93, 36.51]}) == \
        "RESULT: device read rounds 36.93 GB/s, 36.51 GB/s"
    assert result_text("plugin", {"restart_s": [1.5] * 100}) == "RESULT: restart <100 items, in events.jsonl>"
    assert "=" not in line and "ttft_s" not in line and "tokens_per_s" not in line


def test_a_withheld_figure_says_unreliable_with_its_reason():
    line = result_text("generate", {"tokens_per_s": 3.0, "bandwidth_fraction": 1.7,
                                    "bandwidth_fraction_unreliable": "over the measured bandwidth"})
    assert "share of read bandwidth achieved unreliable (over the measured bandwidth)" in line
    assert "170.0 %" not in line


def test_metric_text_by_kind():
    assert metric_text(Metric("a", Text("a"), "seconds"), 0.0082) == "8.2 ms"
    assert metric_text(Metric("a", Text("a"), "fraction"), 0.135) == "13.5 %"
    assert metric_text(Metric("a", Text("a"), "bytes"), 512 * 2**20) == "512 MiB"
    assert metric_text(Metric("a", Text("a"), "rate"), float("nan")) == "N/A"
    assert metric_text(Metric("a", Text("a")), 1e300) == "(out of range)"
    assert metric_text(Metric("a", Text("a")), list(range(100))) == "<100 items, in events.jsonl>"
    assert metric_text(Metric("a", Text("a")), [11.242002951606171, 33.480143746473324]) == "11.24, 33.48"


def test_the_log_pane_shows_a_glance_in_words_once_it_knows_the_workload():
    from tui.workbench.panes.log import LogPane

    pane = LogPane(clock=lambda: 0.0)
    pane.event(protocol.Start(workload="generate", config={}, device="cpu", versions={}))
    shown = event_text(protocol.Result(metrics=GENERATE), pane.workload).plain
    assert shown == glance_text("generate", GENERATE)
    assert shown == ("RESULT: 15.43 tokens/s per sequence (decode, median after warm-up); time to first token 157 ms; "
                     "share of read bandwidth achieved 32.9 % (5 more figures in run.log)")
    # without a start event (a run of unknown provenance) the event describes itself
    assert event_line(protocol.Result(metrics={"x": 1}), None).startswith("RESULT: x=1")


def test_a_job_s_headline_carries_the_unit_its_log_wrote():
    line = result_text("command", {"throughput": 0.2145, "throughput_unit": "it/s"})
    assert line.startswith("RESULT: 0.2145 it/s, throughput the log printed"), line


def test_run_log_holds_the_result_in_the_same_words(tmp_path):
    from tui.store import RunStore

    run = RunStore(str(tmp_path / "runs")).create("generate", [])
    run.append(protocol.Start(workload="generate", config={}, device="cpu", versions={}))
    run.append(protocol.Result(metrics=GENERATE))
    run.close()
    log = (run.path / "run.log").read_text()
    assert result_text("generate", GENERATE) in log and "ttft_s=" not in log


# keys no spec labels, one per ending the workloads use: each names its unit
UNLABELLED = {"achieved_tflops": 0.0004, "achieved_tflops_per_device": 12.5, "device_read_gbps": 21.3,
              "decode_bytes_per_step": 62672896, "model_flops_per_token": 2.5e8, "gflop_per_image": 2,
              "mfu_pct": 41.5, "wait_s": 131.0, "host_fraction": 0.25, "tokens_per_s_median": 91.27,
              "decode_tokens_per_s": 12.0, "scratch_bytes": 3 * 2**30, "ttft_ms_mean": 4.744,
              "ttft_ms_p50_drift_pct": -4.5, "per_s": 1200}


def test_a_metric_key_gets_the_same_unit_on_screen_in_run_log_and_in_the_report():
    """The key-ending -> unit rule was written twice (figures and the report's "All result metrics") and they
    disagreed: the log read 'achieved tflops 0.0004', the report '0.0004 TFLOP/s' (issue 23: one source per fact)."""
    from tui.report.contents import _figure
    from tui.report.i18n import Words

    line = result_text("plugin", UNLABELLED)                      # run.log and `cardbench run`
    screen = str(event_text(protocol.Result(metrics=UNLABELLED), "plugin"))   # the log pane
    for key, value in UNLABELLED.items():
        figure = _figure(key, value, Words("en"))                 # the report's "All result metrics" cell
        assert figure in line and figure in screen, (key, figure, line)
    assert "achieved 0.0004 TFLOP/s" in line and "device read 21.3 GB/s" in line and "2 GFLOP/image" in line
    assert "decode per step 60 MiB" in line and "wait 2 min 11 s" in line and "host 25.0 %" in line
    assert "median 91.27 tokens/s" in line and "mfu 41.5 %" in line and "ttft mean 4.744 ms" in line
    assert "ttft ms p50 drift -4.5 %" in line and line.endswith("; 1,200 /s")   # a bare per_s: a rate, not 20 min


def test_a_label_that_starts_with_its_unit_follows_its_value():
    """serve's 'ms time to first token (TTFT), p50' read 'ms time to first token (TTFT), p50 20.96' in RESULT."""
    line = result_text("serve", {"output_tokens_per_s": 91484.1, "ttft_ms_p50": 20.96, "tpot_ms_p99": 0.3044})
    assert "20.96 ms time to first token (TTFT), p50" in line
    assert "0.3044 ms per output token after the first (TPOT), p99" in line
    assert "p50 20.96" not in line
