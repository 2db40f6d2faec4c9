"""A result reads in words wherever it is printed (issue 22.11): the log pane, `cardbench run`, never `ttft_s=0.157`."""

from __future__ import annotations

from tui.figures import event_line, glance_text, metric_text, result_text
from tui.workbench.panes.log import event_text
from dataclasses import dataclass
from typing import ClassVar

from workloads import protocol, registry
from workloads.result_record import BYTES, FRACTION, NESTED, SECONDS, Figure, Record, figure
from workloads.spec import Text, WorkloadSpec

GENERATE = {"tokens_per_s": 15.43, "ttft_s": 0.157, "bandwidth_fraction": 0.329, "tokens": 48,
            "model_size": "124M", "peak_memory_bytes": 3 * 2**30, "achieved_tflops": 0.0004, "odd": 10**400}


def test_a_generate_result_reads_as_the_report_labels_it():
    line = result_text("generate", GENERATE)
    assert line.startswith("RESULT: 15.43 tokens/s per sequence (decode, median after warm-up); ")
    assert "time to first token 157 ms" in line and "share of read bandwidth achieved 32.9 %" in line
    assert "new tokens per run 48" in line and "model 124M" in line
    # the two bandwidths the share divides: value first, as a label that starts with its unit reads
    both = result_text("generate", {"bandwidth_gbps": 0.3896, "device_read_gbps": 36.93})
    assert both == ("RESULT: 0.3896 GB/s read by decoding (bytes read a step × steps/s); "
                    "36.93 GB/s device read bandwidth (measured: fastest sum of a tensor)")
    assert "=" not in line and "ttft_s" not in line and "tokens_per_s" not in line


def test_a_key_no_record_declares_is_said_as_written_never_given_a_unit_by_its_spelling():
    """The suffix grammar (`_s` seconds, `_gbps` GB/s...) guessed units from keys; a run from another version now
    reads as it was written, and only a record's figure has a unit."""
    assert result_text("plugin", {"frames_per_s": 12.5, "wait_s": 2.5}) == "RESULT: frames_per_s 12.5; wait_s 2.5"
    assert result_text("plugin", {"rounds_gbps": [36.93, 36.51]}) == "RESULT: rounds_gbps 36.93, 36.51"
    assert result_text("plugin", {"odd": 10**400}) == "RESULT: odd (out of range)"


def test_a_withheld_figure_says_unreliable_with_its_reason():
    line = result_text("generate", {"tokens_per_s": 3.0, "bandwidth_fraction": 1.7,
                                    "bandwidth_fraction_unreliable": "over the measured bandwidth"})
    assert "share of read bandwidth achieved unreliable (over the measured bandwidth)" in line
    assert "170.0 %" not in line


def test_metric_text_by_the_kind_its_unit_gives():
    assert metric_text(Figure("a", Text("a"), SECONDS), 0.0082) == "8.2 ms"
    assert metric_text(Figure("a", Text("a"), FRACTION), 0.135) == "13.5 %"
    assert metric_text(Figure("a", Text("a"), BYTES), 512 * 2**20) == "512 MiB"
    assert metric_text(Figure("a", Text("a"), "images/s"), float("nan")) == "N/A"
    assert metric_text(Figure("a", Text("a")), 1e300) == "(out of range)"
    assert metric_text(Figure("a", Text("a"), NESTED), list(range(100))) == "<100 items, in events.jsonl>"
    assert metric_text(Figure("a", Text("a")), [11.242002951606171, 33.480143746473324]) == "11.24, 33.48"


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


@dataclass
class _Frames(Record):
    """A plugin's result: one figure of each kind a unit gives."""

    HEADLINE: ClassVar[str] = "frames_per_s"
    frames_per_s: float | None = figure(Text("frames/s rendered"), "frames/s")
    wait_s: float | None = figure(Text("time waiting"), SECONDS)
    scratch_bytes: float | None = figure(Text("scratch memory"), BYTES)
    host_fraction: float | None = figure(Text("share on the host"), FRACTION)
    drift_pct: float | None = figure(Text("% drift against the first interval"), "%")
    read_gbps: list | None = figure(Text("GB/s read, each round"), "GB/s", kind="number")


FRAMES = {"frames_per_s": 1200.0, "wait_s": 131.0, "scratch_bytes": 3 * 2**30, "host_fraction": 0.25,
          "drift_pct": -4.5, "read_gbps": [36.93, 36.51]}


