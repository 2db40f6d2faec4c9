"""From a whole real log to the step events and the result a run of it gives."""

from __future__ import annotations

import statistics

import pytest
from paths import FIXTURES

from workloads.command.parsers import read
from workloads.command.parsers.custom import compile_metric
from workloads.command.progress import Tracker


def track(name: str, metrics=()) -> tuple[list[tuple[int, dict]], dict]:
    steps: list[tuple[int, dict]] = []
    tracker = Tracker(emit_step=lambda step, **fields: steps.append((step, fields)), clock=lambda: 0.0)
    for line in (FIXTURES / "logs" / name).read_text(encoding="utf-8").split("\n"):
        reading = read(line, metrics)
        if reading is not None:
            tracker.see(reading)
    return steps, tracker.result()


def test_lightning_a_counts_loss_is_the_last_one_printed_at_that_count():
    steps, result = track("lightning-1.txt")
    # `1/18 ... 8.77s/it` then `1/18 ... loss=10.473`, then `2/18 ... loss=10.473` (still step 1's) and
    # `2/18 ... loss=10.224`: step 2's loss is 10.224, not the stale 10.473 its first redraw carried
    assert [(s, f.get("loss")) for s, f in steps] == [(1, 10.473), (2, 10.224), (3, 10.047), (4, 9.926), (5, 9.847)]
    assert all(f["epoch"] == 0 and f["unit"] == "it/s" for _, f in steps)
    assert steps[0][1]["throughput"] == pytest.approx(1 / 8.77)
    assert result["final_loss"] == 9.847


def test_an_epoch_bar_keeps_its_batch_count_and_the_log_s_time_left():
    # issue 22.4: `Epoch 0:  17%|...| 3/18 [00:14<01:13, 4.87s/it, ...]` lost its total and its ETA
    from tui.workbench.panes.run_view import render_state
    from tui.workbench.view.run_state import RunState
    from workloads import protocol

    steps, _result = track("lightning-1.txt")
    assert [(f["batch"], f["batches"], f["epoch_eta_s"]) for _, f in steps[:3]] == [(1, 18, 149.0), (2, 18, 93.0),
                                                                                  (3, 18, 73.0)]
    assert "total_steps" not in steps[0][1]   # the epoch's 18 batches are not the run's steps
    step, fields = steps[2]
    known = {k: fields.pop(k) for k in ("epoch", "loss", "throughput", "unit")}
    event = protocol.Step(step=step, **known, extra=fields)
    assert "| batch 3/18 of the epoch |" in event.describe()
    state = RunState(workload="command", status="running")
    state.see_step(event)
    shown = render_state(state).plain
    assert "step 3  epoch 0  batch 3/18  ETA 73 s (to the epoch's end, the log's)" in shown
    assert "4.9 s/it (tqdm's smoothed rate" in shown and "it/s" not in shown   # as the log wrote it


def test_tqdm_clock_reads_minutes_and_hours():
    from workloads.command.parsers.tqdm import clock_seconds

    assert (clock_seconds("01:13"), clock_seconds("1:22:40"), clock_seconds("?")) == (73.0, 4960.0, None)


def test_a_validation_bar_between_epoch_redraws_is_not_a_step():
    steps, result = track("lightning-2.txt")
    assert [s for s, _ in steps] == list(range(932, 941))  # 73/157 and 78/157 of the validation bar are not steps
    assert result["throughput_unit"] == "it/s"


def test_the_trainers_loss_goes_to_the_step_its_bar_had_just_shown():
    steps, result = track("hf_trainer-1.txt")
    losses = {s: f["loss"] for s, f in steps if "loss" in f}
    # ` 82%|...| 435/532` then the clear line, then `{'loss': 4.7764, ...}`: the Trainer logs after step 435
    assert losses[435] == 4.7764 and losses[436] == 4.5412 and losses[437] == 4.7389 and losses[438] == 4.8916
    assert all(f.get("total_steps") == 532 for s, f in steps if s > 1)
    assert result["read_by"] == "hf_trainer, tqdm"


