"""The fit plan's tables (`workloads.models.llama.fit_table`): three, each inside a 120-column terminal for
`cardbench fit Qwen2.5-7B --card "Ascend 910B3" --card "NVIDIA A100 80GB" --input-len 4096`, every figure of the
single table they replace still in one of them, a target's short header beside its full name in the heading, and a
run recorded before the plan had targets still read."""

from __future__ import annotations

import io
import json

import pytest

from tui import cli
from tui.cli import fit as fit_command
from tui.cli.run import table_lines
from workloads.catalogue import Message
from workloads.child.harness import Emitter
from workloads.facts.formatting import format_bytes, format_number, percent
from workloads.facts.text_table import width
from workloads.finetune.result_record import FinetuneResult
from workloads.llm.cli import main as llm_main
from workloads.llm.result_record import LlmResult
from workloads.models.llama import fit_table
from workloads.models.llama.fit_record import FitFigures
from workloads.models.llama.runtime_cost import ALLOCATOR_SHARE
from workloads.result_record import STRICT_ENV

TERMINAL = 120
COMMAND = ["Qwen2.5-7B", "--card", "Ascend 910B3", "--card", "NVIDIA A100 80GB", "--input-len", "4096"]


def _plan(monkeypatch, *fit_argv: str) -> dict:
    """The result of `cardbench fit ARGV`: its arguments parsed as the command parses them, said as llm's --fit-only
    arguments (`tui.cli.fit.workload_args`) and planned by llm's workload (named cards: no device, no torch)."""
    monkeypatch.delenv(STRICT_ENV, raising=False)
    args = cli.build_parser().parse_args(["fit", *fit_argv])
    out = io.StringIO()
    assert llm_main(Emitter(out), fit_command.workload_args(args)) == 0
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    return next(e for e in events if e["event"] == "result")["metrics"]


@pytest.fixture(scope="module")
def two_cards():
    with pytest.MonkeyPatch.context() as mp:
        return _plan(mp, *COMMAND)


def _said(cells) -> list[str]:
    return [c("en") if callable(c) else str(c) for c in cells]


def test_the_printed_tables_of_two_cards_each_fit_a_120_column_terminal(two_cards):
    printed = table_lines("llm", two_cards)   # what `cardbench fit` prints under its RESULT line
    assert printed == fit_table.lines(two_cards)   # run.log's lines are the terminal's
    headings = [line for line in printed if not line.startswith("  ")]
    assert [h.split(":")[0] for h in headings] == [
        "Fit of Qwen2.5-7B in bf16 at batch 1 x 4224 positions (4096 prompt tokens prefilled at once)",
        "Fit of Qwen2.5-7B on", "Fit runtime's lines at inference (allocator"]
    wide = [f"{width(line)}: {line}" for line in printed if width(line) > TERMINAL]
    assert wide == [], "\n".join(wide)
    # the verdicts' columns are headed short, and the heading says each target in full
    heading, columns, _rows = fit_table.verdict_table(two_cards)
    assert _said(columns) == ["use or figure", "Ascend 910B3 64 GiB", "A100 80GB"]
    assert heading("en") == ("Fit of Qwen2.5-7B on: Huawei Ascend 910B3, 64.0 GiB rated; NVIDIA A100 80GB (form "
                             "factor not named), 80.0 GiB rated")


def test_three_cards_and_a_price_stay_readable(monkeypatch):
    """Each row inside the terminal; only the heading, which names every target in full, runs past it."""
    m = _plan(monkeypatch, *COMMAND, "--card", "H100 SXM", "--price-per-hour", "2.5")
    rows = [line for line in table_lines("llm", m) if line.startswith("  ")]
    assert max(width(line) for line in rows) <= TERMINAL, "\n".join(rows)
    _h, columns, table = fit_table.verdict_table(m)
    assert _said(columns)[1:] == ["Ascend 910B3 64 GiB", "A100 80GB", "H100 SXM5 80GB"]
    cost = next(r for r in table if str(r[0]).startswith("cost per million tokens"))
    assert str(cost[0]) == "cost per million tokens at the decode bound, 2.5 USD/h"
    assert _said(cost[1:]) == [format_number(t["cost_per_million_tokens"], 3) for t in m["fit_targets"]]


def _cells(table) -> list[list[str]]:
    _heading, _columns, rows = table
    return [_said(r) for r in rows]


