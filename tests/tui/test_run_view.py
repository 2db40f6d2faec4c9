"""The launcher's run state as text: counts over the plan, each rate named, no loss where a workload has none."""
from tui.workbench.panes.run_view import render_state
from tui.workbench.view.run_state import RunState
from tui.store import RunStore, load_run
from workloads import protocol


def resnet_step(n, t, **fields):
    return protocol.Step(t=t, step=n, epoch=1, loss=1.2068, throughput=37.2, unit="images/s", step_s=0.1,
                         total_steps=6, total_epochs=1, **fields)


def token_step(n, t, rate=2.8):
    return protocol.Step(t=t, step=n, throughput=rate, unit="tokens/s", step_s=0.36, total_steps=48,
                         counts="tokens", throughput_window=16)


def lines(state):
    return render_state(state).plain.splitlines()


def test_resnet50_counts_steps_and_epochs_over_the_cap_and_names_the_live_rate():
    state = RunState.starting("resnet50", "r1", ["--steps", "6", "--batch-size", "4"])
    assert lines(state)[1:3] == ["step 0/6  ETA N/A", "N/A  loss N/A"]
    # the config says 3 epochs were asked for; the 6-step cap reaches only the first
    state.see_event(protocol.Start(t=0.0, workload="resnet50",
                                   config={"epochs": 3, "steps": 6, "total_steps": 6, "total_epochs": 1}))
    state.see_step(resnet_step(4, 10.0))
    state.see_step(resnet_step(5, 11.0))
    assert lines(state) == ["RUNNING ResNet-50 training", "step 5/6  epoch 1/1  ETA 1 s",
                            "37.2 images/s last step  loss 1.2068", "fallbacks 0  warnings 0"]
    state.see_event(protocol.Result(metrics={"images_per_s": 35.44, "final_loss": 1.324, "precision": "fp32"}))
    state.see_event(protocol.End(status="ok"))
    # labelled figures, not `final_loss=1.324` (issue 22.11)
    assert lines(state)[-2:] == ["35.44 images/s (median after warm-up)", "final loss 1.324  precision fp32"]


def test_generate_counts_timed_tokens_shows_no_loss_and_has_an_eta_from_its_first_step():
    state = RunState.starting("generate", "g1", ["--tokens", "16", "--repeat", "3"])
    assert lines(state)[1] == "timed token 0/48  ETA N/A"  # 16 tokens x 3 timed runs; the warm-up is not counted
    state.see_step(token_step(16, 5.0))
    # one step: the 32 tokens left at its 0.36 s a token
    assert lines(state) == ["RUNNING GPT-2 token generation", "timed token 16/48  ETA 11.5 s",
                            "2.8 tokens/s last 16 tokens", "fallbacks 0  warnings 0"]
    state.see_step(token_step(32, 9.0))  # then the rate since the first step: 16 tokens in 4 s
    assert lines(state)[1] == "timed token 32/48  ETA 4 s"
    state.see_event(protocol.Result(metrics={"tokens_per_s": 2.76, "ttft_s": 1.72, "bandwidth_fraction": 0.1,
                                             "dtype": "fp32"}))
    text = render_state(state).plain
    assert "loss" not in text
    assert lines(state)[-2:] == ["2.76 tokens/s per sequence (decode, median after warm-up)",
                                 "time to first token 1.72 s  share of read bandwidth achieved 10.0 %  "
                                 "weights' dtype fp32"]


def test_a_run_read_back_from_disk_keeps_its_plan_and_what_its_rate_is(tmp_path):
    run = RunStore(tmp_path).create("resnet50", ["--steps", "6"])
    run.append(protocol.Start(t=0.0, workload="resnet50", config={"total_steps": 6, "total_epochs": 1}))
    for n in range(1, 7):
        run.append(resnet_step(n, float(n)))
    run.append(protocol.End(status="stopped"))
    run.close()
    assert lines(RunState.from_record(load_run(run.path)))[1:3] == ["step 6/6  epoch 1/1",
                                                                   "37.2 images/s last step  loss 1.2068"]
    # one line per step in run.log, in one format
    log = (run.path / "run.log").read_text().splitlines()
    assert [line.split("] ", 1)[1].split(" | ")[:2] for line in log if " | " in line] == [
        [f"step {n}/6", "epoch 1/1"] for n in range(1, 7)]
