"""`cardbench run finetune --fit-only`: the plan of the fine-tune's shape, the same table as llm's (one estimate),
against named cards without reading this host's memory; nothing built, nothing trained."""

import io
import json

from workloads.child.harness import Emitter, WorkloadError
from workloads.finetune.cli import main
from workloads.finetune.result_record import FinetuneResult
from workloads.models.llama import fit
from workloads.models.llama.presets import PRESETS

import pytest


def _events(*argv):
    out = io.StringIO()
    assert main(Emitter(out), ["--device", "cpu", *argv]) == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_fit_only_plans_the_fine_tune_s_shape_against_the_cards_named():
    events = _events("--fit-only", "--model", "Llama-3.1-8B", "--seq-len", "2048", "--batch-size", "1",
                     "--card", "H100-SXM", "--memory", "32GB")
    assert [e["event"] for e in events] == ["start", "result"]   # no step: nothing trained
    m = events[-1]["metrics"]
    assert FinetuneResult.of(m).undeclared() == []
    assert [t["name"] for t in m["fit_targets"]] == ["NVIDIA H100 SXM5 80GB", "32.0 GiB"]
    lora = next(r for r in m["fit"] if r["use_id"] == "lora")
    assert lora["gradients_bytes"] == fit.lora_parameters(PRESETS["Llama-3.1-8B"]) * 4 == 35_651_584 * 4
    estimate, verdicts, runtime = [printer(m) for printer in FinetuneResult.table_printers()]   # llm's three
    assert estimate[0]("en").startswith("Fit of Llama-3.1-8B in bf16 at batch 1 x 2048 positions")
    assert [str(c) for c in verdicts[1]] == ["use or figure", "H100 SXM5 80GB", "32 GiB card"]
    assert [str(r[1]) for r in verdicts[2][:2]] == ["fits, batch <= 117", "fits, batch <= 5"]
    assert len(runtime[2]) == 6


def test_a_training_run_has_no_fit_table_and_the_plan_s_options_need_fit_only():
    assert [p({"tokens_per_s": 10.0})[2] for p in FinetuneResult.table_printers()] == [[], [], []]
    with pytest.raises(WorkloadError, match="they go with --fit-only"):
        main(Emitter(io.StringIO()), ["--device", "cpu", "--card", "H100-SXM"])