def _old_table_figures(m: dict) -> list[tuple[str, str, str]]:
    """Every figure the single table printed (before it was split), as (what, where, the text it was): a use's
    bytes (the estimate) and its verdict on each target (the verdicts), a target's longest context, bounds and cost
    (the verdicts), the runtime's lines and accelerate's figures (the runtime table)."""
    found = []
    for row in m["fit"]:
        for key in ("total_bytes", "weights_bytes", "kv_cache_bytes", "activations_bytes", "transient_bytes",
                    "runtime_bytes"):
            found.append((row["use_id"], "estimate", format_bytes(row[key])))
        found.append((row["use_id"], "estimate", format_bytes(row["gradients_bytes"] + row["optimizer_bytes"])))
        for t, v in enumerate(row["targets"]):
            said = f"batch <= {format_number(v['largest_batch'])}" if v["fits"] else f"{v['cards']} cards"
            found.append((row["use_id"], f"verdicts {t}", said))
    for t, target in enumerate(m["fit_targets"]):
        found.append(("longest context", f"verdicts {t}", format_number(target["longest_context"])))
        found.append(("decode bound", f"verdicts {t}", f"{format_number(target['decode_bound_tokens_per_s'], 3)} "
                                                        "tokens/s"))
        found.append(("bandwidth", f"verdicts {t}", f"{format_number(target['bandwidth_gbps'])} GB/s"))
        if target["peak_tflops"] is not None:
            found.append(("prefill bound", f"verdicts {t}",
                          f"{format_number(target['prefill_bound_tokens_per_s'], 3)} tokens/s"))
            found.append(("peak", f"verdicts {t}", f"{format_number(target['peak_tflops'])} TFLOP/s"))
        if m.get("fit_price_per_hour") is not None:
            found.append(("cost", f"verdicts {t}", format_number(target["cost_per_million_tokens"], 3)))
    for key in fit_table.RUNTIME_LINES:
        found.append((key, "runtime", format_bytes(m[key])))
    return found


def test_every_figure_of_the_old_single_table_is_in_the_new_ones(monkeypatch):
    m = _plan(monkeypatch, *COMMAND, "--price-per-hour", "2.5")
    estimate, verdicts, runtime = fit_table.tables(m)
    uses = [r["use_id"] for r in m["fit"]]
    where = {"estimate": _cells(estimate), "runtime": _cells(runtime)}
    verdict_rows = _cells(verdicts)
    missing = []
    for what, table, text in _old_table_figures(m):
        if table == "estimate":
            cells = where["estimate"][uses.index(what)][1:]
        elif table == "runtime":
            cells = where["runtime"][fit_table.RUNTIME_LINES.index(what)][1:]
        else:   # the verdicts: the figure's own row where it is a use's, else the target's column
            column = 1 + int(table.split()[1])
            rows = [verdict_rows[uses.index(what)]] if what in uses else verdict_rows[len(uses):]
            cells = [r[column] for r in rows]
        if not any(text in cell for cell in cells):
            missing.append(f"{what} in {table}: {text!r} not in {cells}")
    assert missing == [], "\n".join(missing)
    # the heading's figures: the shape planned, the allocator's share, each target in full
    said = " ".join(t[0]("en") for t in (estimate, verdicts, runtime))
    for figure in ("Qwen2.5-7B", "bf16", "batch 1", "4224 positions", "4096 prompt tokens", percent(ALLOCATOR_SHARE),
                   "Huawei Ascend 910B3, 64.0 GiB rated", "NVIDIA A100 80GB (form factor not named), 80.0 GiB rated"):
        assert figure in said, figure
    assert len(verdict_rows) == 5 + 6   # the uses; longest context, bandwidth, decode, peak, prefill, cost


def test_one_label_a_figure_and_the_same_in_every_table():
    """A use is said alike in the estimate and the verdicts, and a runtime line as the result's figure is (the
    report's list of every figure says it so)."""
    m = {"fit": [{"use": "train LoRA r16", "use_id": "lora", "targets": [{"fits": True, "largest_batch": 2}]}],
         "fit_targets": [{"name": "x", "kind": "size", "memory_bytes": 2**30}],
         **{key: 2**20 for key in fit_table.RUNTIME_LINES}}
    estimate, verdicts, runtime = fit_table.tables(m)
    assert estimate[2][0][0] == verdicts[2][0][0] == Message("workload.fit.use.lora")
    assert [r[0] for r in runtime[2]] == [FitFigures.figure(k).label for k in fit_table.RUNTIME_LINES]
    assert all(r[0]("zh") != r[0]("en") for r in runtime[2])   # said in Chinese too


