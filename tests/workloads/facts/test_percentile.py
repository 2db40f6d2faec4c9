"""The one percentile (numpy's default), for a run's p90 and a generation's or a server's latencies."""

from workloads.facts.percentile import percentile


def test_percentile_interpolates_and_missing_data_is_none():
    assert percentile([], 50) is None
    assert percentile([3.0], 99) == 3.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
    assert percentile(list(range(101)), 90) == 90
    assert percentile([4.0, None, float("nan"), 1.0], 50) == 2.5
    assert percentile([4.0, 1.0, 3.0, 2.0], 90) == percentile([1.0, 2.0, 3.0, 4.0], 90) == 3.7
