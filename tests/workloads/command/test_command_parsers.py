"""Each log format is read from real lines of its tool (tests/fixtures/logs/, sources in SOURCES.md)."""

from __future__ import annotations

import pytest
from paths import FIXTURES

from workloads.command.parsers import read
from workloads.command.parsers.custom import BadMetric, compile_metric
from workloads.command.parsers.reading import EVAL, SUMMARY, TRAIN

LOGS = FIXTURES / "logs"


def lines(name: str) -> list[str]:
    return (LOGS / name).read_text(encoding="utf-8").split("\n")


def test_tqdm_bars_give_count_total_loss_and_rate_in_both_its_rate_forms():
    log = lines("tqdm-1.txt")
    fast = read(log[2])  # `499/5000 [06:28<57:55,  1.30it/s, loss=0.9962, ...]`
    assert (fast.source, fast.count, fast.total, fast.loss, fast.rate, fast.unit) == \
        ("tqdm", 499, 5000, 0.9962, 1.30, "it/s")
    slow = read(log[5])  # `500/5000 [06:29<1:22:40,  1.10s/it, ...]`: seconds per item, read as items per second
    assert slow.count == 500 and slow.unit == "it/s" and slow.rate == pytest.approx(1 / 1.10)
    assert slow.rate_as == "tqdm's smoothed rate, written as seconds per item"   # shown again as s/it
    assert slow.values["tok/s"] == 27851.7  # the postfix's other figures are kept
    assert read(log[4]) is None and read(log[7]) is None  # `📝 Sample ...`, `💾 Saved checkpoint ...`


def test_a_tqdm_bar_without_a_total_and_a_lightning_message_glued_to_it():
    first = read(lines("lightning-4.txt")[0])  # `Epoch 2: : 17671it [1:05:34,  4.49it/s, loss=2.15, ...]wandb: ...`
    assert (first.count, first.total, first.epoch, first.loss, first.rate) == (17671, None, 2, 2.15, 4.49)
    assert read("`Trainer.fit` stopped: `max_steps=400000` reached.") is None


def test_hf_trainer_dicts_with_numbers_and_with_strings():
    assert read(lines("hf_trainer-3.txt")[0]).loss == 0.0923
    numbers = read(lines("hf_trainer-summary.txt")[0])
    assert (numbers.source, numbers.kind, numbers.loss, numbers.values["learning_rate"]) == \
        ("hf_trainer", TRAIN, 3.1898, 2e-05)
    strings = read(lines("hf_trainer-strings.txt")[1])  # `{'loss': '2.205', ...}`: a newer transformers
    assert strings.loss == 2.205 and strings.values["mean_token_accuracy"] == 0.6839


def test_hf_trainer_closing_summary_is_the_tools_own_figures_not_a_step():
    summary = read(lines("hf_trainer-summary.txt")[10])
    assert summary.kind == SUMMARY and summary.count is None and summary.loss is None
    assert summary.values["train_samples_per_second"] == 6.885 and summary.values["train_runtime"] == 116.1914
    assert read(lines("hf_trainer-strings.txt")[3]).values["train_samples_per_second"] == 0.414


def test_hf_trainer_bar_lines_and_tqdms_clear_lines():
    log = lines("hf_trainer-1.txt")
    bar = read(log[2])  # ` 82%|████████▏ | 434/532 [1:51:50<25:07, 15.38s/it]`
    assert bar.count == 434 and bar.total == 532 and bar.rate == pytest.approx(1 / 15.38)
    assert log[4].strip() == "" and read(log[4]) is None


def test_lightning_epoch_bars_and_its_evaluation_bars():
    log = lines("lightning-1.txt")
    assert read(log[4]).epoch == 0 and read(log[4]).loss == 10.473 and read(log[4]).source == "lightning"
    assert read(log[3]).loss is None  # the count comes first, its loss on the next redraw
    mixed = lines("lightning-2.txt")
    assert read(mixed[0]).kind == EVAL  # `Validation DataLoader 0:  46%|...| 73/157`
    assert read(mixed[1]).kind == TRAIN and read(mixed[1]).count == 932 and read(mixed[1]).values["acc"] == 0.875


def test_timm_train_lines_count_batches_done_and_read_the_last_batch_rate():
    log = lines("timm-1.txt")
    line = read(log[6])  # `Train: 62 [  50/135 ( 37%)]  Loss: 0.4160 (0.428)  Time: 0.224s, 4571.36/s  (...)`
    assert (line.source, line.epoch, line.count, line.total, line.loss) == ("timm", 62, 51, 135, 0.4160)
    assert (line.rate, line.unit) == (4571.36, "samples/s") and line.values["lr"] == 3.229e-02
    assert read(log[1]).kind == EVAL and read(log[3]).kind == EVAL  # `Test:` and `Test (EMA):`
    assert read(log[0]) is None  # `Distributing BatchNorm running means and vars`