def test_trainer_dicts_with_no_bar_are_numbered_and_its_summary_is_kept_apart():
    steps, result = track("hf_trainer-summary.txt")
    assert [s for s, _ in steps] == list(range(1, 11))  # ten logged losses, no count in the log: numbered
    assert [f["loss"] for _, f in steps][-1] == 2.5744 and "throughput" not in steps[0][1]
    assert result["train_samples_per_second"] == 6.885 and result["train_runtime"] == 116.1914
    assert "throughput" not in result  # the log printed no per-step rate: no headline is made up


def test_headline_is_the_median_of_printed_rates_after_the_first_few_in_the_logs_unit():
    steps, result = track("torchvision-1.txt")
    rates = [f["throughput"] for _, f in steps]
    assert result["warmup_steps"] == 1 and result["rates"] == len(rates) - 1
    assert result["throughput"] == statistics.median(rates[1:])
    assert result["throughput_unit"] == "img/s" and "img/s" in result["throughput_from"]


def test_timm_passes_add_up_and_its_rates_are_samples_per_second():
    steps, result = track("timm-1.txt")
    assert [s for s, _ in steps] == [1, 51, 101, 135]
    assert result["throughput_unit"] == "samples/s" and result["final_loss"] == 0.4173


def test_a_metric_rate_on_the_bars_own_lines_wins_so_one_unit_runs_throughout():
    steps, result = track("tqdm-1.txt", (compile_metric(r"tok/s=tok/s=([0-9.]+)"),))
    assert {f["unit"] for _, f in steps} == {"tok/s"}  # the user's figure wins on its lines, one unit throughout
    assert result["throughput_unit"] == "tok/s" and result["metric tok/s"] == 27902.0


def test_bars_that_start_again_continue_the_step_count_and_their_zero_is_no_step():
    steps: list[tuple[int, dict]] = []
    tracker = Tracker(emit_step=lambda step, **fields: steps.append((step, fields)), clock=lambda: 0.0)
    for epoch in range(2):
        # tqdm draws each epoch's bar at 0 first; a postfix set at once redraws it with a loss
        tracker.see(read(f"epoch {epoch}:   0%|      | 0/3 [00:00<?, ?it/s, loss=9.0]"))
        for n in (1, 2, 3):
            tracker.see(read(f"epoch {epoch}: {n * 33}%|###   | {n}/3 [00:0{n}<00:00,  1.00it/s, loss={epoch}.{n}]"))
    tracker.flush()
    assert [(s, f["loss"]) for s, f in steps] == [(1, 0.1), (2, 0.2), (3, 0.3), (4, 1.1), (5, 1.2), (6, 1.3)]
    # each pass's total is counted as its steps are: the first pass ends at 3, the second at 6
    assert [f["total_steps"] for _, f in steps] == [3, 3, 3, 6, 6, 6]


def test_a_quiet_open_step_is_emitted_after_a_while():
    now = [0.0]
    steps: list[int] = []
    tracker = Tracker(emit_step=lambda step, **fields: steps.append(step), clock=lambda: now[0])
    tracker.see(read("Training:  50%|#####     | 5/10 [00:05<00:05,  1.00it/s]"))
    tracker.tick()
    assert steps == []  # the tool may still print this count's loss
    now[0] = 2.5
    tracker.tick()
    assert steps == [5]


def test_a_rate_in_another_unit_than_the_first_is_kept_out_of_the_steps_and_the_headline():
    steps: list[tuple[int, dict]] = []
    tracker = Tracker(emit_step=lambda step, **fields: steps.append((step, fields)), clock=lambda: 0.0)
    images = (compile_metric(r"img/s=images/s ([0-9.]+)"),)
    for n in (1, 2, 3):
        tracker.see(read(f"Training:  {n}0%|#         | {n}/10 [00:0{n}<00:09,  2.00it/s]", images))
    tracker.see(read("eval speed: images/s 812.5", images))  # a second unit, on a line of its own
    result = tracker.result()
    assert [f.get("unit") for _, f in steps] == ["it/s", "it/s", "it/s"]
    assert result["throughput_unit"] == "it/s" and result["throughput"] == 2.0
    assert result["rates_in_other_units"] == 1 and result["metric img/s"] == 812.5


