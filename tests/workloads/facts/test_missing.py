"""The one rule for "is this a figure", which the report, compare, the soak, the parsers and the probe share."""

import math

import pytest

from workloads.facts.missing import finite_or_none, is_finite


@pytest.mark.parametrize("value, figure", [
    (3, 3), (0, 0), (2.5, 2.5), (-1e300, -1e300), (0.0, 0.0),
    (True, None), (False, None),                        # JSON's booleans are not counts
    (math.nan, None), (math.inf, None), (-math.inf, None),  # json.loads gives these for NaN and Infinity
    ("1", None), (None, None), ([1], None), ({"value": 1}, None),
])
def test_a_figure_is_a_finite_int_or_float(value, figure):
    assert finite_or_none(value) == figure and (finite_or_none(value) is None) == (figure is None)
    assert is_finite(value) is (figure is not None)


def test_the_report_soak_parsers_and_probe_use_it():
    from tui.report import charts, summary
    from workloads import probe_report

    from tui.compare import comparison
    from workloads.command.parsers import tqdm
    from workloads.soak import intervals

    assert summary.finite_or_none is finite_or_none and charts.is_finite is is_finite
    assert comparison.finite_or_none is finite_or_none
    assert intervals.finite_or_none is finite_or_none and tqdm.finite_or_none is finite_or_none
    assert probe_report._number(math.nan) is None and probe_report._number(3) == 3.0  # NaN passed before