def test_torchvision_metric_logger_lines():
    line = read(lines("torchvision-1.txt")[0])
    assert (line.source, line.epoch, line.count, line.total, line.loss) == ("torchvision", 0, 42, 5005, 6.9578)
    assert line.unit == "img/s" and line.rate == pytest.approx(21.103622079334734)
    assert line.values["max mem"] == 3524
    ends = lines("torchvision-3.txt")
    assert read(ends[0]) is None and read(ends[1]) is None  # `Total time:` and `Averaged stats:`
    no_rate = read(ends[2])
    assert no_rate.loss == 0.0276 and no_rate.rate is None and no_rate.unit is None


def test_metric_regex_reads_its_figure_and_a_rate_name_makes_it_the_throughput():
    tokens = compile_metric(r"tok/s=tok/s=([0-9.]+)")
    line = read(lines("tqdm-1.txt")[2], (tokens,))
    assert (line.rate, line.unit, line.rate_as) == (27851.7, "tok/s", "--metric tok/s")
    assert line.count == 499 and line.loss == 0.9962  # the tool's other figures stay
    own = read("iter 40: loss 2.0315, time 96.20ms", (compile_metric(r"loss=loss ([0-9.]+)"),
                                                        compile_metric(r"step=iter (\d+):")))
    assert (own.source, own.loss, own.count) == ("--metric", 2.0315, 40)


@pytest.mark.parametrize("name, rate", [
    ("tokens/s", True), ("img/s", True), ("samples/sec", True), ("it/s", True), ("TFLOP/s", True),
    ("ms/step", False), ("s/it", False), ("sec/iter", False), ("ms/s", False), ("loss", False), ("step_ms", False),
])
def test_a_rate_is_told_from_a_time_by_its_denominator(name, rate):
    """`ms/step` holds "/s" but is a time per step: made the headline throughput, compare read a job 1.9x slower
    as 1.89x faster."""
    metric = compile_metric(f"{name}={name} ([0-9.]+)")
    assert metric.is_rate is rate
    line = read(f"{name} 96.2", (metric,))
    assert (line.rate, line.unit) == ((96.2, name) if rate else (None, None))
    assert line.values == {name: 96.2}   # a time stays a figure of the run


@pytest.mark.parametrize("text, said", [
    ("loss=(", "is not a regular expression"),
    ("loss=loss", "has 0 groups; it needs exactly one"),
    ("loss=(a)(b)", "has 2 groups"),
    ("loss", "give NAME=REGEX"),
    ("loss\x1b[2J=([0-9.]+)", "a NAME is up to 40 printable characters"),
    ("n" * 41 + "=([0-9.]+)", "a NAME is up to 40 printable characters"),
])
def test_a_metric_that_cannot_work_is_one_line(text, said):
    with pytest.raises(BadMetric, match=said.replace("(", r"\(")) as caught:
        compile_metric(text)
    assert "\n" not in str(caught.value)


def test_a_trainer_dict_printed_onto_a_bars_redraw_is_read_at_the_bars_count():
    # `print(logs)` while the bar is on the line (no tqdm.write to clear it first) glues the two
    glued = read("Training:  16%|#         | 1/6 [00:01<00:05, 31.00it/s]{'loss': 1.0, 'epoch': 0.17}")
    assert (glued.source, glued.count, glued.total, glued.loss, glued.rate) == ("hf_trainer", 1, 6, 1.0, 31.0)


def test_lightning_2_bars_with_v_num_first_and_with_no_known_total():
    first, second = (read(line) for line in lines("lightning-2.5.txt")[:2])
    assert (first.epoch, first.count, first.total, first.rate, first.loss) == (0, 3744, 150000, 0.32, None)
    assert (second.epoch, second.count, second.total, second.rate) == (1, 0, 146256, None)
    unknown = read(lines("lightning-unknown-total.txt")[0])  # `Epoch 1: |...| 40/? [...]`, a log line glued on
    assert (unknown.epoch, unknown.count, unknown.total, unknown.rate) == (1, 40, None, 5.01)
    # the loss its user logged: the training one, not the validation's beside it
    assert unknown.loss == 0.411 and unknown.values["val_mse_loss_step"] == 0.185


def test_a_trainer_dict_s_keys_are_figures_only_when_they_are_plain_names():
    """literal_eval turns '\\x1b' in the printed text into a real ESC: such a key is no figure of the run."""
    line = "{'train_runtime': 1.0, '\\x1b]0;pwned\\x07': 2.0, '\\u202eevil': 3.0, '" + "k" * 101 + "': 4.0}"
    assert read(line).values == {"train_runtime": 1.0}
