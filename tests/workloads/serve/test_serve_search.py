"""--find-max's bracketing search as pure logic: a server that holds the SLO up to exactly R (an oracle) is found
within 5 % in at most 8 levels from any ceiling the saturation run may measure, and each way the search can end."""

from __future__ import annotations

import pytest

from workloads.serve.search import BRACKET, BUDGET, CEILING, LEVELS, NONE_MEETS, Search


def searched(ceiling: float, capacity: float, levels: int = 8, whole: bool = False) -> Search:
    search = Search(ceiling, levels, whole=whole)
    while (value := search.next()) is not None:
        search.record(value, value <= capacity)
    return search


@pytest.mark.parametrize("capacity", [0.7, 3.0, 7.5, 9.0, 9.9, 12.3, 97.0, 180.0, 499.0])
@pytest.mark.parametrize("over", [1.0, 1.05, 1.3, 1.9])
def test_a_known_capacity_is_found_within_5_percent_in_at_most_8_levels(capacity, over):
    ceiling = capacity * over     # the saturation run's throughput: at or above what holds the SLO
    search = searched(ceiling, capacity)
    assert len(search.tried) <= 8
    if search.stop == CEILING:     # the ceiling itself held (the capacity was at the ceiling's rounding)
        assert search.holds >= ceiling * 0.995
        return
    assert search.stop == BRACKET, search.tried
    assert search.holds <= capacity < search.misses
    assert search.misses / search.holds <= 1.05 + 0.01   # the two ends within 5 % (levels rounded to 3 figures)
    assert capacity / search.holds <= 1.06


def test_the_same_verdicts_ask_for_the_same_levels():
    # the ceiling, halving to a hold, geometric bisection, and the missing end probed once more before it ends
    assert searched(9.13, 7.5).tried == [(9.13, False), (4.57, True), (6.46, True), (7.68, False), (7.04, True),
                                         (7.35, True), (7.68, False)]


def test_a_ceiling_that_holds_ends_the_search_at_once():
    search = searched(9.0, 100.0)
    assert search.tried == [(9.0, True)] and search.stop == CEILING and search.holds == 9.0
    assert search.misses is None


def test_no_level_meeting_the_slo_ends_at_the_levels_with_the_lowest_tried():
    search = searched(100.0, 0.0)
    assert search.stop == NONE_MEETS and search.holds is None
    assert len(search.tried) == 8 and search.misses == min(v for v, _ in search.tried) == 0.78   # halved, 3 figures each


def test_too_few_levels_to_bracket_say_so():
    search = searched(100.0, 61.0, levels=3)
    assert search.stop == LEVELS and (search.holds, search.misses) == (50.0, 70.7)


def test_the_budget_ends_a_search_with_the_bracket_so_far():
    search = Search(100.0)
    for _ in range(2):
        value = search.next()
        search.record(value, value < 61)
    search.out_of_time()
    assert search.next() is None and search.stop == BUDGET and (search.holds, search.misses) == (50.0, 100.0)


def test_a_concurrency_search_is_in_whole_numbers_and_ends_when_the_ends_are_neighbours():
    search = searched(64, 13, whole=True)
    assert all(v == int(v) for v, _ in search.tried)
    assert (search.holds, search.misses, search.stop) == (13.0, 14.0, BRACKET)
    assert searched(1, 0, whole=True).stop == NONE_MEETS


def test_a_lower_level_missing_while_a_higher_held_is_noise_not_the_bracket():
    search = Search(100.0)
    for value, holds in ((100.0, False), (50.0, True), (40.0, False), (70.7, False), (59.5, True)):
        search.record(value, holds)
    assert (search.holds, search.misses) == (59.5, 70.7) and search.next() == 64.9


def test_one_noisy_miss_below_the_capacity_is_probed_again_and_does_not_close_the_bracket_under_it():
    # the server holds up to 200; the first time 192 is asked, one noisy level misses it
    search, noisy = Search(260.0), {192.0}
    while (value := search.next()) is not None:
        holds = value <= 200 and value not in noisy
        noisy.discard(value)
        search.record(value, holds)
    asked = [v for v, _ in search.tried]
    assert asked.count(192.0) == 2 and (192.0, False) in search.tried and (192.0, True) in search.tried
    assert search.stop == BRACKET and (search.holds, search.misses) == (192.0, 201.0)
    assert len(search.tried) <= 8


def test_a_miss_the_second_probe_confirms_ends_the_search_there():
    search = searched(260.0, 180.0)
    hi = search.misses
    assert [v for v, _ in search.tried].count(hi) == 2 and search.stop == BRACKET
