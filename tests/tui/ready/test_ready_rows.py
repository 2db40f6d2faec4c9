"""`cardbench ready`'s table and verdicts from stand-in sub-results: each question's row, its bound and ratio, the
verdict's rule, N/A with the reason where a figure is missing, and the table said in English and Chinese."""

from __future__ import annotations

import pytest

from ready_results import COLD, finetune, fit, loss, perf, readiness, results, scan
from tui.ready.data_read import DataRead, read
from tui.ready.readiness import Readiness, parse
from tui.ready.rows import FAIL, NA_VERDICT, PASS, QUESTIONS, WARN, rows_of, words
from tui.ready.table import blocks, ratio_text, terminal_lines
from tui.report.document import Table
from zh_words import english_words


def _rows(data=None, why=None, **changed):
    return {r.question: r for r in rows_of(results(**changed), why or {}, "bf16", data)}


def test_every_question_has_a_row_in_order_and_a_card_that_passes_everything_passes():
    rows = rows_of(results(), {}, "bf16", DataRead(files=40, bytes=400 * 2**20, seconds=2.0, unreadable=0,
                                                   complete=False), "/data/corpus")
    assert [r.question for r in rows] == list(QUESTIONS)
    assert {r.question: r.verdict for r in rows} == dict.fromkeys(QUESTIONS, PASS)
    by = {r.question: r for r in rows}
    # FlagPerf's form: the decode row is measured over its bandwidth bound, the fine-tune row's ratio is the MFU
    assert by["decode"].ratio == pytest.approx(0.62)
    assert by["finetune"].ratio == pytest.approx(0.38)
    assert by["prefill"].bound == pytest.approx(9000.0 / 0.41)
    assert by["fit"].measured == 17 * 2**30 and by["fit"].bound == 80 * 2**30
    # the data read against the bytes a second the fine-tune consumes: 5,000 tokens/s at 4 B a token
    assert by["data_io"].measured == 200 * 2**20 and by["data_io"].bound == 20_000


@pytest.mark.parametrize("changed, question, verdict", [
    ({"fit": fit(fits=False)}, "fit", FAIL),
    ({"fit": fit(lora_fits=False)}, "fit", WARN),
    ({"ops": scan([{"op": "aten::_fused_rms_norm", "dtype": "bf16", "status": "error"}])}, "ops", FAIL),
    ({"ops": scan(fallback=2)}, "ops", WARN),
    ({"loss": loss(ok=False)}, "loss", FAIL),
    ({"perf": perf(decode_share=0.1)}, "decode", WARN),       # far from its bound
    ({"perf": perf(decode_share=1.4)}, "decode", WARN),       # past its physical bound: not a result
    ({"finetune": finetune(mfu=0.05)}, "finetune", WARN),
    ({"cold_start": {**COLD, "cold_start_s": 95.0}}, "cold_start", WARN),
])
def test_each_rule_turns_its_verdict(changed, question, verdict):
    assert _rows(**changed)[question].verdict == verdict


def test_a_failing_op_is_named_in_the_evidence():
    row = _rows(ops=scan([{"op": "aten::_fused_rms_norm", "dtype": "bf16", "status": "error"}]))["ops"]
    assert "aten::_fused_rms_norm" in row.said("en") and "55 of 56 ops traced" in row.said("en")


def test_an_op_the_runs_left_on_the_cpu_is_a_warn_naming_the_op_its_calls_and_share():
    fallback = {"cpu_fallback_ops": [{"op": "aten::nonzero", "calls_per_step": 4, "share_of_step": 0.31},
                                     {"op": "aten::unique", "calls_per_step": 1, "share_of_step": 0.02}],
                "host_device_copies_per_step": 9}
    row = _rows(finetune=finetune(**fallback))["ops"]
    assert row.verdict == WARN
    said = row.said("en")
    assert "aten::nonzero (4/step, 31.0 %)" in said and said.index("aten::nonzero") < said.index("aten::unique")


def test_runs_that_measured_no_fallback_say_none_and_their_copies():
    clean = {"cpu_fallback_ops": [], "host_device_copies_per_step": 3}
    row = _rows(perf=perf(**clean), finetune=finetune(**clean))["ops"]
    assert row.verdict == PASS and "no op left the card" in row.said("en") and "3 host-device" in row.said("en")


