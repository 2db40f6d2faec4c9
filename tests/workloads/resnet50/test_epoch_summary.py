"""The epoch summary's wording: an epoch cut short says so, and its rate is the headline's figure, named."""
from workloads.resnet50.result import EpochSummary, StepRecord, median_words


def records(rates, warmup):
    # 4 images a step, step time from the rate; the first `warmup` steps are not counted
    return [StepRecord(4, 4 / r, 4 / r, 0.0, 2.0 + i, counted=i >= warmup) for i, r in enumerate(rates)]


def test_an_epoch_the_step_cap_ends_early_says_so_and_gives_the_median_after_warm_up():
    summary = EpochSummary.of(records([1.0, 2.0, 30.0, 34.0, 32.0, 33.0], warmup=3), 1, 1, 3200)
    assert summary.line(capped_at=6) == ("epoch 1/1 ended early, after 6 of its 3200 steps (--steps 6): mean loss 4.5, "
                                         "median after warm-up 33 images/s (3 steps, 3 warm-up left out)")


def test_a_whole_epoch_is_done_and_its_warm_up_is_left_out_of_the_median():
    summary = EpochSummary.of(records([1.0, 10.0, 20.0, 40.0], warmup=1), 2, 3, 4)
    assert summary.images_per_s == 20.0
    assert summary.line() == ("epoch 2/3 done, 4 steps: mean loss 3.5, median after warm-up 20 images/s "
                              "(3 steps, 1 warm-up left out)")


def test_an_epoch_of_warm_up_only_never_calls_its_median_after_warm_up():
    summary = EpochSummary.of(records([1.0, 3.0], warmup=5), 1, 1, 100)
    assert summary.line() == ("epoch 1/1 ended early, after 2 of its 100 steps: mean loss 2.5, "
                              "median of all 2 steps (all warm-up) 2 images/s")
    assert median_words(False, 1) == "median of all 1 step (all warm-up)"


def test_an_epoch_after_the_warm_up_counts_every_step():
    summary = EpochSummary.of(records([30.0, 34.0], warmup=0), 2, 2, 2)
    assert summary.line() == "epoch 2/2 done, 2 steps: mean loss 2.5, median after warm-up 32 images/s (2 steps)"