def test_a_loss_written_between_redraws_goes_with_the_count_the_bar_is_redrawn_at():
    steps: list[tuple[int, dict]] = []
    tracker = Tracker(emit_step=lambda step, **fields: steps.append((step, fields)), clock=lambda: 0.0)
    # tqdm throttles redraws: the bar was last drawn at 39, its count is 40 when tqdm.write clears it, prints
    # the Trainer's dict and redraws it, now at 40
    for line in ("97%|#########7| 39/40 [00:01<00:00, 23.80it/s]",
                 "{'loss': 0.075, 'learning_rate': 0.0, 'epoch': 1.0}",
                 "100%|##########| 40/40 [00:01<00:00, 23.70it/s]"):
        tracker.see(read(line))
    tracker.flush()
    assert [(s, f.get("loss")) for s, f in steps] == [(39, None), (40, 0.075)]


def test_a_loss_written_after_a_bar_ends_stays_with_that_pass():
    steps: list[tuple[int, dict]] = []
    tracker = Tracker(emit_step=lambda step, **fields: steps.append((step, fields)), clock=lambda: 0.0)
    epoch_loss = (compile_metric(r"loss=epoch \d+ loss ([0-9.]+)"),)
    for line in ("epoch 0: 100%|##########| 3/3 [00:03<00:00,  1.00it/s]", "epoch 0 loss 0.5",
                 "epoch 1:   0%|          | 0/3 [00:00<?, ?it/s]", "epoch 1:  33%|###3      | 1/3 [00:01<00:02,  1.00it/s]"):
        tracker.see(read(line, epoch_loss))
    tracker.flush()
    assert [(s, f.get("loss")) for s, f in steps] == [(3, 0.5), (4, None)]


def test_a_lightning_epoch_with_another_total_is_the_same_bar_and_its_zero_no_step():
    steps, result = track("lightning-2.5.txt")
    assert [(s, f["epoch"]) for s, f in steps] == [(3744, 0)]
    assert result["throughput"] == 0.32 and result["throughput_unit"] == "it/s"


def test_a_loss_printed_without_tqdm_write_stays_with_the_count_drawn_before_it():
    now = [0.0]
    steps: list[tuple[int, dict]] = []
    tracker = Tracker(emit_step=lambda step, **fields: steps.append((step, fields)), clock=lambda: now[0])
    # a script that clears the bar and prints (no redraw after it): the next redraw is the next step's, later
    tracker.see(read(" 50%|#####     | 5/10 [00:05<00:05, 45.00it/s]"))
    tracker.see(read("{'loss': 0.4, 'learning_rate': 5e-05, 'epoch': 0.5}"))
    now[0] += 0.1
    tracker.see(read(" 60%|######    | 6/10 [00:06<00:04, 46.00it/s]"))
    tracker.flush()
    assert [(s, f.get("loss")) for s, f in steps] == [(5, 0.4), (6, None)]


def test_a_pass_whose_last_batch_is_not_logged_ends_at_its_total():
    """A script that logs every 50th batch and not the last (timm's lines, the epoch's 134/135 left out): the
    next epoch's steps go on from the total every line carries (135), not from the last batch logged."""
    timm = (FIXTURES / "logs" / "timm-1.txt").read_text(encoding="utf-8").split("\n")
    train = [line for line in timm if line.startswith("Train: 62 [") and "134/135" not in line]
    lines = train + [line.replace("Train: 62", "Train: 63") for line in train]
    steps: list[int] = []
    tracker = Tracker(emit_step=lambda step, **fields: steps.append(step), clock=lambda: 0.0)
    for line in lines:
        tracker.see(read(line))
    tracker.result()
    assert steps == [1, 51, 101, 136, 186, 236]