@pytest.mark.parametrize("name, header", [
    ("Huawei Ascend 910B3", "Ascend 910B3 64 GiB"),
    ("NVIDIA A100 80GB (form factor not named)", "A100 80GB"),
    ("NVIDIA L4", "NVIDIA L4 64 GiB"),
    ("Moore Threads MTT S4000", "MTT S4000 64 GiB"),
    ("Intel Gaudi 2 (HL-225)", "Gaudi 2 64 GiB"),
])
def test_a_card_s_short_header(name, header):
    t = {"name": name, "kind": "card", "memory_bytes": (80 if "80GB" in name else 64) * 2**30}
    assert str(fit_table.target_header(t)) == header


def test_a_size_and_free_memory_are_headed_by_their_memory():
    assert str(fit_table.target_header({"name": "32.0 GiB", "kind": "size", "memory_bytes": 32 * 2**30})) == \
        "32 GiB card"
    free = {"name": "", "kind": "free", "memory_bytes": int(11.25 * 2**30)}
    assert str(fit_table.target_header(free)) == "free now 11.2 GiB"
    assert str(fit_table.target_label(free)) == "this device's free memory now, 11.2 GiB"


def test_a_run_recorded_before_the_plan_had_targets_still_renders():
    row = {"use": "train AdamW full", "total_bytes": 3 * 2**30, "fits": False, "cards": 3}
    old = {"fit": [row, {"use": "inference", "fits": True}], "free_bytes": 2**30}   # rows against free_bytes
    estimate, verdicts, runtime = fit_table.tables(old)
    assert _cells(estimate)[0][:3] == ["AdamW full", "3.0 GiB", "N/A"]
    heading, columns, rows = verdicts
    assert _said(columns) == ["use or figure", "free now 1 GiB"]
    assert "this device's free memory now, 1.0 GiB" in heading("en")
    assert _cells(verdicts) == [["AdamW full", "needs 3 cards"], ["inference", "fits, batch <= N/A"]]
    assert rows[0][1]("zh") == "需 3 张卡"
    assert runtime[2] == []   # it had no runtime lines: no table (the report leaves out a table without rows)
    lines = fit_table.lines(old)
    assert lines[0].startswith("Fit of N/A in N/A") and "  AdamW full     needs 3 cards" in lines
    assert _cells(fit_table.verdict_table({"fit": [row], "fit_targets": []})) == [["AdamW full"]]   # no target


def test_llm_and_finetune_declare_the_three_tables_and_only_a_plan_fills_them(two_cards):
    for record in (LlmResult, FinetuneResult):
        printers = record.table_printers()
        filled = [p(two_cards) for p in printers if p(two_cards)[2]]
        assert [t[0] for t in filled] == [t[0] for t in fit_table.tables(two_cards)], record
    # a timed llm run carries the fit too (its log prints it): its report's tables are its cells' (four, by topic)
    cell = {"input_len": 16, "output_len": 4, "batch": 1, "status": "ok"}
    timed = {**two_cards, "cells": [cell], "peak_memory_kind": "x"}
    assert [len(p(timed)[2]) for p in LlmResult.table_printers()] == [1, 0, 0, 1, 1, 1, 0, 0]
    assert [len(p({"tokens_per_s": 10.0})[2]) for p in FinetuneResult.table_printers()] == [0, 0, 0]


def test_the_tables_are_said_in_chinese(two_cards):
    estimate, verdicts, runtime = fit_table.tables(two_cards)
    assert estimate[0]("zh").startswith("Qwen2.5-7B（bf16）在批 1 × 4224 个位置")
    assert [c("zh") for c in estimate[1][:3]] == ["用途", "单卡需要", "权重"]
    assert verdicts[2][3][0]("zh") == "训练：AdamW 全参数"
    assert "额定 64.0 GiB" in verdicts[0]("zh") and runtime[0]("zh").startswith("推理时的适配运行时各项")
    assert verdicts[2][0][1]("zh") == "容纳，批 <= 52" and verdicts[2][4][1]("zh") == "需 3 张卡"