def test_without_the_fallback_or_cold_start_fields_the_rows_say_this_cardbench_does_not_measure_them():
    rows = _rows(cold_start=None, why={"cold_start": words("why.no_cold_start")})
    assert "not measured by this cardbench" in rows["ops"].said("en")
    assert rows["cold_start"].verdict == NA_VERDICT and "no cold start measurement" in rows["cold_start"].said("en")


def test_the_cold_start_row_reads_its_split():
    row = _rows()["cold_start"]
    assert row.measured == 41.5 and row.verdict == PASS
    said = row.said("en")
    assert "weights read 30 s" in said and "cold (page cache dropped)" in said and "import 3.1 s" in said


def test_a_cpu_has_no_rated_peak_so_prefill_and_mfu_are_na_with_the_reason_and_the_figure_kept():
    rows = _rows(perf=perf(prefill_share=None), finetune=finetune(mfu=None))
    for q in ("prefill", "finetune"):
        assert rows[q].verdict == NA_VERDICT and rows[q].bound is None and rows[q].measured is not None
    assert "no rated compute peak" in rows["prefill"].said("en")
    assert "no rated peak for this device" in rows["finetune"].said("en")


def test_a_cpu_readiness_in_chinese_is_chinese_with_durations_in_its_units():
    """What the tiny preset on this CPU gave (a ready run's bundle, read): its cold start's phases, its TPOT and TTFT
    said as the table's durations are, the read's state, why there is no MFU and 'no op fails' in Chinese."""
    cold = {**COLD, "cold_start_s": 4.797, "cold_start_device_s": 0.0009987, "cold_start_read_state": "cold"}
    rows = _rows(perf=perf(prefill_share=None, tpot_p50_s=0.01675, ttft_s=0.156), finetune=finetune(mfu=None),
                 cold_start=cold)
    en, zh = rows["cold_start"].said("en"), rows["cold_start"].said("zh")
    assert en.startswith("4.8 s from a fresh process") and "device 0.999 ms" in en and ", cold," in en
    assert "用时 4.8 秒" in zh and "设备初始化 0.999 毫秒" in zh and "冷读" in zh and "超过 60 秒为警告" in zh
    assert "TPOT p50 16.8 ms, TTFT 156 ms" in rows["decode"].said("en")
    assert "TPOT p50 16.8 毫秒，TTFT 156 毫秒" in rows["decode"].said("zh")
    assert "MFU 为 N/A：该设备没有额定算力峰值" in rows["finetune"].said("zh")
    assert "(failing: none)" in rows["ops"].said("en") and "（失败：无）" in rows["ops"].said("zh")
    said = " ".join(row.said("zh") for row in rows.values())
    assert english_words(said) <= {"MFU", "TPOT", "TTFT", "LoRA", "IO", "float64", "Llama"}


def test_the_chinese_table_on_a_terminal_aligns_its_columns():
    # a Chinese character takes two columns: padded by len() the verdicts stood in a ragged line
    from workloads.facts.text_table import width

    table = terminal_lines(readiness(), "zh")[1:2 + len(QUESTIONS)]
    starts = {width(line) - width(line.split()[-1]) for line in table}
    assert len(table) == 1 + len(QUESTIONS) and len(starts) == 1, table


def test_a_step_that_gave_no_result_is_na_with_its_reason_never_a_zero():
    why = {"finetune": words("why.budget", left="20 s", budget="15 min", need="2 min")}
    rows = _rows(finetune=None, loss=None, why=why)
    assert rows["finetune"].measured is None and "skipped: 20 s of the 15 min budget left" in rows["finetune"].said("en")
    assert rows["loss"].verdict == NA_VERDICT and "gave no loss" in rows["loss"].said("en")
    assert rows["data_io"].verdict == NA_VERDICT and "no --data DIR" in rows["data_io"].said("en")


def test_the_readiness_round_trips_through_its_json():
    made = readiness()
    back = parse(__import__("json").dumps(made.to_json()).encode())
    assert isinstance(back, Readiness) and back.rows == made.rows and back.model == made.model


def test_the_table_and_verdict_lines_in_english_and_chinese():
    made = readiness(perf=perf(decode_share=0.1))
    lines = terminal_lines(made, "en")
    assert lines[0].startswith("Readiness of Llama-3.1-8B in bf16 on NVIDIA H100")
    assert any(line.startswith("WARN  decode against the memory bandwidth: 100 tokens/s, 10.0 %") for line in lines)
    assert sum(1 for line in lines if line.split("  ")[0] in (PASS, WARN, FAIL, NA_VERDICT)) == len(QUESTIONS)
    zh = blocks(made, "zh")
    table = next(b for b in zh if isinstance(b, Table))
    assert table.headers[0] == "问题" and table.rows[4][-1] == "警告"
    from tui.report.markdown import render

    # what a Chinese reader finds in English: the names the field writes so, nothing of cardbench's own words
    assert english_words(render(zh)) <= {"MFU", "TPOT", "TTFT", "LoRA", "IO", "FlagPerf", "float64", "Llama"}


