"""One warm-up rule for every "median after warm-up" (issue 22.5): the report had its own rule (the first tenth)
beside the workloads' flags, and the command workload had a copy of the default (issue 35)."""

from workloads.facts.warmup import default_warmup, split_warmup


def _flagged(step):
    return step[1]


def test_flagged_steps_are_warmup_wherever_they_fall_then_the_told_count_then_the_first_tenth():
    steps = [(i, i % 5 != 0) for i in range(1, 16)]          # a soak: three inner runs, four warm-up steps each
    assert split_warmup(steps, _flagged, told=1) == (12, [(5, False), (10, False), (15, False)])
    plain = [(i, False) for i in range(1, 31)]
    assert split_warmup(plain, _flagged, told=4)[0] == 4
    assert split_warmup(plain, _flagged, emits_warmup=False) == (0, plain)
    assert split_warmup(plain, _flagged) == (3, plain[3:])
    assert [default_warmup(n) for n in (0, 2, 3, 19, 20, 500)] == [0, 0, 1, 1, 2, 10]
