"""`cardbench fit` (tui/cli/fit.py): the plan's bad input is one line and exit 2 with no run recorded, and what it
stands for is `cardbench run llm --fit-only` with the plan's options (the run itself: tests/workloads/llm)."""

import argparse

import pytest

from tui import cli
from tui.cli import fit


def _runs(tmp_path):
    root = tmp_path / "runs"
    return sorted(p.name for p in root.iterdir()) if root.exists() else []


@pytest.mark.parametrize("argv, said", [
    (["Qwen2.5-7B", "--card", "H800"], "cardbench fit: argument --card: unknown card 'H800'; close: "),
    (["Qwen2.5-7B", "--card", "A100"], "whose memory size rated.csv does not hold; close: NVIDIA A100 SXM4 80GB"),
    (["Qwen2.5-7B", "--memory", "0"], "cardbench fit: argument --memory: '0' is no memory"),
    (["Qwen2.5-7B", "--memory", "32XB"], "cardbench fit: argument --memory: '32XB' is not a size"),
    (["Qwen2.5-7B", "--input-len", "0"], "'0' is not a whole number of 1 or more"),
    ([], "cardbench fit: name a model ("),
    (["Qwen9"], "cardbench fit: unknown model 'Qwen9'; known: "),
    (["Qwen2.5-7B", "--price-per-hour", "-1"], "cardbench fit: argument --price-per-hour: must be above 0, got -1"),
])
def test_bad_input_is_one_line_and_exit_2_before_a_run_is_recorded(tmp_path, capsys, argv, said):
    assert cli.main(["fit", "--runs-dir", str(tmp_path / "runs"), *argv]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1 and "Traceback" not in err
    assert _runs(tmp_path) == []


def test_a_length_past_the_model_s_context_is_the_workload_s_check_said_as_fit_s(tmp_path, capsys):
    assert cli.main(["fit", "--runs-dir", str(tmp_path / "runs"), "Qwen2.5-7B", "--input-len", "40000"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cardbench fit: input + output is 40128 positions, beyond Qwen2.5-7B's context of 32768")
    assert _runs(tmp_path) == []


def test_it_stands_for_llm_fit_only_with_the_plan_s_options():
    args = argparse.Namespace(model="Qwen2.5-7B", weights=None, fit_cards=["Ascend 910B3", "NVIDIA A100 80GB"],
                              fit_memory=["32GB", "80GB"], fit_input="4096", fit_output="128", fit_batch="1", fit_dtype="auto",
                              price_per_hour=2.5, currency="CNY")
    assert fit.workload_args(args) == [
        "--fit-only", "--input-len", "4096", "--output-len", "128", "--batch-size", "1", "--dtype", "auto",
        "--model", "Qwen2.5-7B", "--card", "Ascend 910B3", "--card", "NVIDIA A100 80GB", "--memory", "32GB",
        "--memory", "80GB", "--price-per-hour", "2.5", "--currency", "CNY"]
    assert "fit" in cli.COMMAND_MODULES and "plan a model on a card" in cli.build_parser().format_help()


def test_the_plan_s_tables_as_printed_each_fit_a_120_column_terminal(tmp_path, capfd):
    """The command a trial user pastes from: its tables under the RESULT line (the estimate, the verdicts, the
    runtime's lines; `workloads.models.llama.fit_table`), none of their lines past 120 columns."""
    assert cli.main(["fit", "--runs-dir", str(tmp_path / "runs"), "Qwen2.5-7B", "--card", "Ascend 910B3", "--card",
                     "NVIDIA A100 80GB", "--input-len", "4096"]) == 0
    said = capfd.readouterr()
    lines = (said.out + said.err).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("RESULT:")) + 1
    tables = lines[start:next(i for i, line in enumerate(lines) if line.startswith("end: ok"))]
    headings = [line for line in tables if not line.startswith("  ")]
    assert len(headings) == 3 and len(tables) == 3 + 6 + 11 + 7, tables
    assert [line for line in tables if len(line) > 120] == []
    assert tables[6].startswith("  AdamW full, checkpointing  ")
    assert tables[8].split() == ["use", "or", "figure", "Ascend", "910B3", "64", "GiB", "A100", "80GB"]