def test_the_data_is_read_from_where_it_lives_and_judged_against_the_fine_tunes_appetite(tmp_path):
    corpus = tmp_path / "corpus"
    (corpus / "shard").mkdir(parents=True)
    for n in range(3):
        (corpus / "shard" / f"part-{n}.jsonl").write_bytes(b'{"text": "hello"}\n' * 20_000)
    (corpus / "link.jsonl").symlink_to(tmp_path)   # never followed out of the folder
    data = read(corpus)
    assert data.files == 3 and data.bytes == 3 * 18 * 20_000 and data.complete and data.unreadable == 0
    row = rows_of(results(), {}, "bf16", data, str(corpus))[-1]
    assert row.verdict == PASS and "from 3 file(s) of" in row.said("en") and "5,000 tokens/s x 4 B" in row.said("en")
    assert ratio_text(1e-5) == "< 1 %" and ratio_text(0.0) == "0 %"   # a tiny share is not none
    assert ratio_text(row.ratio).endswith("x")   # thousands of times the need: 'N x', not a percentage of 7 digits
    hungry = rows_of(results(finetune=finetune(tokens_per_s=10**13)), {}, "bf16", data, str(corpus))[-1]
    assert hungry.verdict == WARN   # it reads slower than the fine-tune would consume it: the card would wait
    empty = tmp_path / "empty"
    empty.mkdir()
    assert rows_of(results(), {}, "bf16", read(empty), str(empty))[-1].verdict == FAIL


def test_a_run_recorded_before_plans_had_targets_says_its_fit_on_the_row():
    old = fit()
    old["fit"] = [{k: v for k, v in r.items() if k != "targets"} | {"fits": r["targets"][0]["fits"]}
                  for r in old["fit"]]
    old["fit"][0]["fits"] = False
    assert _rows(fit=old)["fit"].verdict == FAIL
    assert _rows(fit=fit())["fit"].verdict == PASS


def test_runs_on_the_cpu_say_no_op_can_leave_a_card_there():
    on_cpu = {"device": "cpu (x86_64, 2 threads)"}
    row = _rows(perf=perf(**on_cpu), finetune=finetune(**on_cpu))["ops"]
    assert "the model ran on the CPU itself" in row.said("en") and "不适用" in row.said("zh")


def test_a_plan_that_does_not_fit_stops_the_later_steps():
    from tui.ready.runs import does_not_fit

    assert does_not_fit(fit(fits=False)) and not does_not_fit(fit())


def test_the_fit_is_the_plans_estimate_and_its_cell_says_so_in_both_languages():
    from tui.report.markdown import render

    made = readiness()
    fit_row = made.row("fit")
    # the plan's inference row as the plan gives it for this device: nothing added or taken here
    assert fit_row.estimate and fit_row.measured == fit()["fit"][0]["total_bytes"]
    assert not any(r.estimate for r in made.rows if r.question != "fit")   # the others are measured
    en = next(line for line in terminal_lines(made, "en") if line.strip().startswith("fits (batch x context)"))
    assert "17.0 GiB (estimate)" in en and "80.0 GiB" in en
    assert "| 17.0 GiB（估算） | 80.0 GiB |" in render(blocks(made, "zh"))
    assert "is estimated to need 17.0 GiB of 80.0 GiB free" in fit_row.said("en") and "估算" in fit_row.said("zh")
    # a figure the fit has not: N/A, not 'N/A (estimate)'
    bare = _rows(fit={**fit(), "fit": []})["fit"]
    assert bare.measured is None
    assert "(estimate)" not in terminal_lines(readiness(fit={**fit(), "fit": []}), "en")[2]


def test_a_readiness_kept_before_rows_said_estimate_reads_back_as_measured():
    data = readiness().to_json()
    for row in data["rows"]:
        row.pop("estimate")
    back = parse(__import__("json").dumps(data).encode())
    assert not any(r.estimate for r in back.rows)
    assert parse(__import__("json").dumps(readiness().to_json()).encode()).row("fit").estimate
