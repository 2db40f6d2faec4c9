"""The largest batch that fits, searched over a ``fits`` that stands in for running out of memory (pure logic)."""
import pytest

from workloads.child.train import batch_search


def _fits_below(limit):
    return lambda batch: batch <= limit


@pytest.mark.parametrize("limit", [1, 5, 12, 100, 1000])
def test_search_finds_the_largest_fitting_batch(limit):
    found = batch_search.search(_fits_below(limit), cap=4096, tolerance=0)
    assert found.largest == limit and found.smallest_failing == limit + 1 and not found.capped
    sizes = [b for b, _ in found.tried]
    doubling = limit.bit_length() + 1
    assert sizes[:doubling] == [2**i for i in range(doubling)]  # doubling first
    assert len(sizes) <= 2 * limit.bit_length() + 2  # then bisection, not a linear walk


def test_search_stops_at_the_cap_and_tries_the_cap_itself():
    found = batch_search.search(_fits_below(10**6), cap=48)
    assert found.largest == 48 and found.capped and found.smallest_failing is None
    assert [b for b, _ in found.tried] == [1, 2, 4, 8, 16, 32, 48]


def test_search_reports_none_when_even_one_does_not_fit():
    found = batch_search.search(_fits_below(0), cap=64)
    assert found.largest is None and found.smallest_failing == 1


def test_search_tolerance_spares_trials_at_large_sizes():
    exact = batch_search.search(_fits_below(1500), cap=4096, tolerance=0)
    rough = batch_search.search(_fits_below(1500), cap=4096)
    assert exact.largest == 1500
    assert 1500 * 15 / 16 <= rough.largest <= 1500 and len(rough.tried) < len(exact.tried)
