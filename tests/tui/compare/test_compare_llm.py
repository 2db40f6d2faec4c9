"""compare of llm runs: the same model, dtype, lengths and batch, else refused naming the difference (issue 24).

The runs carry the keys the workload writes for the arguments given (workloads.llm.plan.identity of the plan
the workload makes), so the test breaks if the workload stops stating one or compare stops reading it."""

import json

import pytest
from report_runs import T0

from tui.store import RunStore
from workloads import protocol
from workloads.llm.cli import build_parser
from workloads.llm.plan import identity, make_plan


def llm_run(store, *argv, dtype="fp32", tg=50.0, device="Fake GPU 80GB"):
    """A finished llm run of ``argv``: the start and result the workload writes, with chosen figures."""
    args = build_parser().parse_args(list(argv))
    plan = make_plan(args, on_cpu=True)
    run = store.create("llm", list(argv))
    run.append(protocol.Start(t=T0, workload="llm", device=device, config={"dtype": dtype, "sweep": plan.sweep},
                              versions={"torch": "2.14.1"}))
    run.append(protocol.Step(t=T0 + 1, step=1, throughput=tg, unit="tokens/s", step_s=1 / tg))
    run.append(protocol.Result(t=T0 + 2, metrics={**identity(plan), "dtype": dtype, "tg_tokens_per_s": tg,
                                                  "pp_tokens_per_s": 10 * tg}))
    run.append(protocol.End(t=T0 + 3, status="ok", exit_code=0))
    run.close()
    return run.path


@pytest.fixture
def store(tmp_path):
    return RunStore(tmp_path / "runs")


def test_runs_of_the_same_model_dtype_lengths_and_batch_compare(compare, store):
    a = llm_run(store, "--model", "tiny", "--input-len", "64", "--batch-size", "4", tg=50.0)
    b = llm_run(store, "--model", "tiny", "--input-len", "64", "--batch-size", "4", tg=75.0, device="Other GPU")
    code, out, err = compare(a, b, "--json")
    assert code == 0, err
    llm = json.loads(out)["workloads"][0]
    assert llm["unlike"] == [] and llm["headline"]["ratios"]["B"]["ratio"] == pytest.approx(1.5)  # 75 / 50 tokens/s


@pytest.mark.parametrize("b_argv, b_dtype, said", [
    (["--model", "Qwen2.5-0.5B"], "fp32", "model size tiny (A) vs Qwen2.5-0.5B (B)"),
    ([], "bf16", "precision fp32 (A) vs bf16 (B)"),
    (["--input-len", "256"], "fp32", "input tokens 128 (A) vs 256 (B)"),
    (["--output-len", "32"], "fp32", "output tokens 128 (A) vs 32 (B)"),
    (["--batch-size", "8"], "fp32", "batch size 1 (A) vs 8 (B)"),
    (["--sweep"], "fp32", "sweep (input x output x batch) off (A) vs 32,128 x 16,64 x 1,4 (B)"),
    (["--tg", "32"], "fp32", "tg tokens 128 (A) vs 32 (B)"),
])
def test_another_model_dtype_length_batch_or_sweep_is_refused_by_name(compare, store, b_argv, b_dtype, said):
    a = llm_run(store, "--model", "tiny")
    b = llm_run(store, "--model", "tiny", *b_argv, dtype=b_dtype)
    code, out, err = compare(a, b)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert said in err


def test_two_sweeps_of_other_lists_are_refused_and_two_custom_checkpoints_apart(compare, store, tmp_path):
    a = llm_run(store, "--sweep", "--input-len", "32,64")
    code, _, err = compare(a, llm_run(store, "--sweep", "--input-len", "32,128"))
    assert code == 2 and "sweep (input x output x batch) 32,64 x 16,64 x 1,4 (A) vs 32,128 x 16,64 x 1,4 (B)" in err
    shapes = []
    for layers in (1, 2):
        d = tmp_path / f"ckpt{layers}"
        d.mkdir()
        (d / "config.json").write_text(json.dumps({
            "model_type": "qwen2", "vocab_size": 300, "hidden_size": 64, "intermediate_size": 96,
            "num_hidden_layers": layers, "num_attention_heads": 4, "num_key_value_heads": 2,
            "max_position_embeddings": 1024}))
        shapes.append(llm_run(store, "--weights", str(d)))
    code, _, err = compare(*shapes)
    assert code == 2 and "model size custom qwen2, 1 layers x 64, " in err and "(A) vs custom qwen2, 2 layers" in err
