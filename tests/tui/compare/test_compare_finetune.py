"""compare refuses fine-tuning runs of another preset, mode or sequence length, naming the difference (issue 25)."""

import statistics

import pytest
from report_runs import T0

from tui.store import RunStore
from workloads import protocol, registry
from workloads.finetune.spec import SPEC


@pytest.fixture
def store(tmp_path):
    return RunStore(tmp_path / "runs")


@pytest.fixture(autouse=True)
def finetune_registered():
    with registry.registered(SPEC):
        yield


def finetune_run(store, rates, *, model="tiny", mode="lora", seq_len=512, device="Fake GPU 80GB"):
    run = store.create("finetune", ["--mode", mode, "--seq-len", str(seq_len)])
    config = {"model": model, "mode": mode, "seq_len": seq_len, "batch_size": 8, "amp": "bf16", "data": None,
              "world_size": 1}
    run.append(protocol.Start(t=T0, workload="finetune", device=device, config=config, versions={"torch": "2.14.1"}))
    steps = [100.0, 100.0] + list(rates)
    for i, rate in enumerate(steps, start=1):
        run.append(protocol.Step(t=T0 + i, step=i, loss=2.0, throughput=rate, unit="tokens/s",
                                 step_s=8 * seq_len / rate))
    run.append(protocol.Result(t=T0 + len(steps) + 1, metrics={
        "tokens_per_s": statistics.median(rates), "precision": "bf16", "batch_size": 8, "model_size": model,
        "mode": mode, "seq_len": seq_len, "steps": len(steps), "warmup_steps": 2, "world_size": 1}))
    run.append(protocol.End(t=T0 + len(steps) + 2, status="ok", exit_code=0))
    run.close()
    return run.path


def test_another_mode_and_length_are_refused_by_name(compare, store):
    a = finetune_run(store, [1000, 1010, 990], mode="lora", seq_len=512)
    b = finetune_run(store, [2000, 2020, 1980], mode="full", seq_len=2048, device="Other GPU")
    code, out, err = compare(a, b)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "fine-tuning mode lora (A) vs full (B)" in err and "sequence length 512 (A) vs 2048 (B)" in err


def test_another_preset_is_refused_and_alike_runs_compare(compare, store):
    a = finetune_run(store, [1000, 1010, 990])
    code, _, err = compare(a, finetune_run(store, [1000], model="Llama-3.1-8B"))
    assert code == 2 and "model size tiny (A) vs Llama-3.1-8B (B)" in err
    code, out, err = compare(a, finetune_run(store, [2000, 2020, 1980], device="Other GPU"))
    assert code == 0, err
    assert "tokens/s" in out