def test_a_figure_reads_alike_on_screen_in_run_log_and_in_the_report():
    """One definition per figure: the record's unit, wherever it is printed (the key-ending rule was written twice
    and the two disagreed: the log read 'achieved tflops 0.0004', the report '0.0004 TFLOP/s')."""
    from tui.report.contents import _figure
    from tui.report.i18n import Words

    plugin = WorkloadSpec(name="frames", title=Text("Frames"), result=_Frames)
    with registry.registered(plugin):
        line = result_text("frames", FRAMES)                                        # run.log, `cardbench run`
        screen = event_line(protocol.Result(metrics=FRAMES), "frames")             # the terminal's line
        for key, value in FRAMES.items():
            said = _figure(plugin.metric(key), value, Words("en"))                 # "All result metrics"
            assert said in line and said in screen, (key, said, line)
    assert line == ("RESULT: 1,200 frames/s rendered; time waiting 2 min 11 s; scratch memory 3.0 GiB; "
                    "share on the host 25.0 %; -4.5 % drift against the first interval; "
                    "36.93, 36.51 GB/s read, each round")


def test_a_label_that_starts_with_its_unit_follows_its_value():
    """serve's 'ms time to first token (TTFT), p50' read 'ms time to first token (TTFT), p50 20.96' in RESULT."""
    line = result_text("serve", {"output_tokens_per_s": 91484.1, "ttft_ms_p50": 20.96, "tpot_ms_p99": 0.3044})
    assert "20.96 ms time to first token (TTFT), p50" in line
    assert "0.3044 ms per output token after the first (TPOT), p99" in line
    assert "p50 20.96" not in line


def test_a_yes_or_no_and_a_few_notes_read_as_words():
    """serve's `ignore_eos` read 'True' and its notes a raw Python list in the RESULT line."""
    assert metric_text(Figure("a", Text("a"), "text"), True) == "yes"
    assert metric_text(Figure("a", Text("a")), False, "zh") == "否"
    notes = ["the server refused ignore_eos", "tokens counted from the usage field"]
    assert metric_text(Figure("a", Text("a"), NESTED), notes) == "the server refused ignore_eos; tokens counted " \
                                                                 "from the usage field"


def test_a_short_table_reads_as_words_and_a_withheld_figure_as_a_number():
    """opscan's precision verdict read `{'fp32': 'usable: every recorded op ok'}` and its failures `[]`; generate's
    withheld share read 'unreliable (1.3580246913580247)'."""
    verdicts = Figure("a", Text("a"), NESTED)
    assert metric_text(verdicts, {"fp32": "usable: every recorded op ok"}) == "fp32: usable: every recorded op ok"
    assert metric_text(verdicts, []) == "none" and metric_text(verdicts, {}, "zh") == "无"
    line = result_text("generate", {"tokens_per_s": 3.0, "bandwidth_fraction": None,
                                    "bandwidth_fraction_unreliable": 1.3580246913580247})
    assert "share of read bandwidth achieved unreliable (1.358)" in line


def test_a_short_nested_table_says_each_row_s_fields_not_their_count():
    from tui.figures import metric_text
    from workloads import registry

    ops = registry.spec_for("finetune").metric("cpu_fallback_ops")
    said = metric_text(ops, [{"op": "aten::gelu", "calls_per_step": 1, "share_of_step": 0.084}])
    assert said == "(op: aten::gelu, calls_per_step: 1, share_of_step: 0.084)"


def test_a_headline_of_fewer_measured_steps_than_a_figure_needs_is_said_not_measured_as_the_report_says():
    """`cardbench run finetune ... --steps 4` printed 'RESULT: 16.39 tokens/s' where its report said 'not measured:
    1 step(s) after warm-up, fewer than the 3 a figure needs'."""
    short = result_text("finetune", {"tokens_per_s": 16.39, "steps_counted": 1, "steps": 4})
    assert "16.39 tokens/s" not in short
    assert "not measured: 1 step(s) after warm-up, fewer than the 3 a figure needs (16.39)" in short
    enough = result_text("finetune", {"tokens_per_s": 16.39, "steps_counted": 3, "steps": 6})
    assert "16.39 tokens/s" in enough and "not measured" not in enough


def test_the_terminal_says_a_long_result_as_its_glance_and_run_log_keeps_every_figure():
    """An llm run's RESULT line held every one of its 59 figures: 2,939 characters on one terminal line."""
    from tui.figures import TERMINAL_RESULT_CHARS, terminal_result_text

    short = {"tokens_per_s": 15.43, "ttft_s": 0.157}
    assert terminal_result_text("generate", short) == result_text("generate", short)
    long = {**GENERATE, **{f"extra_{i}": i for i in range(60)}}
    assert len(result_text("generate", long)) > TERMINAL_RESULT_CHARS
    said = terminal_result_text("generate", long)
    # the leading figures of the whole line, in its order (serve's answer leads both)
    assert len(said) <= TERMINAL_RESULT_CHARS and said.startswith("RESULT: 15.43 tokens/s per sequence")
    assert result_text("generate", long).startswith(said.split(" (")[0].rsplit("; ", 1)[0])
    assert said.endswith("more figures in run.log)")
    # the glance keeps the report's rule on too few measured steps
    few = terminal_result_text("finetune", {**{f"extra_{i}": i for i in range(60)}, "tokens_per_s": 16.39,
                                            "steps_counted": 1})
    assert "not measured: 1 step(s) after warm-up" in few and "16.39 tokens/s" not in few
